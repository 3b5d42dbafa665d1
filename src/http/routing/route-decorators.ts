import { HttpServerError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";

/** Whether a route requires an authenticated caller; on a method it wins over the class. */
export enum HttpAuthorizationType {
  /** Served without authentication. */
  None = "None",
  /** Requires an authenticated caller (the default). */
  Authentication = "Authentication",
}

/** The methods a route can answer (HEAD comes with every GET). */
export type HttpRouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Options of a route decorator. `params` says how the `?` placeholders reach the handler: `"int32"` (the
 * default: each segment must be a 32-bit integer, such as a `PrimaryKey` or a `Version`, or the request
 * answers 400) or `"string"` (the decoded segment as it was sent).
 */
export interface HttpRouteOptions {
  /** How placeholder segments are converted: `"int32"` (default) or `"string"`. */
  readonly params?: "int32" | "string";
  /**
   * Methods of the same controller whose areas this route takes when neither this method nor an override
   * of it declares an `@Area` of its own: a route that a base class adds beside others (PATCH beside PUT,
   * a bulk route beside the single writes) is then never guarded less than they are in a subclass that
   * guards only them. Areas of the class apply as always.
   */
  readonly areasOf?: readonly string[];
  /**
   * Media types (such as `application/x-ndjson`) whose bodies the route reads as they arrive, through
   * `HttpRequest.bodyStream`, instead of the server reading the whole body first: for a body too large to hold
   * (an import). Such a body is bounded by `HttpServer.maxStreamedContentLength` instead of
   * `maxRequestContentLength`. A body of any other type is read whole, as for every route.
   */
  readonly streamedBody?: readonly string[];
}

/** One `@Get`/`@Post`/`@Put`/`@Patch`/`@Delete` on a method. */
export interface DeclaredVerb {
  readonly method: HttpRouteMethod;
  readonly path: string;
  readonly params: "int32" | "string";
  /** The media types whose bodies the route reads as a stream (lower case; `HttpRouteOptions.streamedBody`), if any. */
  readonly streamedBody: readonly string[] | undefined;
}

/** What the decorators recorded on one method. @internal */
export interface MethodDeclaration {
  readonly name: string;
  readonly verbs: DeclaredVerb[];
  readonly areas: string[];
  authorization: HttpAuthorizationType | undefined;
  /** The methods whose areas the routes take when no `@Area` of their own is declared (`HttpRouteOptions.areasOf`). */
  areasOf: readonly string[] | undefined;
}

/** What the decorators recorded on one class. @internal */
export interface ClassDeclaration {
  uri: string | undefined;
  authorization: HttpAuthorizationType | undefined;
  readonly areas: string[];
}

const methodDeclarations = new WeakMap<object, MethodDeclaration>();
const classDeclarations = new WeakMap<object, ClassDeclaration>();

/** The declaration recorded on a method function, if any. @internal */
export function methodDeclarationOf(method: object): MethodDeclaration | undefined {
  return methodDeclarations.get(method);
}

/** The declaration recorded on a class itself (not its ancestors), if any. @internal */
export function classDeclarationOf(target: object): ClassDeclaration | undefined {
  return classDeclarations.get(target);
}

/** A decorator of a public instance method. */
export type HttpMethodDecorator = <This, Value extends (this: This, ...args: never) => unknown>(
  value: Value,
  context: ClassMethodDecoratorContext<This>,
) => void;

/** A decorator of a controller class. */
export type HttpClassDecorator = (value: abstract new (...args: never[]) => unknown, context: ClassDecoratorContext) => void;

/** A decorator that applies to a controller class or to one of its methods. */
export type HttpClassOrMethodDecorator = (value: object, context: ClassDecoratorContext | ClassMethodDecoratorContext) => void;

/** The parts of a method decorator context this module reads. */
interface MethodContextFacts {
  readonly name: string | symbol;
  readonly static: boolean;
  readonly private: boolean;
}

function declarationOfMethod(value: object, context: MethodContextFacts): MethodDeclaration {
  if (context.static || context.private || typeof context.name !== "string") {
    throw new HttpServerError(HttpMessages.decoratorOnStaticOrPrivate(String(context.name)));
  }
  let declaration = methodDeclarations.get(value);
  if (declaration === undefined) {
    declaration = { name: context.name, verbs: [], areas: [], authorization: undefined, areasOf: undefined };
    methodDeclarations.set(value, declaration);
  }
  return declaration;
}

function declarationOfClass(value: object): ClassDeclaration {
  let declaration = classDeclarations.get(value);
  if (declaration === undefined) {
    declaration = { uri: undefined, authorization: undefined, areas: [] };
    classDeclarations.set(value, declaration);
  }
  return declaration;
}

function verb(method: HttpRouteMethod, path: string | undefined, options: HttpRouteOptions | undefined): HttpMethodDecorator {
  return (value, context) => {
    const declaration = declarationOfMethod(value, context);
    declaration.verbs.push({
      method,
      path: path ?? "",
      params: options?.params ?? "int32",
      streamedBody: options?.streamedBody?.map((type) => type.trim().toLowerCase()),
    });
    if (options?.areasOf !== undefined) declaration.areasOf = [...(declaration.areasOf ?? []), ...options.areasOf];
  };
}

/** The base path of a controller; `registerController(Class, uri)` overrides it. */
export function Uri(path: string): HttpClassDecorator {
  return (value) => {
    declarationOfClass(value).uri = path;
  };
}

/** Answers GET at the controller path, optionally followed by `path` (`?` placeholders, `*` catch-all). */
export function Get(path?: string, options?: HttpRouteOptions): HttpMethodDecorator {
  return verb("GET", path, options);
}

/** Answers POST at the controller path, optionally followed by `path`. */
export function Post(path?: string, options?: HttpRouteOptions): HttpMethodDecorator {
  return verb("POST", path, options);
}

/** Answers PUT at the controller path, optionally followed by `path`. */
export function Put(path?: string, options?: HttpRouteOptions): HttpMethodDecorator {
  return verb("PUT", path, options);
}

/** Answers PATCH at the controller path, optionally followed by `path`. */
export function Patch(path?: string, options?: HttpRouteOptions): HttpMethodDecorator {
  return verb("PATCH", path, options);
}

/** Answers DELETE at the controller path, optionally followed by `path`. */
export function Delete(path?: string, options?: HttpRouteOptions): HttpMethodDecorator {
  return verb("DELETE", path, options);
}

/** Whether the routes of a class or one method require authentication; the method wins over the class. */
export function AuthorizationType(type: HttpAuthorizationType): HttpClassOrMethodDecorator {
  return (value, context) => {
    if (context.kind === "class") declarationOfClass(value).authorization = type;
    else declarationOfMethod(value, context).authorization = type;
  };
}

/**
 * A required authorization area: the user's `areas` must include it (without case), or
 * the answer is 403. On a class it applies to every route of the class. Several areas must all be held.
 * An area on a method is inherited by an override of that method.
 */
export function Area(name: string): HttpClassOrMethodDecorator {
  return (value, context) => {
    if (context.kind === "class") declarationOfClass(value).areas.push(name);
    else declarationOfMethod(value, context).areas.push(name);
  };
}
