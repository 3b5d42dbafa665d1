import type { Database } from "../engines/database.js";
import { ChangeLog } from "./change-log.js";
import type { StoredChange } from "./change-record.js";
import { onChangesAnnounced } from "./change-signal.js";

/** How a process's readers of one database learn of new change records. */
export interface ChangeHubOptions {
  /**
   * How often, in milliseconds, the hub looks for records committed by other processes (default 100). Records
   * committed in this process wake it at once; with a wake-up source (PostgreSQL's notifications, or one given
   * to `addWakeUpSource`) it polls only every 2 seconds, as a safety net.
   */
  readonly pollIntervalMs?: number;
  /**
   * How many of the newest records the hub keeps in memory for its readers (default 10,000; it drops the oldest
   * an eighth of that at a time).
   */
  readonly bufferSize?: number;
}

/** Which records a reader of the hub wants. */
export interface ChangeSelection {
  /** Only records of these entities (class names); undefined: every entity. */
  readonly entities?: ReadonlySet<string>;
  /** Only records without a tenant or of this one; undefined: every tenant's. */
  readonly tenant?: string;
}

/**
 * A reader the hub hands each batch of records to as soon as it has read them (`ChangeHub.attach`): one read of the
 * database serves every reader of the process, however many.
 */
export interface ChangeReceiver {
  /**
   * Takes the records the hub has just read, every one whatever the reader wants, in position order, at once (it
   * must not wait, and should not throw: the hub goes on to the next reader).
   */
  receive(changes: readonly StoredChange[]): void;
}

/**
 * Something outside the process that says new records committed (PostgreSQL's LISTEN, a Redis channel):
 * `start` calls `wake` on each notification and answers how to stop.
 */
export type ChangeWakeUpSource = (wake: () => void) => Promise<() => Promise<void> | void>;

const hubs = new WeakMap<Database, ChangeHub>();
/** How often a hub with a wake-up source polls all the same, in milliseconds. */
const safetyPollMs = 2_000;
/** How many records one read of the log takes at most. */
const readLimit = 1_000;

/**
 * The readers of one database's change records in this process share one hub: it reads each new record once
 * (woken by commits of this process, by a wake-up source, or by polling), keeps the newest in memory, hands each
 * batch read to its receivers at once and wakes its listeners, who take the records in position order; a reader
 * behind what the memory holds reads from the database. The hub runs while it has readers.
 */
export class ChangeHub {
  /** The change log read. */
  readonly log: ChangeLog;
  readonly #pollIntervalMs: number;
  readonly #bufferSize: number;
  /** How many records past its size the memory may hold before the oldest are dropped (one copy per so many, not per read). */
  readonly #bufferSlack: number;
  readonly #listeners = new Set<() => void>();
  readonly #receivers = new Set<ChangeReceiver>();
  readonly #sources: ChangeWakeUpSource[] = [];
  #buffer: StoredChange[] = [];
  /** The last position read from the database (every record up to it is in the buffer or older than it). */
  #head = -1;
  #started: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stops: (() => Promise<void> | void)[] = [];
  #reading: Promise<void> | undefined;
  #again = false;
  /** Raised at each stop: a read begun before it brings nothing into a hub that started again since. */
  #generation = 0;
  /** Whether the hub runs and knows its head (from the end of its start's first read to its stop). */
  #ready = false;

  private constructor(database: Database, options: ChangeHubOptions) {
    this.log = new ChangeLog(database);
    this.#pollIntervalMs = options.pollIntervalMs ?? 100;
    this.#bufferSize = options.bufferSize ?? 10_000;
    this.#bufferSlack = Math.max(1, Math.floor(this.#bufferSize / 8));
  }

  /** The hub of `database` in this process (made on first use, with `options` then). */
  static of(database: Database, options: ChangeHubOptions = {}): ChangeHub {
    let hub = hubs.get(database);
    if (hub === undefined) hubs.set(database, (hub = new ChangeHub(database, options)));
    return hub;
  }

