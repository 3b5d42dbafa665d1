import { ChangeHub, type ChangeReceiver, type ChangeSelection } from "../../changes/change-hub.js";
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
import { HttpStreamPiece } from "../exchange/http-stream-piece.js";
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
  /** A HEAD request: its answer is the stream's head only, and nothing stays subscribed for a body never sent. */
  readonly headOnly?: boolean;
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
  const stream = new ChangeStream(hub, request);
  const detach = await hub.attach(stream);
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
    detach();
    throw error;
  }
  const start = request.lastEventId ?? hub.head;
  response.contentType = "text/event-stream; charset=utf-8";
  response.setHeader("X-Accel-Buffering", "no");
  if (request.headOnly === true) {
    detach();
    response.stream(() => Promise.resolve());
  } else response.stream((sink) => stream.run(sink, start, detach));
}

/** How many records a stream behind the hub's memory reads from the database at a time. */
const catchUpBatch = 500;

/**
 * One client's change stream. It catches up from where the client resumes (from the hub's memory, or reading the
 * database when it is further behind), then takes each batch the hub reads as it arrives and writes, without
 * waiting, the events its client may receive: one pass over the batch, each event encoded and framed once per
 * change (and per view under a policy) for every stream and written as those bytes (`HttpStreamSink.writePiece`),
 * a batch's events in one write to the connection. The stream ends when the client goes, the server stops, or the
 * client leaves more than `maxPendingBytes` unread.
 */
class ChangeStream implements ChangeReceiver {
  readonly #hub: ChangeHub;
  readonly #settings: ChangeStreamSettings;
  readonly #byEntity: ReadonlyMap<string, ChangeStreamEntity>;
  readonly #selection: ChangeSelection;
  readonly #tenant: string | undefined;
  #sink: HttpStreamSink | undefined;
  /** The position of the last record looked at: every record up to it was sent or was not for this client. */
  #cursor = 0;
  /** Whether the stream has caught up and takes the hub's batches as they come. */
  #live = false;
  /** Whether something was written since the last heartbeat tick. */
  #wrote = false;
  #ended = false;
  #end: (() => void) | undefined;
  #fail: ((error: unknown) => void) | undefined;

  constructor(hub: ChangeHub, request: ChangeStreamRequest) {
    this.#hub = hub;
    this.#settings = request.settings;
    this.#byEntity = new Map(request.entities.map((entity) => [entity.mapping.name, entity]));
    this.#selection = { entities: new Set(this.#byEntity.keys()), tenant: request.tenant };
    this.#tenant = request.tenant;
  }

