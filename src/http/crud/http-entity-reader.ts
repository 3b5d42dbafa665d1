import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { JsonSerializerConfig } from "../../json/json-serializer-config.js";
import { decodeColumnJson } from "../../json/column-json.js";
import { HttpNotFoundError } from "../exchange/http-errors.js";
import { filterColumnsFor } from "./filter-columns.js";
import { aggregateReadable, requestPolicy } from "./policy-body.js";
import type { FilterColumns } from "./http-filter-body.js";
import type { ColumnMapping } from "../../mapping/entity-mapping.js";
import { effectiveLimit, parseSelectBody } from "./http-filter-body.js";
import { encodeCursor } from "./keyset-cursor.js";
import type { Condition, OrderByItem } from "../../filter/condition.js";
import { HttpFilterParameters } from "./http-filter-parameters.js";
import type { HttpContext } from "./http-context.js";
import { Filter } from "../../filter/filter.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { HttpStatus } from "../exchange/http-messages.js";
import { entityTagOf, ifNoneMatchHolds, parseEntityTags } from "./entity-tag.js";
import type { CountMode } from "../../session/session-counts.js";
import type { GetOptions } from "../../session/session-options.js";
import { InvalidInputError } from "../../errors.js";
import { aggregateOrder } from "../../filter/aggregate-query.js";
import type { JsonValue } from "../../json/json-value.js";
import { parseAggregateBody } from "./aggregate-body.js";
import { encodeAggregateCursor } from "./aggregate-cursor.js";
import { encodeAggregateRow } from "./aggregate-values.js";
import { CrudMessages } from "./crud-messages.js";
import type { EntityCursor } from "../../session/entity-cursor.js";
import { answerRecordStream, type HttpRecord, type HttpRecordSource } from "./record-stream.js";
import { csvColumnsOf, type HttpRecordFormat } from "./stream-format.js";

/**
 * The exchange of a conditional read: the request whose `If-None-Match` is compared and the response that
 * gets the `ETag` (and, on a match, status 304 with no content).
 */
export interface HttpConditionalExchange {
  /** The request. */
  readonly request: HttpRequest;
  /** The response. */
  readonly response: HttpResponse;
}

/** What SelectAll and an offset page of Select answer: every row the filter matches counted, one page of them as JSON. */
export interface HttpEntityPage {
  /** The number of rows the filter matches. */
  readonly count: number;
  /** The page, as JSON. */
  readonly data: unknown[];
  /** The cursor of the next page, when more rows follow (Select without `start`). */
  readonly nextCursor?: string;
}

/**
 * What Select answers: `HttpEntityPage`, except that a keyset page (one read with `after`) leaves `count`
 * out unless the body asks for it, and that `count: false` leaves it out of any page.
 */
export interface HttpSelectPage {
  /** The number of rows the filter matches (without the cursor's condition), where answered. */
  readonly count?: number;
  /**
   * What `count` is when it is not exact: `estimated` (the engine's statistics, for `count: "estimated"`) or
   * `atLeast` (a count stopped at the ceiling of `count: {"atMost": n}`); absent for an exact count.
   */
  readonly countKind?: "estimated" | "atLeast";
  /** The page, as JSON. */
  readonly data: unknown[];
  /** The cursor of the next page, when more rows follow and the body had no `start`; absent on the last page. */
  readonly nextCursor?: string;
}

/** What `POST {base}/aggregate` answers: one page of groups, and the cursor of the next page when more follow. */
export interface HttpAggregatePage {
  /** The groups of the page: each group's and metric's value by its name. */
  readonly data: Record<string, JsonValue>[];
  /** The cursor of the next page (send it back as `after`); absent on the last page. */
  readonly nextCursor?: string;
}

/** The options of the reads by id, one object each rather than one per request. */
const withDeleted: GetOptions = Object.freeze({ includeDeleted: true });
const withoutDeleted: GetOptions = Object.freeze({ includeDeleted: false });

