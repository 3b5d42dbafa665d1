import { ChangeHub, type ChangeSelection } from "../../changes/change-hub.js";
import { changeMeets } from "../../changes/change-filter.js";
import { changeRecordJson, type StoredChange } from "../../changes/change-record.js";
import type { Database } from "../../engines/database.js";
import { InvalidInputError } from "../../errors.js";
import type { Condition } from "../../filter/condition.js";
import { decodeColumnJson } from "../../json/column-json.js";
import type { EntityMapping } from "../../mapping/entity-mapping.js";
import { HttpError } from "../exchange/http-errors.js";
import { HttpStatus } from "../exchange/http-messages.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse, HttpStreamSink } from "../exchange/http-response.js";
import { CrudMessages } from "./crud-messages.js";
import { filterColumnsFor } from "./filter-columns.js";
import { changeRecordFor } from "../../changes/change-policy.js";
import type { CallerPolicy } from "../../policy/caller-policy.js";
import { parseFilterBody } from "./http-filter-body.js";
import { HttpFilterParameters } from "./http-filter-parameters.js";

/** How a change stream is paced and bounded (`HttpEntityReadController.changeStreamSettings`). */
export interface ChangeStreamSettings {
  /** Milliseconds between two heartbeats (comments that keep proxies from closing an idle stream); default 15,000. */
  readonly heartbeatMs: number;
  /**
   * The bytes a client may leave unread before the stream is cut (it reconnects with `Last-Event-ID` and
   * resumes); default 1 MiB. The server never holds more than about this much for one slow client.
   */
  readonly maxPendingBytes: number;
  /** The reconnection delay the stream asks `EventSource` for (`retry:`), in milliseconds; default 1,000. */
  readonly retryMs: number;
}

/** The defaults of `ChangeStreamSettings`. */
export const defaultChangeStreamSettings: ChangeStreamSettings = Object.freeze({
  heartbeatMs: 15_000,
  maxPendingBytes: 1_048_576,
  retryMs: 1_000,
});

/** One entity a stream serves, with the `where` conditions its client sent for it. */
export interface ChangeStreamEntity {
  /** The entity's mapping. */
  readonly mapping: EntityMapping;
  /** The conditions of the client's `where` (empty: every change). */
  readonly conditions: readonly Condition[];
  /** The entity's `@Policy` for the client: only changes of rows it may read, without the members it may not. */
  readonly policy?: CallerPolicy;
}

/** What a change stream sends. */
export interface ChangeStreamRequest {
  /** The database whose change log is read. */
  readonly database: Database;
  /** The entities streamed. */
  readonly entities: readonly ChangeStreamEntity[];
  /** Only changes without a tenant or of this one; undefined: every tenant's (an unscoped caller). */
  readonly tenant: string | undefined;
  /** Where the client resumes (its `Last-Event-ID`), or undefined to start with the next change. */
  readonly lastEventId: number | undefined;
  /** The pacing and bounds. */
  readonly settings: ChangeStreamSettings;
}

const eventIdPattern = /^(0|[1-9][0-9]{0,14})$/;

/** The position the client resumes after: `Last-Event-ID`, else `?lastEventId=`; 400 when malformed. */
export function lastEventIdOf(request: HttpRequest): number | undefined {
  const text = request.header("last-event-id") ?? request.param("lastEventId");
  if (text === undefined || text === "") return undefined;
  if (!eventIdPattern.test(text)) throw new InvalidInputError(CrudMessages.badLastEventId);
  return Number(text);
}

/**
 * The conditions of the `where` query parameter (a JSON array, with the rules of a select body's `where`, on
 * the entity's filterable columns, those a `policy` hides from the caller left out); none without one; 400 when malformed.
 */
export function changeWhereOf(
  request: HttpRequest,
  mapping: EntityMapping,
  parameters: HttpFilterParameters,
  policy?: CallerPolicy,
): Condition[] {
  const text = request.param("where");
  if (text === undefined || text === "") return [];
  let where: unknown;
  try {
    where = JSON.parse(text);
  } catch {
    throw new InvalidInputError(CrudMessages.changeWhereNotJson);
  }
  if (!Array.isArray(where)) throw new InvalidInputError(CrudMessages.whereNotArray);
  return parseFilterBody({ where }, filterColumnsFor(mapping, policy), decodeColumnJson, parameters).conditions;
}

