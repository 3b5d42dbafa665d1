import { InvalidInputError } from "../../errors.js";
import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { JsonSerializerConfig } from "../../json/json-serializer-config.js";
import { declaresChangeFeed } from "../../mapping/change-feed-decorator.js";
import { jsonPropertyName } from "../../json/json-visibility.js";
import { CrudMessages } from "./crud-messages.js";
import { HttpController } from "../exchange/http-controller.js";
import { Delete, Get, Patch, Post, Put } from "../routing/route-decorators.js";
import { answerNow } from "../routing/controller-routes.js";
import type { HttpContext } from "./http-context.js";
import { type HttpAggregatePage, HttpEntityReader, type HttpEntityPage, type HttpSelectPage } from "./http-entity-reader.js";
import { HttpEntityWriter, type HttpEntityBulkResult, type HttpEntityDeleted } from "./http-entity-writer.js";
import { HttpFilterParameters } from "./http-filter-parameters.js";
import { HashedBody, HttpIdempotencyKey } from "./idempotency.js";
import { ndjsonLines } from "./ndjson-lines.js";
import { isNdjson, ndjsonMediaType, recordFormatOf } from "./stream-format.js";
import type { HttpRouteDescriptions, JsonSchema } from "../openapi/openapi-types.js";
import type { HttpUser } from "../exchange/http-user.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { entityRouteDescriptions } from "./crud-descriptions.js";
import { readConsistently, withConsistencyToken } from "./consistency-token.js";

/**
 * The entity class a generic controller serves, read from an instance built without a request: the
 * subclass names it in a field initializer, and the controller's constructor only stores its arguments.
 */
function servedEntityOf(controller: Function): EntityClass<object> {
  const probe = Reflect.construct(controller, [undefined, undefined, undefined]) as { entityClass: EntityClass<object> };
  return probe.entityClass;
}
import { isMergeObject } from "./merge-patch.js";
import { sessionTenant } from "../../session/tenant-scope.js";
import { requireGrant } from "../../session/policy-scope.js";
import { requestPolicy } from "./policy-body.js";
import { HttpError } from "../exchange/http-errors.js";
import { HttpDefaults, HttpStatus } from "../exchange/http-messages.js";
import {
  answerChangeStream,
  type ChangeStreamSettings,
  changeFilterParameters,
  changeWhereOf,
  defaultChangeStreamSettings,
  lastEventIdOf,
} from "./change-stream.js";

/** What `bulk` resolves with after an import, whose answer it wrote to the response: never sent. */
const importedBulk: HttpEntityBulkResult = Object.freeze({ inserted: [], updated: [], deleted: [] });

/** What `select` and `aggregate` resolve with when their answer is streamed: never sent (the response streams). */
const streamedPage: HttpSelectPage & HttpAggregatePage = Object.freeze({ data: [] });

/**
 * A controller that serves one entity class read-only: the GET routes and select (docs/crud.md),
 * delegating to `HttpEntityReader`. Other methods on its addresses answer 405 with `Allow`. Use it for
 * join entities; `HttpEntityController` adds the write routes.
 *
 * | route | method |
 * |---|---|
 * | GET {base} | selectAll |
 * | GET {base}/? | get |
 * | GET {base}/find/? | find |
 * | GET {base}/metadata | metadata |
 * | POST {base}/select | select |
 * | POST {base}/aggregate | aggregate |
 *
 * GET of one entity answers its `ETag` (`"<id>-<version>"`, see docs/crud.md) when it has a version column,
 * and 304 with no content when `If-None-Match` holds.
 */
export abstract class HttpEntityReadController<C, T extends object> extends HttpController<C> {
  /** The entity class served. */
  protected abstract readonly entityClass: EntityClass<T>;

  /**
   * Called by the server, as `HttpController`'s. Written out (the implicit one passes `...arguments` on, which a
   * decorated class's constructor then spreads once more: some 150 instructions per request at each level).
   */
  constructor(context: C, request: HttpRequest, response: HttpResponse) {
    super(context, request, response);
  }

  /** The OpenAPI description of the routes (`HttpDescribedController`), from the entity's mapping (and its policy, for a role). */
  static openApiDescription(controller: Function, schemas: Record<string, JsonSchema> = {}, role?: HttpUser): HttpRouteDescriptions {
    return entityRouteDescriptions(servedEntityOf(controller), false, schemas, role);
  }

