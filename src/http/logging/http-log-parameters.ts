import { LogMessages } from "./log-messages.js";

/** The values of an `HttpLogParameters`, each optional: a value left unsaid takes its default. */
export interface HttpLogParameterOptions {
  /** Number of log consumers ("log threads"), each with its own queue and writer. Default 1. */
  readonly threadPoolSize?: number | undefined;
  /** Cap on each consumer's queue, in entries. Default 10000; negative means unlimited. */
  readonly queueCapacity?: number | undefined;
  /** Cap on a captured body, in bytes. Default 0 (no body); negative means unlimited. */
  readonly maxContentLength?: number | undefined;
  /** Cap on captured parameters and headers, in items. Default 128; 0 reads as 128; negative means unlimited. */
  readonly maxItemCount?: number | undefined;
  /** How often pending discard counts are reported while a consumer is busy, in milliseconds. Default 1000. */
  readonly discardReportInterval?: number | undefined;
  /** How long a consumer waits before creating its writer again after the constructor failed, in milliseconds. Default 1000. */
  readonly writerRetryInterval?: number | undefined;
  /** How long `close()` (the server's `stop()`) waits for the queues to drain, in milliseconds. Default 5000. */
  readonly closeTimeout?: number | undefined;
}

/**
 * Tuning of the log pipeline (defaults and limits: docs/logging.md). Immutable. Construct it with an options object
 * (`new HttpLogParameters({ maxContentLength: 4096 })`) or positionally, the short forms leaving the later
 * values at their defaults (`new HttpLogParameters(2)`, `new HttpLogParameters(2, 500)`, ...).
 */
export class HttpLogParameters {
  /** Default number of log consumers: 1. */
  static readonly defaultThreadPoolSize = 1;
  /** Default capacity of each consumer's queue: 10000 entries. */
  static readonly defaultQueueCapacity = 10000;
  /** Default cap on a captured body: 0, no body is logged. */
  static readonly defaultMaxContentLength = 0;
  /** Default cap on captured parameters and headers: 128 items. */
  static readonly defaultMaxItemCount = 128;
  /** Default interval of the discard report timer, in milliseconds. */
  static readonly defaultDiscardReportInterval = 1000;
  /** Default wait before a failed writer constructor is tried again, in milliseconds. */
  static readonly defaultWriterRetryInterval = 1000;
  /** Default bound on the drain at `close()`, in milliseconds. */
  static readonly defaultCloseTimeout = 5000;

  /** Number of log consumers. */
  readonly threadPoolSize: number;
  /** Cap on each consumer's queue; negative is unlimited. */
  readonly queueCapacity: number;
  /** Cap on a captured body in bytes; 0 logs no body, negative is unlimited. */
  readonly maxContentLength: number;
  /** Cap on captured parameters and headers; negative is unlimited (a 0 given reads as the default). */
  readonly maxItemCount: number;
  /** Interval of the discard report timer, in milliseconds. */
  readonly discardReportInterval: number;
  /** Wait before a failed writer constructor is tried again, in milliseconds. */
  readonly writerRetryInterval: number;
  /** Bound on the drain at `close()`, in milliseconds. */
  readonly closeTimeout: number;

  /** @param options the values to set; the others keep their defaults. */
  constructor(options?: HttpLogParameterOptions);
  /** Short constructors: the values left out keep their defaults. */
  constructor(threadPoolSize: number, queueCapacity?: number, maxContentLength?: number, maxItemCount?: number);
  constructor(first?: number | HttpLogParameterOptions, queueCapacity?: number, maxContentLength?: number, maxItemCount?: number) {
    const options: HttpLogParameterOptions =
      typeof first === "number" ? { threadPoolSize: first, queueCapacity, maxContentLength, maxItemCount } : (first ?? {});
    const poolSize = options.threadPoolSize ?? HttpLogParameters.defaultThreadPoolSize;
    if (!Number.isInteger(poolSize) || poolSize < 1) throw new RangeError(LogMessages.invalidPoolSize(poolSize));
    this.threadPoolSize = poolSize;
    this.queueCapacity = options.queueCapacity ?? HttpLogParameters.defaultQueueCapacity;
    this.maxContentLength = options.maxContentLength ?? HttpLogParameters.defaultMaxContentLength;
    const itemCount = options.maxItemCount ?? HttpLogParameters.defaultMaxItemCount;
    this.maxItemCount = itemCount === 0 ? HttpLogParameters.defaultMaxItemCount : itemCount;
    this.discardReportInterval = options.discardReportInterval ?? HttpLogParameters.defaultDiscardReportInterval;
    this.writerRetryInterval = options.writerRetryInterval ?? HttpLogParameters.defaultWriterRetryInterval;
    this.closeTimeout = options.closeTimeout ?? HttpLogParameters.defaultCloseTimeout;
  }

  /** The parameters of `registerLogWriter(Class)`, `(Class, poolSize)` and `(Class, parameters)`. */
  static from(poolSizeOrParameters?: number | HttpLogParameters): HttpLogParameters {
    if (poolSizeOrParameters instanceof HttpLogParameters) return poolSizeOrParameters;
    return new HttpLogParameters({ threadPoolSize: poolSizeOrParameters });
  }

  /** True when a body of `length` bytes is captured: the cap is above 0 (or negative, unlimited) and not exceeded. */
  canLogContent(length: number): boolean {
    const cap = this.maxContentLength;
    return cap < 0 || (cap > 0 && length <= cap);
  }

  /** True when `count` parameters or headers are too many to capture. */
  exceedsItemCount(count: number): boolean {
    return this.maxItemCount >= 0 && count > this.maxItemCount;
  }

  /** True when a queue holding `size` entries has room for one more. */
  hasQueueRoom(size: number): boolean {
    return this.queueCapacity < 0 || size < this.queueCapacity;
  }
}