  /** Streams into `sink` from after `start` until the stream ends; `detach` leaves the hub. */
  async run(sink: HttpStreamSink, start: number, detach: () => void): Promise<void> {
    this.#sink = sink;
    this.#cursor = start;
    const ended = new Promise<void>((resolve, reject) => {
      this.#end = resolve;
      this.#fail = reject;
    });
    const stop = (): void => this.#finish();
    sink.signal.addEventListener("abort", stop, { once: true });
    if (sink.signal.aborted) this.#finish();
    heartbeats.join(this, this.#settings.heartbeatMs);
    try {
      sink.write(`retry: ${this.#settings.retryMs}\n: changes\n\n`);
      await this.#catchUp();
      await ended;
    } finally {
      this.#ended = true;
      heartbeats.leave(this);
      sink.signal.removeEventListener("abort", stop);
      detach();
    }
  }

  /** @inheritdoc Writes the batch's events for this client, once the stream has caught up. */
  receive(changes: readonly StoredChange[]): void {
    if (!this.#live || this.#ended) return;
    try {
      this.#cutWhenBehind(this.#send(changes));
    } catch (error) {
      this.#finish(error);
    }
  }

  /** A heartbeat tick: a comment when nothing was written since the last one (proxies then keep the connection). */
  beat(): void {
    if (this.#ended) return;
    if (!this.#wrote) (this.#sink as HttpStreamSink).writePiece(heartbeat);
    this.#wrote = false;
    this.#cutWhenBehind();
  }

  /** Sends what the client missed, from the database while the hub's memory does not reach back to it; then goes live. */
  async #catchUp(): Promise<void> {
    while (!this.#ended) {
      const head = this.#hub.head;
      const kept = this.#hub.buffered(this.#cursor);
      if (kept !== undefined) {
        // From here on every record the hub reads comes to `receive`: nothing between the memory and them is missed.
        this.#live = true;
        const pending = this.#send(kept);
        if (head > this.#cursor) this.#cursor = head;
        this.#cutWhenBehind(pending);
        return;
      }
      const changes = await this.#hub.after(this.#cursor, this.#selection, catchUpBatch);
      if (this.#ended) return;
      const pending = this.#send(changes);
      // Fewer than a batch: every record up to the head was looked at, not only those this client takes.
      if (changes.length < catchUpBatch && head > this.#cursor) this.#cursor = head;
      if (this.#cutWhenBehind(pending)) return;
    }
  }

  /**
   * Writes the events of `changes` that this client takes, and answers the bytes it then leaves unread: for a batch of
   * several, counted while the batch is still held for its one write to the connection (a batch bigger than what
   * the client may leave unread counts whole, as it always did).
   */
  #send(changes: readonly StoredChange[]): number {
    const sink = this.#sink as HttpStreamSink;
    // Several events go out in one write to the connection, not one each.
    const several = changes.length > 1;
    let held = 0;
    if (several) sink.cork();
    try {
      const tenant = this.#tenant;
      for (const change of changes) {
        if (change.position <= this.#cursor) continue;
        this.#cursor = change.position;
        const entity = this.#byEntity.get(change.entity);
        if (entity === undefined) continue;
        if (tenant !== undefined && change.tenant !== null && change.tenant !== tenant) continue;
        if (!changeMeets(change, entity.conditions)) continue;
        const event = entity.policy === undefined ? eventOf(change) : policyEventOf(change, entity.policy);
        if (event === undefined) continue;
        sink.writePiece(event);
        this.#wrote = true;
      }
    } finally {
      if (several) {
        held = sink.pendingBytes;
        sink.uncork();
      }
    }
    return several ? held : sink.pendingBytes;
  }

  /**
   * Ends the stream when its client left more than `maxPendingBytes` unread (`pending`, by default what waits now; it
   * resumes with `Last-Event-ID`); true then.
   */
  #cutWhenBehind(pending = (this.#sink as HttpStreamSink).pendingBytes): boolean {
    if (pending <= this.#settings.maxPendingBytes) return false;
    this.#finish();
    return true;
  }

  /** Ends the stream: the response ends (with `error`: as a failed stream). */
  #finish(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (error === undefined) this.#end?.();
    else this.#fail?.(error);
  }
}

/**
 * The heartbeats of the open streams: one timer per interval for every stream of that interval (not one per
 * stream). Each tick writes a heartbeat to the streams that wrote nothing since the last tick: an idle stream
 * gets one every `heartbeatMs`, a busy one none.
 */
class Heartbeats {
  readonly #byInterval = new Map<number, { readonly streams: Set<ChangeStream>; readonly timer: NodeJS.Timeout }>();
  readonly #intervals = new Map<ChangeStream, number>();

  /** Beats `stream` every `intervalMs` from now on. */
  join(stream: ChangeStream, intervalMs: number): void {
    let beat = this.#byInterval.get(intervalMs);
    if (beat === undefined) {
      const streams = new Set<ChangeStream>();
      const timer = setInterval(() => {
        for (const each of streams) each.beat();
      }, intervalMs);
      timer.unref();
      this.#byInterval.set(intervalMs, (beat = { streams, timer }));
    }
    beat.streams.add(stream);
    this.#intervals.set(stream, intervalMs);
  }

  /** Beats `stream` no more. */
  leave(stream: ChangeStream): void {
    const intervalMs = this.#intervals.get(stream);
    if (intervalMs === undefined) return;
    this.#intervals.delete(stream);
    const beat = this.#byInterval.get(intervalMs);
    if (beat === undefined) return;
    beat.streams.delete(stream);
    if (beat.streams.size === 0) {
      clearInterval(beat.timer);
      this.#byInterval.delete(intervalMs);
    }
  }
}
const heartbeats = new Heartbeats();

/** A heartbeat: a comment, the same piece for every stream. */
const heartbeat = new HttpStreamPiece(": heartbeat\n\n");

/** The event of each change, encoded and framed once however many streams send it (a hub's records are shared). */
const events = new WeakMap<StoredChange, HttpStreamPiece>();

function eventOf(change: StoredChange): HttpStreamPiece {
  let event = events.get(change);
  if (event === undefined) {
    event = new HttpStreamPiece(`id: ${change.position}\ndata: ${changeRecordJson(change)}\n\n`);
    events.set(change, event);
  }
  return event;
}

/** The events of each change under policies, by the text of its record in each view (a view's record is one string). */
const viewEvents = new WeakMap<StoredChange, Map<string, HttpStreamPiece>>();

/**
 * The event of a change for a caller under `policy` (made once per change and view, like its record), or undefined
 * when the caller may not see it.
 */
function policyEventOf(change: StoredChange, policy: CallerPolicy): HttpStreamPiece | undefined {
  const record = changeRecordFor(change, policy);
  if (record === undefined) return undefined;
  let byRecord = viewEvents.get(change);
  if (byRecord === undefined) viewEvents.set(change, (byRecord = new Map()));
  let event = byRecord.get(record);
  if (event === undefined) {
    event = new HttpStreamPiece(`id: ${change.position}\ndata: ${record}\n\n`);
    byRecord.set(record, event);
  }
  return event;
}
