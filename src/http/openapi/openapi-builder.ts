import {
  type HttpAnswerHeader,
  type HttpRouteFacts,
  HttpStatusCatalogue,
  type HttpStatusEntry,
  type HttpStatusName,
} from "../exchange/http-status-catalogue.js";
import { errorBodyName, errorBodySchemas, errorResponseName, headerDescriptions, statusDescriptions } from "./error-responses.js";
import { OpenApiMessages } from "./openapi-messages.js";
import { bodySchemaOf, operationOptionsOf } from "./operation-decorator.js";
import type {
  HttpDescribedController,
  HttpOperationDescription,
  HttpRouteDescriptions,
  JsonSchema,
  OpenApiDocument,
  OpenApiOptions,
} from "./openapi-types.js";

/** One route as the server resolves it, with what the document needs to know of it. @internal */
export interface DocumentedRoute {
  readonly controller: Function;
  readonly methodName: string;
  readonly method: string;
  /** The full pattern, base URI included (`/api/companies/?`). */
  readonly pattern: string;
  readonly params: "int32" | "string";
  readonly areas: readonly string[];
  readonly requiresAuthentication: boolean;
  /** Whether a rate limit of the server can apply to the route (429 is then one of its answers). */
  readonly rateLimited: boolean;
}

/** The security scheme of the registered authentication, or undefined when the server has none. @internal */
export type SecuritySchemeKind = "basic" | "bearer" | undefined;

const jsonMedia = "application/json";
const jsonMedias: readonly string[] = [jsonMedia];

function isDescribed(controller: Function): controller is Function & HttpDescribedController {
  return typeof (controller as unknown as Partial<HttpDescribedController>).openApiDescription === "function";
}

/** A `$ref` to a component. */
function ref(kind: string, name: string): JsonSchema {
  return { $ref: `#/components/${kind}/${name}` };
}

/**
 * Builds the OpenAPI 3.1 document of a server's routes: paths and methods, placeholders as path parameters,
 * security, areas (`x-tenon-areas` and the description), the answers of the status catalogue (`HttpStatusCatalogue`), and the
 * bodies that controller classes describe through `openApiDescription()`; for `options.role`, only what that caller
 * may call and see. Called once per document, never on the request path. @internal
 */