  /**
   * The change stream (`GET {base}/changes`) exists for an entity with `@ChangeFeed` only (`HttpSelectiveController`).
   * Read from the decorators: registering the controller does not map the entity (its first request does).
   */
  static servesRoute(controller: Function, methodName: string): boolean {
    return methodName !== "changes" || declaresChangeFeed(servedEntityOf(controller));
  }
  /** The request's session (usually created lazily by the application's context class). */
  protected abstract get httpContext(): HttpContext;

  /** The filter limits of Select and SelectAll. */
  protected get filterParameters(): HttpFilterParameters {
    return HttpFilterParameters.defaults;
  }

  /** The reader used by the GET routes and select; override to attach reader events. */
  protected createReader(): HttpEntityReader<T> {
    return new HttpEntityReader(this.entityClass, this.httpContext, this.filterParameters);
  }

  /**
   * Whether the reads of a read route (`selectAll`, `get`, `find`, `select`) may go to read replicas, on a
   * database that has them: true or false decide for the route, undefined (the default) leaves it to the
   * session's `replicaReads`, then the database's. Override to choose per route.
   */
  protected replicaReadsOf(_route: "selectAll" | "get" | "find" | "select"): boolean | undefined {
    return undefined;
  }

  /** Before a read route: on a database with read replicas, the request's consistency token and the route's replica reads. */
  #prepareReads(route: "selectAll" | "get" | "find" | "select"): void {
    const context = this.httpContext;
    if (context.database.readRouting !== undefined) readConsistently(this.request, context, this.replicaReadsOf(route));
  }

  /** GET {base}: every row up to the page ceiling, `{count, data}`. */
  @Get()
  selectAll(): Promise<HttpEntityPage> {
    this.#prepareReads("selectAll");
    return this.createReader().selectAll();
  }

  /** GET {base}/{id}: the entity with details, with its `ETag`; 304 when `If-None-Match` holds. */
  @Get("?")
  get(id: number): Promise<unknown> {
    this.#prepareReads("get");
    return this.createReader().get(id, undefined, { request: this.request, response: this.response });
  }

  /** GET {base}/find/{id}: the entity only, with its `ETag`; 304 when `If-None-Match` holds. */
  @Get("find/?")
  find(id: number): Promise<unknown> {
    this.#prepareReads("find");
    return this.createReader().find(id, undefined, { request: this.request, response: this.response });
  }

  /** @internal `get`'s answer where it is ready at once (`answerNow`). */
  getNow(id: number): unknown {
    return this.#oneNow("get", id);
  }

  /** @internal `find`'s answer where it is ready at once (`answerNow`). */
  findNow(id: number): unknown {
    return this.#oneNow("find", id);
  }

  /** The answer of the route `get` or `find` without a promise where none is needed; a reader that overrides it is called. */
  #oneNow(route: "get" | "find", id: number): unknown {
    this.#prepareReads(route);
    const reader = this.createReader();
    const exchange = { request: this.request, response: this.response };
    if (reader[route] !== HttpEntityReader.prototype[route]) return reader[route](id, undefined, exchange);
    return reader.oneNow(id, route === "get" ? JsonSerializerConfig.withDetails : JsonSerializerConfig.entityOnly, exchange);
  }

  /** GET {base}/metadata: the entity's metadata. */
  @Get("metadata")
  metadata(): unknown {
    return this.createReader().metadata();
  }

  /** How this controller's change stream is paced and bounded (heartbeats, unread bytes before a cut). */
  protected get changeStreamSettings(): ChangeStreamSettings {
    return defaultChangeStreamSettings;
  }

  /**
   * GET {base}/changes: the entity's committed changes as Server-Sent Events (`text/event-stream`), for an entity
   * with `@ChangeFeed` (404 otherwise): each event's `id:` is its position, its `data:` the change record. Resumes
   * after `Last-Event-ID` (or `?lastEventId=`; 410 when that part was purged); `?where=` filters as a select's
   * where; only the caller's tenant's changes. Guarded by the areas of the read routes.
   */
  @Get("changes", { areasOf: ["selectAll", "get", "find", "select"] })
  changes(): Promise<void> {
    const mapping = EntityMapping.of(this.entityClass);
    if (mapping.changeFeed === undefined) throw new HttpError(HttpStatus.notFound, CrudMessages.noChangeFeed(mapping.name));
    const context = this.httpContext;
    // A governed entity's changes are those of the rows its policy grants the caller for `changes`.
    const policy = requestPolicy(context, mapping);
    if (policy !== undefined) requireGrant(policy, "changes");
    const conditions = changeWhereOf(this.request, mapping, changeFilterParameters, policy);
    return answerChangeStream(this.response, {
      database: context.database,
      entities: [{ mapping, conditions, policy }],
      tenant: sessionTenant(context, mapping),
      lastEventId: lastEventIdOf(this.request),
      settings: this.changeStreamSettings,
      headOnly: this.request.method === "HEAD",
    });
  }

  /**
   * POST {base}/select: the rows the filter body selects, `{count, data, nextCursor?}` (keyset pages: see
   * docs/crud.md). A request whose `Accept` prefers `application/x-ndjson` or `text/csv` gets every row the body
   * selects streamed instead (`HttpEntityReader.stream`): the promise then resolves with an empty page that is
   * not sent, the answer being the response's stream.
   */
  @Post("select")
  select(): Promise<HttpSelectPage> {
    this.#prepareReads("select");
    const format = recordFormatOf(this.request);
    if (format === undefined) return this.createReader().select(this.request.jsonContent);
    return this.createReader()
      .stream(this.request.jsonContent, format, this.response)
      .then(() => streamedPage);
  }

  /**
   * POST {base}/aggregate: the groups an aggregate body asks for, `{data, nextCursor?}` (docs/crud.md
   * "Aggregates"). Guarded by the areas of select, unless an override gives it its own. A request whose `Accept`
   * prefers `application/x-ndjson` or `text/csv` gets every group streamed instead
   * (`HttpEntityReader.streamAggregate`); the promise then resolves with an empty page that is not sent.
   */
  @Post("aggregate", { areasOf: ["select"] })
  aggregate(): Promise<HttpAggregatePage> {
    const format = recordFormatOf(this.request);
    if (format === undefined) return this.createReader().aggregate(this.request.jsonContent);
    return this.createReader()
      .streamAggregate(this.request.jsonContent, format, this.response)
      .then(() => streamedPage);
  }
}

