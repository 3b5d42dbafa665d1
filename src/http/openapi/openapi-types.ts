import type { HttpUser } from "../exchange/http-user.js";

/**
 * The shapes the OpenAPI document is made of, and the small interface through which a controller class
 * describes its routes' bodies (the ORM side implements it for the generic CRUD controllers, so that the
 * HTTP core never reads an entity mapping itself).
 */

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), as a plain JSON object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * What is said about one handler, whoever says it: a controller class (`HttpOperationDescription`, its bodies
 * as JSON Schemas) or `@OpenApi` (`HttpOperationOptions`, its bodies as classes or schemas). Every member is
 * optional; what is left out is not described.
 */
export interface HttpOperationFacts<Body> {
  /** A one-line summary. */
  readonly summary?: string;
  /** A longer description (Markdown), before the notes on areas and authentication. */
  readonly description?: string;
  /** Tags grouping the operation (default: the controller's name). */
  readonly tags?: readonly string[];
  /** The names of the `?` placeholders, in order (default `param1`, `param2`...). */
  readonly parameterNames?: readonly string[];
  /** The request body; absent: the operation takes no described body (an unconstrained one). */
  readonly requestBody?: Body;
  /**
   * The media types the request body is accepted in (default `application/json` alone); `requestBody`
   * describes it in each.
   */
  readonly requestMediaTypes?: readonly string[];
  /** The answer of a success; absent: any JSON. */
  readonly responseBody?: Body;
  /**
   * The media types a success answers (default `application/json` alone), `responseBody` describing it in
   * each: a handler that answers a page, a stylesheet or a script says so here (`["text/html"]`).
   */
  readonly responseMediaTypes?: readonly string[];
  /** The status of a success: 200 (the default) or 201. */
  readonly status?: 200 | 201;
  /**
   * Statuses of the server's catalogue that the handler answers by itself besides those its route gives
   * anyway (a 401 from an anonymous logon route, a 409 from a GET).
   */
  readonly answers?: readonly number[];
}

/** What a controller says about one of its handlers, keyed by the handler's method name. */
export interface HttpOperationDescription extends HttpOperationFacts<JsonSchema> {
  /** The success answer carries the entity's `ETag` header (the generic controllers of a versioned entity). */
  readonly etag?: boolean;
  /**
   * Bodies of a success in further media types, each with its own schema (a select's NDJSON and CSV answers),
   * besides `responseBody` in `responseMediaTypes`.
   */
  readonly otherResponseBodies?: Readonly<Record<string, JsonSchema>>;
  /** Request bodies in further media types, each with its own schema (the bulk route's NDJSON import), besides `requestBody`. */
  readonly otherRequestBodies?: Readonly<Record<string, JsonSchema>>;
  /** Parameter objects besides the path's placeholders (query parameters and request headers). */
  readonly parameters?: readonly JsonSchema[];
  /** Header objects of the success answer besides those the server gives (`ETag`, the rate-limit headers), by name. */
  readonly responseHeaders?: Readonly<Record<string, JsonSchema>>;
}

/** The routes' bodies of one controller class, and the schemas they refer to (`#/components/schemas/<name>`). */
export interface HttpRouteDescriptions {
  /** Component schemas by name; the same name given twice must be the same schema. */
  readonly schemas?: Readonly<Record<string, JsonSchema>>;
  /** Descriptions by handler method name; a handler without one still appears, with an unconstrained body. */
  readonly operations: Readonly<Record<string, HttpOperationDescription>>;
  /**
   * The requests the API sends to its clients (OpenAPI 3.1 `webhooks`: Path Item objects by name), such as the
   * change feed's deliveries; the same name given twice must be the same description.
   */
  readonly webhooks?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The handlers a document written for a role leaves out: the role may never call them (its policies grant nothing there). */
  readonly omit?: readonly string[];
}

/**
 * A controller class that describes its routes: a static `openApiDescription(controller, schemas)`, called with
 * the registered class itself (so that a base class's static method describes each subclass), once, when the
 * document is first built, never on the request path.
 */
export interface HttpDescribedController {
  /**
   * The descriptions of the routes of `controller` (the registered class). `schemas` holds the document's
   * component schemas so far: a description may add its components there directly, and skip those already
   * present (an entity reached from many others is then described once), instead of returning them. `role`, when
   * given, is the caller the document is written for: describe what it may read, write and call.
   */
  openApiDescription(controller: Function, schemas: Record<string, JsonSchema>, role?: HttpUser): HttpRouteDescriptions;
}

/** The settings of the document's `info` object, and the caller it is written for. */
export interface OpenApiOptions {
  /**
   * The caller (its areas and claims) the document is written for: routes whose areas it lacks are left out, and the
   * entities' policies decide what of each entity it reads, writes and calls (docs/policies.md). Absent: every route,
   * and every member some caller may see.
   */
  readonly role?: HttpUser;
  /** The API's title (default `Tenon API`). */
  readonly title?: string;
  /** The API's version (default `1.0.0`). */
  readonly version?: string;
  /** A description of the API. */
  readonly description?: string;
}

/** An OpenAPI 3.1 document as plain JSON. */
export interface OpenApiDocument {
  readonly openapi: "3.1.0";
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly webhooks?: Record<string, Readonly<Record<string, unknown>>>;
  readonly components: Record<string, Record<string, unknown>>;
  readonly security?: readonly Record<string, readonly string[]>[];
}