export function buildOpenApiDocument(
  routes: readonly DocumentedRoute[],
  scheme: SecuritySchemeKind,
  options: OpenApiOptions = {},
): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { ...errorBodySchemas };
  const webhooks: Record<string, Readonly<Record<string, unknown>>> = {};
  const descriptions = new Map<Function, HttpRouteDescriptions | undefined>();
  const describe = (controller: Function): HttpRouteDescriptions | undefined => {
    if (!descriptions.has(controller)) {
      const described = isDescribed(controller) ? controller.openApiDescription(controller, schemas, options.role) : undefined;
      descriptions.set(controller, described);
      if (described?.schemas !== undefined && described.schemas !== schemas) Object.assign(schemas, described.schemas);
      if (described?.webhooks !== undefined) Object.assign(webhooks, described.webhooks);
    }
    return descriptions.get(controller);
  };
  /** The static description of a handler, overlaid with what `@OpenApi` recorded on it. */
  const describeOperation = (route: DocumentedRoute): HttpOperationDescription | undefined => {
    const fromClass = describe(route.controller)?.operations[route.methodName];
    const handler = (route.controller.prototype as Record<string, unknown>)[route.methodName];
    const options = typeof handler === "function" ? operationOptionsOf(handler) : undefined;
    if (options === undefined) return fromClass;
    const { requestBody, responseBody, ...rest } = options;
    return {
      ...fromClass,
      ...rest,
      ...(requestBody !== undefined ? { requestBody: bodySchemaOf(requestBody, schemas) } : {}),
      ...(responseBody !== undefined ? { responseBody: bodySchemaOf(responseBody, schemas) } : {}),
    };
  };

  const catalogue = catalogueEntries();
  // Every answer to a request a rate limit applies to carries the limit's headers, errors included.
  const limited = routes.some((route) => route.rateLimited);
  const responses: Record<string, unknown> = {};
  for (const { entry, description } of catalogue) {
    if (entry.body !== "route") responses[errorResponseName(entry.status)] = answerComponent(entry, description, limited, false);
  }

  const schemeName = scheme === "basic" ? "basicAuth" : "bearerAuth";
  const paths: Record<string, Record<string, unknown>> = {};
  // The objects repeated across operations are built once and shared (a large application has thousands).
  const parameterObjects = new Map<string, unknown>();
  const parameterOf = (name: string, index: number, params: DocumentedRoute["params"]): unknown => {
    const key = `${name}|${index}|${params}`;
    let parameter = parameterObjects.get(key);
    if (parameter === undefined) {
      parameter = {
        name,
        in: "path",
        required: true,
        description: OpenApiMessages.placeholder(index + 1) + (params === "int32" ? ` ${OpenApiMessages.integerPlaceholder}` : ""),
        schema: params === "int32" ? { type: "integer", format: "int32" } : { type: "string" },
      };
      parameterObjects.set(key, parameter);
    }
    return parameter;
  };
  const answers = new StandardAnswers(catalogue, responses, limited);
  const parameterNamesByPath = new Map<string, readonly string[]>();
  const operationIds = new Set<string>();
  const role = options.role;
  for (const route of routes) {
    // A document written for a role leaves out what it may never call: routes of areas it lacks, handlers omitted.
    if (
      role !== undefined &&
      (route.areas.some((area) => !role.hasArea(area)) || describe(route.controller)?.omit?.includes(route.methodName))
    )
      continue;
    const operation = describeOperation(route);
    const segments = route.pattern.split("/");
    const placeholders = segments.filter((segment) => segment === "?").length;
    const catchAll = segments.at(-1) === "*";
    let names = parameterNamesByPath.get(route.pattern);
    if (names === undefined) {
      names = Array.from({ length: placeholders }, (_, i) => operation?.parameterNames?.[i] ?? `param${i + 1}`);
      parameterNamesByPath.set(route.pattern, names);
    }
    let index = 0;
    const path = segments.map((segment) => (segment === "?" ? `{${names[index++]}}` : segment === "*" ? "{path}" : segment)).join("/");
    const parameters: unknown[] = names.map((name, i) => parameterOf(name, i, route.params));
    if (catchAll)
      parameters.push({ name: "path", in: "path", required: true, description: OpenApiMessages.catchAll, schema: { type: "string" } });
    paths[path] ??= {};
    let operationId = `${route.controller.name}_${route.methodName}`;
    for (let n = 2; operationIds.has(operationId); n++) operationId = `${route.controller.name}_${route.methodName}_${n}`;
    operationIds.add(operationId);
    const facts = { operationId, placeholders, scheme, schemeName };
    paths[path][route.method.toLowerCase()] = buildOperation(route, operation, parameters, facts, answers, false);
    // HEAD is answered for every GET route: the same status and headers, never a body.
    if (route.method === "GET") paths[path].head = buildOperation(route, operation, parameters, facts, answers, true);
  }

  const components: Record<string, Record<string, unknown>> = { schemas, responses };
  if (scheme !== undefined) {
    components.securitySchemes = {
      [schemeName]:
        scheme === "basic"
          ? { type: "http", scheme: "basic", description: OpenApiMessages.basicScheme }
          : { type: "http", scheme: "bearer", description: OpenApiMessages.bearerScheme },
    };
  }
  const info = {
    title: options.title ?? OpenApiMessages.defaultTitle,
    version: options.version ?? OpenApiMessages.defaultVersion,
    ...(options.description !== undefined ? { description: options.description } : {}),
  };
  return {
    openapi: "3.1.0",
    info,
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks } : {}),
    components,
    ...(scheme !== undefined ? { security: [{ [schemeName]: [] }] } : {}),
  };
}