/**
 * The standard read logic for one entity class over HTTP. The context is
 * borrowed, not owned.
 */
export class HttpEntityReader<T extends object> {
  /** The entity class. */
  readonly entityClass: EntityClass<T>;
  /** The request's session. */
  readonly context: HttpContext;
  /** The filter limits in force. */
  readonly filterParameters: HttpFilterParameters;
  /** Called with the filter (built from the body, or empty for SelectAll) before the count and the select. */
  onAddEntityFilter: ((filter: Filter) => void | Promise<void>) | undefined = undefined;
  /** Called on each entity before it is serialized. */
  onBeforeSerializeEntity: ((entity: T) => void | Promise<void>) | undefined = undefined;
  /** The entities a streamed answer (`stream`) reads and sends at a time (default 500). */
  streamBatchSize = 500;
  readonly #mapping: EntityMapping<T>;

  /** @param entityClass the entity. @param context the request's session. @param filterParameters the filter limits. */
  constructor(entityClass: EntityClass<T>, context: HttpContext, filterParameters: HttpFilterParameters = HttpFilterParameters.defaults) {
    this.entityClass = entityClass;
    this.context = context;
    this.filterParameters = filterParameters;
    this.#mapping = EntityMapping.of(entityClass);
  }

  /**
   * The entity with this id, with details; `HttpNotFoundError` (404) when absent. With an `exchange`, the
   * answer gets the entity's `ETag` (when it has a version column), and an `If-None-Match` that holds turns
   * it into a 304 with no content (the promise then answers undefined); a malformed one is a 400.
   */
  get(id: number, config: JsonSerializerConfig = JsonSerializerConfig.withDetails, exchange?: HttpConditionalExchange): Promise<unknown> {
    return this.#one(id, config, exchange);
  }

  /** The entity with this id, entity only; `HttpNotFoundError` (404) when absent. `exchange` as in `get`. */
  find(id: number, config: JsonSerializerConfig = JsonSerializerConfig.entityOnly, exchange?: HttpConditionalExchange): Promise<unknown> {
    return this.#one(id, config, exchange);
  }

  /** Every row (up to the page ceiling), with relations: `{count, data}`. */
  async selectAll(config: JsonSerializerConfig = JsonSerializerConfig.withRelations): Promise<HttpEntityPage> {
    const filter = new Filter();
    filter.includeDeleted = this.filterParameters.includeDeleted;
    filter.limit = effectiveLimit(undefined, this.filterParameters);
    return this.#page(filter, config);
  }

  /**
   * The rows a filter body selects (docs/crud.md), with relations: `{count, data, nextCursor?}`. A
   * page read without `start` answers `nextCursor` when more rows follow (read as one row beyond the page);
   * a body with `after` reads the page after that cursor's row and leaves `count` out unless it sends
   * `count: true`. A bad body or cursor answers 400.
   */
  async select(body: unknown, config: JsonSerializerConfig = JsonSerializerConfig.withRelations): Promise<HttpSelectPage> {
    const columns = filterColumnsFor(this.#mapping, requestPolicy(this.context, this.#mapping));
    const read = parseSelectBody(body, columns, decodeColumnJson, this.filterParameters);
    const filter = read.filter;
    const order = read.keysetOrder;
    const limit = filter.limit;
    // A count that is not exact is read by a statement of its own (the planner's estimate, or a capped count).
    const mode = read.countMode === "exact" ? undefined : read.countMode;
    if (order === undefined || limit === undefined) {
      if (read.count === false || mode !== undefined)
        return this.#keysetPage(filter, config, undefined, undefined, read.count !== false, mode);
      return this.#page(filter, config);
    }
    filter.limit = limit + 1;
    return this.#keysetPage(filter, config, { order, limit }, read.after, read.count ?? !read.hasCursor, mode);
  }

  /**
   * The groups an aggregate body asks for (docs/crud.md "Aggregates"): `{data, nextCursor?}`. The rows measured
   * are those a select of the same `where` reads (soft delete, tenant and `onAddEntityFilter` included); a body
   * that does not fit, and a question with more than `maxGroups` groups, answer 400.
   */
  async aggregate(body: unknown): Promise<HttpAggregatePage> {
    const dialect = this.context.database.dialect;
    const query = parseAggregateBody(body, this.#mapping, decodeColumnJson, this.filterParameters, {
      sumsExactly: (type) => dialect.sumsExactly(type),
      ...this.#aggregateAudience(),
    });
    if (this.onAddEntityFilter !== undefined) await this.onAddEntityFilter(query.filter);
    const result = await this.context.selectAggregate(this.entityClass, query);
    const max = this.filterParameters.effectiveMaxGroups;
    if (max !== undefined && result.groupCount > max) throw new InvalidInputError(CrudMessages.tooManyGroups(result.groupCount, max));
    const data = result.rows.map((row) => encodeAggregateRow(query, row));
    if (result.next === undefined) return { data };
    return { data, nextCursor: encodeAggregateCursor(query, aggregateOrder(query), result.next) };
  }

