import { DiscardCounter } from "./discard-counter.js";
import type { HttpLogParameters } from "./http-log-parameters.js";
import { HttpLogError, HttpLogRequest, type HttpLogResponse } from "./http-log-records.js";
import type { HttpLogWriter, HttpLogWriterClass } from "./http-log-writer.js";

/** An entry waiting on a consumer's queue. */
export type LogEntry = HttpLogRequest | HttpLogResponse | HttpLogError;

/**
 * Entries written in one go before the consumer yields to the event loop, so that a synchronous writer cannot
 * starve requests: the entries queued when the turn began (what the requests of one loop iteration produced),
 * at least 64 and at most 4096. A fixed quota smaller than what one iteration brings (two entries per request,
 * some fifty requests per iteration under load) let the queue grow until it overflowed while the CPU could
 * have kept up.
 */
const MIN_ENTRIES_PER_TURN = 64;
const MAX_ENTRIES_PER_TURN = 4096;

const ignore = (): void => {};

/**
 * Calls one writer method with everything it may throw or reject caught and dropped: a writer never breaks a request.
 * Returns a Promise only when the writer returned one, so a synchronous writer costs no microtask.
 * @internal
 */
export function callWriter(call: () => void | Promise<void>): Promise<void> | undefined {
  try {
    return settled(call());
  } catch {
    // A writer never breaks the request path nor its consumer.
    return undefined;
  }
}

/** A writer's answer as a Promise that never rejects, or undefined when it answered synchronously. */
function settled(result: void | Promise<void>): Promise<void> | undefined {
  if (result !== undefined && result !== null && typeof (result as Promise<void>).then === "function") {
    return Promise.resolve(result).then(ignore, ignore);
  }
  return undefined;
}

/** `callWriter` for one queued entry, without a closure per entry. */
function writeEntry(writer: HttpLogWriter, entry: LogEntry): Promise<void> | undefined {
  try {
    return settled(
      entry instanceof HttpLogRequest
        ? writer.writeRequest(entry)
        : entry instanceof HttpLogError
          ? writer.writeError(entry)
          : writer.writeResponse(entry),
    );
  } catch {
    return undefined;
  }
}

/** Waits for `promise` at most `ms` milliseconds; true when it settled in time. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One "log thread": a bounded queue and the writer instance that empties it. The writer is
 * created on first use; when its constructor throws, the entries stay queued and creation is tried again on
 * the next cycle, `writerRetryInterval` later. A full queue rejects the newest entry and counts it per host;
 * the counts are reported through `writeDiscarded` when the report timer has fired and at the end of each drain.
 * @internal
 */
export class LogConsumer {
  readonly #writerClass: HttpLogWriterClass;
  readonly #parameters: HttpLogParameters;
  readonly #discards = new DiscardCounter();
  #queue: (LogEntry | undefined)[] = [];
  #head = 0;
  #writer: HttpLogWriter | undefined;
  #draining: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #reportDue = false;
  #closing = false;
  #abandoned = false;

  /** @param writerClass the application's writer. @param parameters the pipeline's limits. */
  constructor(writerClass: HttpLogWriterClass, parameters: HttpLogParameters) {
    this.#writerClass = writerClass;
    this.#parameters = parameters;
  }

  /** Entries waiting (the one being written is not counted). */
  get size(): number {
    return this.#queue.length - this.#head;
  }

  /** True when the queue has room for one more entry. */
  get hasRoom(): boolean {
    return this.#parameters.hasQueueRoom(this.size);
  }

  /** Every entry a full queue rejected since this consumer was created (for metrics). */
  discardedTotal = 0;

  /** Counts an entry of `host` as rejected by a full queue, without building it. */
  discard(host: string): void {
    this.#discards.count(host);
    this.discardedTotal++;
  }

  /** Queues an entry, or counts it as discarded when the queue is full. Never waits. */
  enqueue(entry: LogEntry): void {
    if (!this.#parameters.hasQueueRoom(this.size)) {
      this.#discards.count(entry.host);
      this.discardedTotal++;
      return;
    }
    this.#queue.push(entry);
    if (this.#draining === undefined) this.#schedule();
  }

  /** The report timer fired: pending discard counts are written before the next entry, or now when idle. */
  reportDue(): void {
    if (this.#discards.isEmpty) return;
    this.#reportDue = true;
    if (this.#draining === undefined) this.#schedule();
  }

  /**
   * Drains the queue and closes the writer, waiting at most `timeout` milliseconds in all. A consumer whose
   * writer does not settle in time is abandoned: its remaining entries are dropped. True when it finished in time.
   */
  async close(timeout: number): Promise<boolean> {
    const deadline = Date.now() + timeout;
    this.#closing = true;
    if (this.#retryTimer !== undefined) {
      clearTimeout(this.#retryTimer);
      this.#retryTimer = undefined;
    }
    if (this.#draining === undefined && (this.size > 0 || !this.#discards.isEmpty)) this.#schedule();
    let finished = await settlesWithin(this.#idle(), timeout);
    const writer = this.#writer;
    this.#writer = undefined;
    if (finished && writer !== undefined) {
      const closing = callWriter(() => writer.close());
      if (closing !== undefined) finished = await settlesWithin(closing, deadline - Date.now());
    }
    if (!finished) this.#abandon();
    return finished;
  }

  async #idle(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  #abandon(): void {
    this.#abandoned = true;
    this.#queue = [];
    this.#head = 0;
  }

  #schedule(): void {
    if (this.#abandoned || this.#retryTimer !== undefined) return;
    this.#draining = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
  }

  #take(): LogEntry {
    const entry = this.#queue[this.#head] as LogEntry;
    this.#queue[this.#head++] = undefined;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return entry;
  }

  #writerOrRetry(): HttpLogWriter | undefined {
    if (this.#writer !== undefined) return this.#writer;
    try {
      this.#writer = new this.#writerClass();
      return this.#writer;
    } catch {
      if (this.#closing) {
        this.#abandon();
      } else {
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          if (this.#draining === undefined) this.#schedule();
        }, this.#parameters.writerRetryInterval);
        this.#retryTimer.unref();
      }
      return undefined;
    }
  }

  async #report(writer: HttpLogWriter): Promise<void> {
    this.#reportDue = false;
    for (const discarded of this.#discards.take()) {
      const pending = callWriter(() => writer.writeDiscarded(discarded));
      if (pending !== undefined) await pending;
      if (this.#abandoned) return;
    }
  }

  #turnQuota(): number {
    return Math.min(MAX_ENTRIES_PER_TURN, Math.max(MIN_ENTRIES_PER_TURN, this.size));
  }

  async #drain(): Promise<void> {
    try {
      let turn = 0;
      let quota = this.#turnQuota();
      while (!this.#abandoned) {
        const writer = this.#writerOrRetry();
        if (writer === undefined) return;
        if (this.#reportDue || (this.size === 0 && !this.#discards.isEmpty)) await this.#report(writer);
        if (this.size === 0 || this.#abandoned) return;
        const pending = writeEntry(writer, this.#take());
        if (pending !== undefined) await pending;
        if (++turn >= quota) {
          turn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
          quota = this.#turnQuota();
        }
      }
    } finally {
      this.#draining = undefined;
      if (!this.#abandoned && this.#retryTimer === undefined && (this.size > 0 || (this.#reportDue && !this.#discards.isEmpty))) {
        this.#schedule();
      }
    }
  }
}