/**
 * A controller that serves one entity class with the conventional routes (docs/crud.md), delegating to
 * `HttpEntityReader` and `HttpEntityWriter`. Subclass it once per entity (a class is registered once), name the
 * entity in `entityClass`, say where the request's `HttpContext` is in `httpContext`, and register it
 * with its own base URI. Override a route method to add `@Area`s or change its behaviour; override
 * `createReader` / `createWriter` to attach events.
 *
 * | route | method |
 * |---|---|
 * | GET {base} | selectAll |
 * | GET {base}/? | get |
 * | GET {base}/find/? | find |
 * | GET {base}/metadata | metadata |
 * | GET {base}/createnew | createNew |
 * | POST {base}/select | select |
 * | POST {base}/aggregate | aggregate |
 * | POST {base} | insert |
 * | POST {base}/bulk | bulk |
 * | PUT {base} | update |
 * | PATCH {base}/? | patch |
 * | DELETE {base}/?/? | delete |
 * | DELETE {base}/? | delete (with If-Match) |
 *
 * PUT, PATCH and DELETE accept `If-Match` in place of the version (412 when it does not match the stored
 * entity); `requireIfMatch` makes it compulsory (428 without it). On a database with read replicas every write
 * route answers `X-Consistency-Token`, and the read routes honour one sent back.
 */
export abstract class HttpEntityController<C, T extends object> extends HttpEntityReadController<C, T> {
  /** Called by the server, as `HttpController`'s (written out for the reason `HttpEntityReadController` gives). */
  constructor(context: C, request: HttpRequest, response: HttpResponse) {
    super(context, request, response);
  }

  /** The OpenAPI description of the read and write routes (`HttpDescribedController`), from the entity's mapping (and its policy, for a role). */
  static override openApiDescription(
    controller: Function,
    schemas: Record<string, JsonSchema> = {},
    role?: HttpUser,
  ): HttpRouteDescriptions {
    return entityRouteDescriptions(servedEntityOf(controller), true, schemas, role);
  }

  /** The writer used by the write routes; override to attach writer events. */
  protected createWriter(): HttpEntityWriter<T> {
    return new HttpEntityWriter(this.entityClass, this.httpContext);
  }

  /**
   * Whether PUT, PATCH and DELETE of a versioned entity need `If-Match` (428 without it). False: the
   * version in the body or address is enough. Override to opt in.
   */
  protected get requireIfMatch(): boolean {
    return false;
  }

