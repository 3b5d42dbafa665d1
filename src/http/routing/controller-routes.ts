import { type HttpAuthorizationType, classDeclarationOf, methodDeclarationOf, type DeclaredVerb } from "./route-decorators.js";

/** One route a controller method declares, with what it inherited. @internal */
export interface ControllerRoute {
  /** The name of the method to call. */
  readonly methodName: string;
  /** The method itself: the most derived definition of that name on the class's prototype chain. */
  readonly handler: (...args: unknown[]) => unknown;
  readonly verb: DeclaredVerb;
  /** Every required area: the class's, the method's and those of the methods it overrides. */
  readonly areas: readonly string[];
  /** The explicit authorization type (method first, then the nearest class); undefined when none says. */
  readonly authorization: HttpAuthorizationType | undefined;
}

interface Collected {
  handler: (...args: unknown[]) => unknown;
  verbs: DeclaredVerb[] | undefined;
  areas: string[];
  authorization: HttpAuthorizationType | undefined;
  areasOf: readonly string[] | undefined;
}

/**
 * A controller class that serves only some of the routes it declares: `servesRoute` answers, once when the
 * class is registered, whether the route of the method `methodName` exists for `controller` (a subclass).
 */
export interface HttpSelectiveController {
  servesRoute(controller: Function, methodName: string): boolean;
}

/** The `@Uri` of the class or of its nearest ancestor that has one. @internal */
export function controllerUriOf(controller: Function): string | undefined {
  for (let c: unknown = controller; typeof c === "function"; c = Object.getPrototypeOf(c)) {
    const uri = classDeclarationOf(c)?.uri;
    if (uri !== undefined) return uri;
  }
  return undefined;
}

/**
 * The routes of a controller class. A method overriding a decorated one keeps its routes unless it declares
 * its own, inherits its areas and its authorization type unless it states one. A
 * method with no area of its own takes those of the methods its `areasOf` option names. A route that the
 * class says it does not serve (`HttpSelectiveController`) is left out.
 * @internal
 */
export function controllerRoutesOf(controller: Function): ControllerRoute[] {
  let classAuthorization: HttpAuthorizationType | undefined;
  const classAreas: string[] = [];
  for (let c: unknown = controller; typeof c === "function"; c = Object.getPrototypeOf(c)) {
    const declaration = classDeclarationOf(c);
    if (declaration === undefined) continue;
    classAuthorization ??= declaration.authorization;
    classAreas.push(...declaration.areas);
  }

  const byName = new Map<string, Collected>();
  for (
    let proto: object | null = controller.prototype as object;
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === "constructor") continue;
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (typeof value !== "function") continue;
      const declaration = methodDeclarationOf(value);
      let collected = byName.get(name);
      if (collected === undefined) {
        collected = {
          handler: value as (...args: unknown[]) => unknown,
          verbs: undefined,
          areas: [],
          authorization: undefined,
          areasOf: undefined,
        };
        byName.set(name, collected);
      }
      if (declaration === undefined) continue;
      if (collected.verbs === undefined && declaration.verbs.length > 0) collected.verbs = declaration.verbs;
      collected.areas.push(...declaration.areas);
      collected.authorization ??= declaration.authorization;
      collected.areasOf ??= declaration.areasOf;
    }
  }

  const routes: ControllerRoute[] = [];
  const serves = (controller as Partial<HttpSelectiveController>).servesRoute;
  for (const [methodName, collected] of byName) {
    if (collected.verbs === undefined) continue;
    if (serves !== undefined && !serves.call(controller, controller, methodName)) continue;
    const own = collected.areas.length > 0 || collected.areasOf === undefined ? collected.areas : borrowedAreas(byName, collected.areasOf);
    const areas = [...new Set([...classAreas, ...own])];
    for (const verb of collected.verbs) {
      routes.push({ methodName, handler: collected.handler, verb, areas, authorization: collected.authorization ?? classAuthorization });
    }
  }
  return routes;
}

/** The areas declared on the named methods (with their overrides), for a route that borrows them. */
function borrowedAreas(byName: ReadonlyMap<string, Collected>, names: readonly string[]): string[] {
  return names.flatMap((name) => byName.get(name)?.areas ?? []);
}

/**
 * A route method's twin that the server calls in its place while a controller class keeps the method as the
 * framework wrote it: the same answer, but a value where it is ready at once instead of a promise of it (a method
 * whose signature promises a `Promise` for those who override or call it). An override has no twin: it is called.
 * @internal
 */
export const answerNow: unique symbol = Symbol("tenon.answerNow");

/** The function the server calls for a route whose method is `handler`: its `answerNow` twin where it has one. */
export function routeHandlerOf(handler: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return (handler as { [answerNow]?: (...args: unknown[]) => unknown })[answerNow] ?? handler;
}
