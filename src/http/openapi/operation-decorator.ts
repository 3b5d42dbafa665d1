import type { HttpMethodDecorator } from "../routing/route-decorators.js";
import type { HttpOperationFacts, JsonSchema } from "./openapi-types.js";

/**
 * A class named as a body: its schema comes from a registered source (the ORM bridge, http/crud, gives the
 * entity classes'). A class no source knows is an unconstrained body.
 */
export type HttpBodyClass = abstract new (...args: never[]) => object;

/** A body of a described operation: a class (an entity), an array of one (`[Company]`), or a plain JSON Schema. */
export type HttpBodyDescription = HttpBodyClass | readonly [HttpBodyClass] | JsonSchema;

/** What `@OpenApi` says about one handler. Every member is optional; what is left out is not described. */
export interface HttpOperationOptions extends HttpOperationFacts<HttpBodyDescription> {}

/**
 * Turns a body class into a schema, adding the component schemas it refers to into `schemas`; answers
 * undefined for a class it does not know. @internal
 */
export type HttpClassSchemaSource = (bodyClass: Function, schemas: Record<string, JsonSchema>) => JsonSchema | undefined;

const described = new WeakMap<object, HttpOperationOptions>();
const classSchemaSources: HttpClassSchemaSource[] = [];

/**
 * Describes a handler in the OpenAPI document (docs/openapi.md "Describing other routes"): its request and
 * response bodies (an entity class, an array of one, or a JSON Schema), summary, description and tags. It
 * only records the options on the method; they are read when the document is first built, never on the
 * request path. Several `@OpenApi` on one method merge, the one nearest the method winning.
 */
export function OpenApi(options: HttpOperationOptions): HttpMethodDecorator {
  return (value) => {
    described.set(value, { ...options, ...described.get(value) });
  };
}

/** What `@OpenApi` recorded on a handler function, if anything. @internal */
export function operationOptionsOf(handler: object): HttpOperationOptions | undefined {
  return described.get(handler);
}

/** Adds a source of body class schemas (the ORM bridge adds the entity classes' when it loads). @internal */
export function addClassSchemaSource(source: HttpClassSchemaSource): void {
  if (!classSchemaSources.includes(source)) classSchemaSources.push(source);
}

/** The schema of a body description, adding the component schemas it refers to into `schemas`. @internal */
export function bodySchemaOf(body: HttpBodyDescription | undefined, schemas: Record<string, JsonSchema>): JsonSchema | undefined {
  if (body === undefined) return undefined;
  if (Array.isArray(body)) return { type: "array", items: bodySchemaOf(body[0] as HttpBodyClass, schemas) ?? {} };
  if (typeof body === "function") {
    for (const source of classSchemaSources) {
      const schema = source(body, schemas);
      if (schema !== undefined) return schema;
    }
    return {};
  }
  return body as JsonSchema;
}