  /** The writer of a write route, with the request's `If-Match` and the `requireIfMatch` rule. */
  #conditionalWriter(): HttpEntityWriter<T> {
    const writer = this.createWriter();
    writer.ifMatch = this.request.header("if-match");
    writer.requireIfMatch = this.requireIfMatch;
    writer.response = this.response;
    return writer;
  }

  /** GET {base}/createnew: a new entity with its id, not inserted. */
  @Get("createnew")
  createNew(): Promise<unknown> {
    return this.createWriter().createNew();
  }

  /** A write's answer, with the session's consistency token on a database with read replicas. */
  #written<R>(answer: Promise<R>): Promise<R> {
    const context = this.httpContext;
    return context.database.readRouting === undefined ? answer : withConsistencyToken(answer, context, this.response);
  }

  /** POST {base}: inserts the entity of the body and answers it; once per `Idempotency-Key` when one is sent. */
  @Post()
  insert(): Promise<unknown> {
    const writer = this.createWriter();
    const key = HttpIdempotencyKey.of(this.request);
    if (key === undefined) return this.#written(writer.insert(this.request.jsonContent));
    return this.#written(writer.once(key, () => writer.insert(this.request.jsonContent)));
  }

  /**
   * POST {base}/bulk: inserts, updates and deletes the items of the body in one transaction
   * (`HttpEntityWriter.bulk`); once per `Idempotency-Key` when one is sent. A body sent as
   * `application/x-ndjson` is an import instead, one insert a line, read as it arrives
   * (`HttpEntityWriter.import`): its answer `{"imported": <rows>}` is written to the response, and the promise
   * resolves with an empty bulk result that is not sent.
   */
  @Post("bulk", { areasOf: ["insert", "update", "delete"], streamedBody: [ndjsonMediaType] })
  bulk(): Promise<HttpEntityBulkResult> {
    if (isNdjson(this.request.contentType)) return this.#import();
    const writer = this.createWriter();
    const key = HttpIdempotencyKey.of(this.request);
    if (key === undefined) return this.#written(writer.bulk(this.request.jsonContent));
    return this.#written(writer.once(key, () => writer.bulk(this.request.jsonContent)));
  }

  /** The NDJSON import of `bulk`: the answer written to the response, once per `Idempotency-Key` when one is sent. */
  async #import(): Promise<HttpEntityBulkResult> {
    const writer = this.createWriter();
    const key = HttpIdempotencyKey.of(this.request);
    const body = new HashedBody(this.request.bodyStream ?? [this.request.body]);
    const lines = ndjsonLines(body, writer.maxImportLineBytes);
    const result = key === undefined ? await writer.import(lines) : await writer.onceStreamed(key, body, () => writer.import(lines));
    this.response.contentType = HttpDefaults.jsonContentType;
    this.response.content = JSON.stringify(result);
    return importedBulk;
  }

  /** PUT {base}: updates the entity of the body and answers it, reloaded. */
  @Put()
  update(): Promise<unknown> {
    return this.#written(this.#conditionalWriter().update(this.request.jsonContent));
  }

  /**
   * PATCH {base}/{id}: a JSON Merge Patch (RFC 7396) of the entity, which must carry its version; answers
   * the entity reloaded. The id of the address wins: a different id in the body answers 400.
   */
  @Patch("?", { areasOf: ["update"] })
  patch(id: number): Promise<unknown> {
    const body = this.request.jsonContent;
    return this.#written(this.#conditionalWriter().patch(isMergeObject(body) ? withAddressId(this.entityClass, body, id) : body));
  }

  /**
   * DELETE {base}/{id}/{version}, and DELETE {base}/{id} with `If-Match` (428 without it): deletes the entity.
   * An `If-Match` must name the address's version. One method serves both routes, so the `@Area`s of an
   * override guard both.
   */
  @Delete("?/?")
  @Delete("?")
  delete(id: number, version?: number): Promise<HttpEntityDeleted> {
    return this.#written(this.#conditionalWriter().delete(id, version));
  }
}

/** A patch body with the id of the address; a different id in the body is a 400, as the address names the entity. */
function withAddressId<T extends object>(entityClass: EntityClass<T>, body: Record<string, unknown>, id: number): Record<string, unknown> {
  const property = jsonPropertyName(EntityMapping.of(entityClass).primaryKey);
  const sent = body[property];
  if (sent !== undefined && sent !== null && sent !== id) throw new InvalidInputError(CrudMessages.patchIdMismatch(property, id));
  return { ...body, [property]: id };
}

// The server calls these in place of `get` and `find` while a controller keeps them as written here (`answerNow`).
Object.assign(HttpEntityReadController.prototype.get, { [answerNow]: HttpEntityReadController.prototype.getNow });
Object.assign(HttpEntityReadController.prototype.find, { [answerNow]: HttpEntityReadController.prototype.findNow });