/** The filter limits of a change stream's `where`. */
export const changeFilterParameters = HttpFilterParameters.defaults;

/**
 * Answers a change stream: checks the client's `Last-Event-ID` against the purged horizon (410 when records it
 * has not seen were purged), then streams every change the request selects as Server-Sent Events, each with its
 * position as `id:` and its change record as `data:`, with heartbeats, until the client goes, the server stops,
 * or the client leaves more than `maxPendingBytes` unread (then the stream is cut: the client resumes).
 */
export async function answerChangeStream(response: HttpResponse, request: ChangeStreamRequest): Promise<void> {
  const hub = ChangeHub.of(request.database);
  let unsubscribe: (() => void) | undefined;
  let wake: (() => void) | undefined;
  const woken = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  unsubscribe = await hub.subscribe(woken);
  try {
    const last = request.lastEventId;
    if (last !== undefined && last !== hub.head) {
      // Behind the hub: were the changes after it purged? Ahead of it: is it in the log at all (the hub may lag)?
      const bounds = await hub.log.bounds();
      if (last > bounds.head) throw new HttpError(HttpStatus.gone, CrudMessages.changeIdUnknown);
      if (last < hub.head && (bounds.oldest === undefined || last + 1 < bounds.oldest))
        throw new HttpError(HttpStatus.gone, CrudMessages.changesPurged);
    }
  } catch (error) {
    unsubscribe();
    throw error;
  }
  const start = request.lastEventId ?? hub.head;
  const kept = unsubscribe;
  unsubscribe = undefined;
  response.contentType = "text/event-stream; charset=utf-8";
  response.setHeader("X-Accel-Buffering", "no");
  response.stream(async (sink) => {
    try {
      await streamChanges(sink, hub, request, start, () => new Promise<void>((resolve) => (wake = resolve)));
    } finally {
      kept();
      woken();
    }
  });
}

async function streamChanges(
  sink: HttpStreamSink,
  hub: ChangeHub,
  request: ChangeStreamRequest,
  start: number,
  nextWake: () => Promise<void>,
): Promise<void> {
  const settings = request.settings;
  const byEntity = new Map(request.entities.map((entity) => [entity.mapping.name, entity]));
  const selection: ChangeSelection = { entities: new Set(byEntity.keys()), tenant: request.tenant };
  const signal = sink.signal;
  const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  sink.write(`retry: ${settings.retryMs}\n: changes\n\n`);
  let cursor = start;
  while (!signal.aborted) {
    // Waiting starts before reading, so that a wake-up between the read and the wait is never lost.
    const woken = nextWake();
    const head = hub.head;
    const changes = await hub.after(cursor, selection, 500);
    for (const change of changes) {
      cursor = change.position;
      const entity = byEntity.get(change.entity);
      if (entity === undefined || !changeMeets(change, entity.conditions)) continue;
      if (entity.policy === undefined) {
        sink.write(eventOf(change));
        continue;
      }
      const record = changeRecordFor(change, entity.policy);
      if (record !== undefined) sink.write(`id: ${change.position}\ndata: ${record}\n\n`);
    }
    if (sink.pendingBytes > settings.maxPendingBytes) return;
    if (changes.length === 500) continue;
    // Every record up to the head was looked at: the next read starts there, not at the last one this stream took.
    if (head > cursor) cursor = head;
    let timer: NodeJS.Timeout | undefined;
    const heartbeat = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), settings.heartbeatMs);
    });
    const beat = await Promise.race([woken.then(() => false), heartbeat, aborted.then(() => false)]);
    clearTimeout(timer);
    if (beat) {
      sink.write(": heartbeat\n\n");
      if (sink.pendingBytes > settings.maxPendingBytes) return;
    }
  }
}

/** The event text of each change, made once however many streams send it (a hub's records are shared). */
const events = new WeakMap<StoredChange, string>();

function eventOf(change: StoredChange): string {
  let text = events.get(change);
  if (text === undefined) {
    text = `id: ${change.position}\ndata: ${changeRecordJson(change)}\n\n`;
    events.set(change, text);
  }
  return text;
}