/** The catalogue's entries in status order, with their descriptions. */
function catalogueEntries(): { entry: HttpStatusEntry; description: string }[] {
  return (Object.keys(HttpStatusCatalogue) as HttpStatusName[])
    .map((name) => ({ entry: HttpStatusCatalogue[name], description: statusDescriptions[name] }))
    .sort((a, b) => a.entry.status - b.entry.status);
}

/**
 * The component of a standard answer: its description, its headers (with the rate limit's where the server has
 * limits) and its body, none for the variant that answers a HEAD request.
 */
function answerComponent(entry: HttpStatusEntry, description: string, limited: boolean, head: boolean): Record<string, unknown> {
  const names: HttpAnswerHeader[] = [...entry.headers];
  if (limited) for (const name of ["RateLimit-Policy", "RateLimit"] as const) if (!names.includes(name)) names.push(name);
  const headers: Record<string, unknown> = {};
  for (const name of names) headers[name] = { description: headerDescriptions[name], schema: { type: "string" } };
  return {
    description,
    ...(names.length > 0 ? { headers } : {}),
    ...(entry.body !== "none" && entry.body !== "route" && !head
      ? { content: { [jsonMedia]: { schema: ref("schemas", errorBodyName(entry.body)) } } }
      : {}),
  };
}

/** The component name of a standard answer to HEAD: the answer's own where it has no body (`Answer304`), else `Error404Head`. */
function headResponseName(entry: HttpStatusEntry): string {
  return entry.body === "none" ? errorResponseName(entry.status) : `${errorResponseName(entry.status)}Head`;
}

/**
 * The standard answers of routes, computed once per kind of route (method, placeholders, authentication,
 * areas, success status, extra answers): the `$ref`s of the catalogue's entries that apply, shared by every
 * operation of that kind, and where the success goes.
 */
class StandardAnswers {
  readonly #catalogue: ReturnType<typeof catalogueEntries>;
  readonly #components: Record<string, unknown>;
  readonly #limited: boolean;
  readonly #byKind = new Map<string, readonly (readonly [string, unknown])[]>();
  readonly #refs = new Map<string, unknown>();

  /** `components` holds the answers' components; those of HEAD are added there when first referred to. */
  constructor(catalogue: ReturnType<typeof catalogueEntries>, components: Record<string, unknown>, limited: boolean) {
    this.#catalogue = catalogue;
    this.#components = components;
    this.#limited = limited;
  }