  /**
   * Answers the rows a filter body selects as a stream (docs/crud.md "Streamed answers"): NDJSON, one entity a
   * line as `select` writes its data items (`config`, default withRelations), or CSV, a header row of the
   * entity's JSON members (scalars and `<name>Id`, as `entityOnly` writes them) and a row per entity. The body's
   * rules are select's, with no page ceiling: `limit` is the caller's own (absent: every row); `start` and
   * `after` start where they say; `count: true` is a 400. `onAddEntityFilter` and `onBeforeSerializeEntity` run
   * as for select. The rows are read from a cursor in batches of `batchSize`, each serialized and sent when the
   * client has taken the one before. A bad body, or a failure before the first row, is answered as usual.
   */
  async stream(
    body: unknown,
    format: HttpRecordFormat,
    response: HttpResponse,
    config: JsonSerializerConfig = format === "csv" ? JsonSerializerConfig.entityOnly : JsonSerializerConfig.withRelations,
  ): Promise<void> {
    const policy = requestPolicy(this.context, this.#mapping);
    const read = parseSelectBody(body, filterColumnsFor(this.#mapping, policy), decodeColumnJson, this.#streamParameters());
    if (read.count === true) throw new InvalidInputError(CrudMessages.streamedCount);
    if (this.onAddEntityFilter !== undefined) await this.onAddEntityFilter(read.filter);
    const cursor = await this.context.openCursor(this.entityClass, read.filter, { batchSize: this.streamBatchSize });
    // A CSV's header names only the members the caller reads (a member it reads on some rows is an empty cell on the others).
    const header = format === "csv" ? csvColumnsOf(this.#mapping, policy?.hiddenList) : [];
    await answerRecordStream(response, format, this.#recordsOf(cursor, config, header));
  }

  /** The records of a cursor's entities, serialized a batch at a time; the session forgets each batch once it is sent. */
  #recordsOf(cursor: EntityCursor<T>, config: JsonSerializerConfig, columns: readonly string[]): HttpRecordSource {
    return {
      columns,
      next: async (): Promise<readonly HttpRecord[]> => {
        const entities = await cursor.read();
        if (this.onBeforeSerializeEntity !== undefined) for (const entity of entities) await this.onBeforeSerializeEntity(entity);
        const records = await this.context.toJson(entities, config);
        // References the batch loaded (a company per employee) are not kept for the next one.
        this.context.clear();
        return records;
      },
      close: () => cursor.close(),
    };
  }

  /**
   * Answers the groups an aggregate body asks for as a stream (docs/crud.md "Streamed answers"): NDJSON, one
   * group a line as `aggregate` writes its data items, or CSV, a header row of the groups' and metrics' names and a
   * row per group. The body's rules are `aggregate`'s, with no page ceiling: `limit` is the caller's own (absent:
   * every group); more groups than `maxGroups` is the same 400, answered before anything is streamed. The groups
   * are read from a cursor, `streamBatchSize` at a time.
   */
  async streamAggregate(body: unknown, format: HttpRecordFormat, response: HttpResponse): Promise<void> {
    const dialect = this.context.database.dialect;
    const query = parseAggregateBody(body, this.#mapping, decodeColumnJson, this.#streamParameters(), {
      sumsExactly: (type) => dialect.sumsExactly(type),
      ...this.#aggregateAudience(),
    });
    if (this.onAddEntityFilter !== undefined) await this.onAddEntityFilter(query.filter);
    const cursor = await this.context.openAggregateCursor(this.entityClass, query, { batchSize: this.streamBatchSize });
    const max = this.filterParameters.effectiveMaxGroups;
    await answerRecordStream(response, format, {
      columns: [...query.groups.map((group) => group.name), ...query.metrics.map((metric) => metric.name)],
      next: async () => {
        const rows = await cursor.read();
        const groups = cursor.groupCount ?? 0;
        // Read with the first batch, before anything is sent: the 400 of the JSON route.
        if (max !== undefined && groups > max) throw new InvalidInputError(CrudMessages.tooManyGroups(groups, max));
        return rows.map((row) => encodeAggregateRow(query, row));
      },
      close: () => cursor.close(),
    });
  }

  /**
   * What an aggregate body of a governed entity may name for the request's caller: the filter columns it reads on
   * every row, and the columns (of the entity and of the entities it refers to) its policies let it group and
   * measure (`aggregateReadable`); nothing for an entity without a policy.
   */
  #aggregateAudience(): { filterColumns?: FilterColumns; readable?: (column: ColumnMapping) => boolean } {
    const readable = aggregateReadable(this.#mapping, this.context);
    if (readable === undefined) return {};
    return { filterColumns: filterColumnsFor(this.#mapping, requestPolicy(this.context, this.#mapping)), readable };
  }

  /** The filter limits of a streamed answer: the reader's, without a page ceiling. */
  #streamParameters(): HttpFilterParameters {
    const parameters = this.filterParameters;
    return new HttpFilterParameters({
      maxLimit: -1,
      maxWhereConditions: parameters.maxWhereConditions,
      maxOrderByColumns: parameters.maxOrderByColumns,
      maxGroups: parameters.maxGroups,
      includeDeleted: parameters.includeDeleted,
    });
  }

  /** The entity's metadata (`{entity, primaryKey, versionColumn?, properties}`). */
  metadata(): unknown {
    return this.context.metadataToJson(this.entityClass);
  }

  #one(id: number, config: JsonSerializerConfig, exchange: HttpConditionalExchange | undefined): Promise<unknown> {
    try {
      const json = this.oneNow(id, config, exchange);
      return json instanceof Promise ? json : Promise.resolve(json);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * @internal `get` and `find` as the entity controllers' routes call them: the answer itself where the read and its
   * JSON need no wait (on the embedded engine, an entity whose JSON needs no further read), else its promise; a
   * missing entity throws. The server then writes the answer without a promise or a reaction of its own.
   */
  oneNow(id: number, config: JsonSerializerConfig, exchange: HttpConditionalExchange | undefined): unknown {
    // The context's fast path reads through an overriding tryGet itself (see Context.tryGetNow).
    const found = this.context.tryGetNow(this.entityClass, id, this.filterParameters.includeDeleted ? withDeleted : withoutDeleted);
    if (found instanceof Promise) return found.then((entity) => this.#json(entity, id, config, exchange));
    return this.#json(found, id, config, exchange);
  }

  #json(entity: T | null, id: number, config: JsonSerializerConfig, exchange: HttpConditionalExchange | undefined): unknown {
    if (entity === null) throw new HttpNotFoundError(id);
    const hook = this.onBeforeSerializeEntity;
    if (hook !== undefined) {
      return Promise.resolve(hook.call(this, entity)).then(() => this.#tagged(entity, config, exchange, this.#toJson(entity, config)));
    }
    return this.#tagged(entity, config, exchange, this.#toJson(entity, config));
  }

  /** The answer with its entity tag: the JSON, or undefined for a 304 (computed once the JSON is, so embedded entities are loaded). */
  #tagged(entity: T, config: JsonSerializerConfig, exchange: HttpConditionalExchange | undefined, json: unknown): unknown {
    if (exchange === undefined) return json;
    if (json instanceof Promise) return json.then((value) => this.#conditional(entity, config, exchange, value));
    return this.#conditional(entity, config, exchange, json);
  }

  #conditional(entity: T, config: JsonSerializerConfig, exchange: HttpConditionalExchange, json: unknown): unknown {
    const tag = entityTagOf(entity, config);
    const ifNoneMatch = exchange.request.header("if-none-match");
    if (tag === undefined) {
      // No version column, no tag: nothing can match, but a malformed header is still a 400.
      if (ifNoneMatch !== undefined) parseEntityTags("If-None-Match", ifNoneMatch);
      return json;
    }
    const response = exchange.response;
    response.setHeader("ETag", tag);
    if (ifNoneMatch === undefined || !ifNoneMatchHolds(ifNoneMatch, tag)) return json;
    response.statusCode = HttpStatus.notModified;
    response.content = "";
    return undefined;
  }

  /** The entity's JSON; the context's fast path writes through an overriding toJson itself (see JsonContext.toJsonNow). */
  #toJson(entity: T, config: JsonSerializerConfig): unknown {
    return this.context.toJsonNow(entity, config);
  }

  /**
   * A page with `nextCursor`: `paging.limit` rows of a filter that reads one more (whose presence says that
   * more rows follow). The count, when wanted, leaves the cursor's condition out.
   */
  async #keysetPage(
    filter: Filter,
    config: JsonSerializerConfig,
    paging: { readonly order: readonly OrderByItem[]; readonly limit: number } | undefined,
    after: Condition | undefined,
    counted: boolean,
    mode?: CountMode,
  ): Promise<HttpSelectPage> {
    if (this.onAddEntityFilter !== undefined) await this.onAddEntityFilter(filter);
    let count: number | undefined;
    let countKind: "estimated" | "atLeast" | undefined;
    let entities: T[];
    if (counted && after === undefined && mode === undefined) {
      ({ count, entities } = await this.context.selectPage(this.entityClass, filter));
    } else {
      entities = await this.context.select(this.entityClass, filter);
      if (counted) {
        const whole = new Filter();
        whole.includeDeleted = filter.includeDeleted;
        for (const condition of filter.conditions) if (condition !== after) whole.add(condition);
        if (mode === undefined) count = await this.context.selectCount(this.entityClass, whole);
        else {
          const counting = await this.context.countRows(this.entityClass, whole, mode);
          count = counting.count;
          if (counting.kind !== "exact") countKind = counting.kind;
        }
      }
    }
    let nextCursor: string | undefined;
    if (paging !== undefined && entities.length > paging.limit) {
      entities.length = paging.limit;
      nextCursor = encodeCursor(paging.order, entities[paging.limit - 1]);
    }
    if (this.onBeforeSerializeEntity !== undefined) for (const entity of entities) await this.onBeforeSerializeEntity(entity);
    const data = await this.context.toJson(entities, config);
    if (count === undefined) return nextCursor === undefined ? { data } : { data, nextCursor };
    if (countKind !== undefined) return nextCursor === undefined ? { count, countKind, data } : { count, countKind, data, nextCursor };
    return nextCursor === undefined ? { count, data } : { count, data, nextCursor };
  }

  async #page(filter: Filter, config: JsonSerializerConfig): Promise<HttpEntityPage> {
    if (this.onAddEntityFilter !== undefined) await this.onAddEntityFilter(filter);
    const { count, entities } = await this.context.selectPage(this.entityClass, filter);
    if (this.onBeforeSerializeEntity !== undefined) for (const entity of entities) await this.onBeforeSerializeEntity(entity);
    return { count, data: await this.context.toJson(entities, config) };
  }
}