  /** Adds a wake-up source, started with the hub (at once when it runs). */
  addWakeUpSource(source: ChangeWakeUpSource): void {
    this.#sources.push(source);
    if (this.#started !== undefined) void this.#startSource(source);
  }

  /** The last position the hub has read (after `subscribe` resolved). */
  get head(): number {
    return this.#head;
  }

  /**
   * Calls `listener` whenever new records were read; answers the unsubscribe. Resolves once the hub knows the
   * head of the log.
   */
  subscribe(listener: () => void): Promise<() => void> {
    return this.#join(this.#listeners, listener);
  }

  /**
   * Hands `receiver` every batch of records the hub reads from now on, as soon as it has read it; answers the
   * detach. Resolves once the hub knows the head of the log: a receiver takes what came before from `buffered`
   * or `after`.
   */
  attach(receiver: ChangeReceiver): Promise<() => void> {
    return this.#join(this.#receivers, receiver);
  }

  async #join<T>(members: Set<T>, member: T): Promise<() => void> {
    members.add(member);
    try {
      // A start that failed (the database away, no change table yet) is undone, so that the next reader starts it again.
      await (this.#started ??= this.#start().catch((error: unknown) => {
        this.#stop();
        throw error;
      }));
    } catch (error) {
      members.delete(member);
      throw error;
    }
    return () => {
      members.delete(member);
      if (this.#listeners.size === 0 && this.#receivers.size === 0) this.#stop();
    };
  }

  /**
   * Every record after `position` up to the head, from memory and at once (the same array for every reader: not to
   * be changed), or undefined when the memory does not hold every one of them (the reader then reads with `after`).
   */
  buffered(position: number): readonly StoredChange[] | undefined {
    const buffer = this.#buffer;
    const first = buffer.length === 0 ? this.#head + 1 : buffer[0].position;
    if (position + 1 < first) return undefined;
    const index = position + 1 - first;
    if (index === 0) return buffer;
    return index >= buffer.length ? noChanges : buffer.slice(index);
  }

  /**
   * At most `limit` records after `position` that `selection` wants, in position order: from memory when it
   * holds every record after `position`, from the database otherwise. Records past the hub's head are not
   * answered yet (the hub wakes its readers when it has read them).
   */
  async after(position: number, selection: ChangeSelection, limit: number): Promise<StoredChange[]> {
    const buffer = this.#buffer;
    const first = buffer.length === 0 ? this.#head + 1 : buffer[0].position;
    if (position + 1 >= first) {
      const out: StoredChange[] = [];
      let index = buffer.length === 0 ? 0 : position + 1 - first;
      for (; index < buffer.length && out.length < limit; index++) {
        const change = buffer[index];
        if (wants(selection, change)) out.push(change);
      }
      return out;
    }
    const read = await this.log.read({
      after: position,
      limit,
      entities: selection.entities === undefined ? undefined : [...selection.entities],
      tenant: selection.tenant,
    });
    return read.filter((change) => change.position <= this.#head);
  }

  /** Reads the records committed since the last read and wakes the readers (one read at a time; a call meanwhile reads again after it). */
  wake(): void {
    // Before the start knows the head, a read would start from the old one: the start reads once it is ready.
    if (!this.#ready) return;
    if (this.#reading !== undefined) {
      this.#again = true;
      return;
    }
    this.#reading = this.#readNew().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async #readNew(): Promise<void> {
    const generation = this.#generation;
    let read = 0;
    for (;;) {
      let records: StoredChange[];
      try {
        records = await this.log.read({ after: this.#head, limit: readLimit });
      } catch {
        // The database is away: the next wake-up or poll tries again; the readers keep waiting.
        return;
      }
      // Stopped while reading (and maybe started again at a newer head): this read is of no use any more.
      if (generation !== this.#generation) return;
      // The head never goes back: a stream moves its cursor to a head it saw, past records it did not look at.
      const fresh =
        records.length > 0 && records[0].position <= this.#head ? records.filter((record) => record.position > this.#head) : records;
      for (const record of fresh) {
        // Positions are dense: a record not following the head means the log was purged past it; restart there.
        if (record.position !== this.#head + 1) this.#buffer = [];
        this.#buffer.push(record);
        this.#head = record.position;
      }
      read += fresh.length;
      const excess = this.#buffer.length - this.#bufferSize;
      if (excess >= this.#bufferSlack) this.#buffer = this.#buffer.slice(excess);
      if (fresh.length > 0) for (const receiver of this.#receivers) hand(receiver, fresh);
      if (records.length < readLimit) break;
    }
    if (read > 0) for (const listener of this.#listeners) listener();
  }

  async #start(): Promise<void> {
    const generation = this.#generation;
    const bounds = await this.log.bounds();
    if (generation !== this.#generation) return;
    this.#head = bounds.head;
    this.#buffer = [];
    this.#ready = true;
    this.#stops.push(onChangesAnnounced(this.log.database, () => this.wake()));
    const database = this.log.database;
    let listening = false;
    if (database.listenForChanges !== undefined)
      listening = await this.#startSource((wake) => database.listenForChanges?.(wake) ?? Promise.resolve(() => undefined));
    for (const source of this.#sources) listening = (await this.#startSource(source)) || listening;
    // With notifications, polling is a safety net for a lost listener, not the way changes arrive.
    this.#timer = setInterval(() => this.wake(), listening ? Math.max(this.#pollIntervalMs, safetyPollMs) : this.#pollIntervalMs);
    this.#timer.unref();
    // What committed while the sources started woke nobody: read it now.
    this.wake();
  }

  /** Starts a wake-up source; false when it could not start. */
  async #startSource(source: ChangeWakeUpSource): Promise<boolean> {
    try {
      this.#stops.push(await source(() => this.wake()));
      return true;
    } catch {
      // Polling still finds every record: a source that cannot start only makes them arrive later.
      return false;
    }
  }

  #stop(): void {
    this.#generation++;
    this.#ready = false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    const stops = this.#stops;
    this.#stops = [];
    for (const stop of stops) void Promise.resolve(stop()).catch(() => undefined);
    this.#started = undefined;
    this.#buffer = [];
  }
}

const noChanges: readonly StoredChange[] = Object.freeze([]);

/** Hands `records` to `receiver`; one that throws does not keep the others from theirs. */
function hand(receiver: ChangeReceiver, records: readonly StoredChange[]): void {
  try {
    receiver.receive(records);
  } catch {
    // The receiver's own affair (a stream ends itself on its errors): the hub serves the next.
  }
}

/** Whether `selection` wants `change`. */
export function wants(selection: ChangeSelection, change: StoredChange): boolean {
  if (selection.entities !== undefined && !selection.entities.has(change.entity)) return false;
  return selection.tenant === undefined || change.tenant === null || change.tenant === selection.tenant;
}