  /**
   * The answers of a route, in status order: a `$ref` for each standard answer (to its bodiless variant for
   * HEAD), `route` for the success.
   */
  of(facts: HttpRouteFacts, extra: readonly number[] | undefined, head = false): readonly (readonly [string, unknown])[] {
    const key = `${facts.method}|${facts.placeholders}|${facts.requiresAuthentication}|${facts.areas.length > 0}|${facts.successStatus}|${facts.rateLimited}|${extra ?? ""}|${head}`;
    let answers = this.#byKind.get(key);
    if (answers === undefined) {
      const list: (readonly [string, unknown])[] = [];
      for (const { entry, description } of this.#catalogue) {
        if (!entry.appliesTo(facts) && !(entry.body !== "route" && extra?.includes(entry.status) === true)) continue;
        list.push([String(entry.status), entry.body === "route" ? description : this.#ref(entry, description, head)]);
      }
      answers = list;
      this.#byKind.set(key, answers);
    }
    return answers;
  }

  #ref(entry: HttpStatusEntry, description: string, head: boolean): unknown {
    const name = head ? headResponseName(entry) : errorResponseName(entry.status);
    let shared = this.#refs.get(name);
    if (shared === undefined) {
      this.#components[name] ??= answerComponent(entry, description, this.#limited, head);
      this.#refs.set(name, (shared = ref("responses", name)));
    }
    return shared;
  }
}

/** A header of a success answer, as the document describes it. */
const header = (name: "ETag" | "RateLimit" | "RateLimit-Policy") => ({ description: headerDescriptions[name], schema: { type: "string" } });
const etagHeaders = { ETag: header("ETag") };
const rateLimitHeaders = { RateLimit: header("RateLimit"), "RateLimit-Policy": header("RateLimit-Policy") };
const etagAndRateLimitHeaders = { ...etagHeaders, ...rateLimitHeaders };

/**
 * The headers of a success answer, shared by every operation that gives the same ones: `ETag` for a versioned
 * entity, `RateLimit` and `RateLimit-Policy` on a route a rate limit can apply to (every answer to a limited
 * request carries them).
 */
function successHeadersOf(etag: boolean, rateLimited: boolean): Record<string, unknown> | undefined {
  if (etag) return rateLimited ? etagAndRateLimitHeaders : etagHeaders;
  return rateLimited ? rateLimitHeaders : undefined;
}

/** The content entries of bodies keyed by media type. */
function mediaOf(bodies: Readonly<Record<string, JsonSchema>> | undefined): Record<string, unknown> {
  if (bodies === undefined) return {};
  return Object.fromEntries(Object.entries(bodies).map(([media, schema]) => [media, { schema }]));
}

function buildOperation(
  route: DocumentedRoute,
  described: HttpOperationDescription | undefined,
  parameters: readonly unknown[],
  { operationId, placeholders, scheme }: { operationId: string; placeholders: number; scheme: SecuritySchemeKind },
  standard: StandardAnswers,
  head: boolean,
): Record<string, unknown> {
  const facts: HttpRouteFacts = {
    method: route.method,
    placeholders,
    requiresAuthentication: route.requiresAuthentication,
    areas: route.areas,
    successStatus: described?.status ?? HttpStatusCatalogue.ok.status,
    rateLimited: route.rateLimited,
  };
  const responses: Record<string, unknown> = {};
  const schema = described?.responseBody ?? {};
  const success = head
    ? undefined
    : {
        ...Object.fromEntries((described?.responseMediaTypes ?? jsonMedias).map((media) => [media, { schema }])),
        ...mediaOf(described?.otherResponseBodies),
      };
  const ownHeaders = described?.responseHeaders;
  const serverHeaders = successHeadersOf(described?.etag === true, route.rateLimited);
  const headers = ownHeaders === undefined ? serverHeaders : { ...serverHeaders, ...ownHeaders };
  for (const [status, answer] of standard.of(facts, described?.answers, head)) {
    responses[status] =
      typeof answer === "string"
        ? { description: answer, ...(headers !== undefined ? { headers } : {}), ...(success !== undefined ? { content: success } : {}) }
        : answer;
  }
  const notes: string[] = [];
  if (route.areas.length > 0) notes.push(OpenApiMessages.areas(route.areas));
  if (!route.requiresAuthentication) notes.push(OpenApiMessages.anonymous);
  const operation: Record<string, unknown> = {
    operationId: head ? `${operationId}_head` : operationId,
    tags: [...(described?.tags ?? [route.controller.name])],
    ...(described?.summary !== undefined ? { summary: described.summary } : {}),
    ...(described?.description !== undefined || notes.length > 0
      ? { description: [described?.description, notes.join(" ")].filter((text) => text !== undefined && text !== "").join("\n\n") }
      : {}),
    ...(parameters.length > 0 || described?.parameters !== undefined
      ? { parameters: [...parameters, ...(described?.parameters ?? [])] }
      : {}),
    responses,
    "x-tenon-areas": [...route.areas],
  };
  if (route.method === "POST" || route.method === "PUT" || route.method === "PATCH") {
    const body = { schema: described?.requestBody ?? {} };
    operation.requestBody = {
      required: described?.requestBody !== undefined,
      content: {
        ...Object.fromEntries((described?.requestMediaTypes ?? jsonMedias).map((media) => [media, body])),
        ...mediaOf(described?.otherRequestBodies),
      },
    };
  }
  if (scheme !== undefined && !route.requiresAuthentication) operation.security = [];
  return operation;
}
