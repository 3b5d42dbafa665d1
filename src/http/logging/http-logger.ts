import {
  buildLogError,
  buildLogRequest,
  buildLogResponse,
  type LoggedRequest,
  type LoggedResponse,
  type RedactContent,
} from "./http-log-capture.js";
import { HttpLogParameters } from "./http-log-parameters.js";
import { HttpLogAction } from "./http-log-records.js";
import type { HttpLogWriter, HttpLogWriterClass } from "./http-log-writer.js";
import { callWriter, LogConsumer, settlesWithin } from "./log-consumer.js";

export { HttpLogParameters } from "./http-log-parameters.js";
export { HttpLogWriter, type HttpLogWriterClass } from "./http-log-writer.js";
export type { LoggedRequest, LoggedResponse, LoggedUser } from "./http-log-capture.js";

/** Callbacks the server hands to the logger when it starts. */
export interface HttpLoggerOptions<Req> {
  /** Asked before each request and response entry is built; false (or a throw) skips it. */
  readonly onCanLog?: ((request: Req) => boolean) | undefined;
  /** Returns the text to log for a body: for the captured request body and again for the response body. */
  readonly onRedactContent?: RedactContent<Req> | undefined;
}

/**
 * The server's entry into the log pipeline. The server creates it in `registerLogWriter`, opens it in
 * `start()` and closes it in `stop()`. The `log*` methods run on the request path: they build the record
 * (copies, redaction, the captured body) and hand it to a consumer round-robin, never waiting for a writer
 * and never throwing. JSON text is produced, if at all, by the writer on the consumer side.
 */
export class HttpLogger<Req extends LoggedRequest = LoggedRequest, Res extends LoggedResponse = LoggedResponse> {
  /** The application's writer class. */
  readonly writerClass: HttpLogWriterClass;
  /** The pipeline's limits. */
  readonly parameters: HttpLogParameters;
  #consumers: LogConsumer[];
  #next = 0;
  #closed = false;
  #onCanLog: ((request: Req) => boolean) | undefined;
  #onRedactContent: RedactContent<Req> | undefined;
  #reportTimer: NodeJS.Timeout | undefined;
  #inlineWriter: HttpLogWriter | undefined;
  #inlineRetryAt = 0;
  #discardedByClosedConsumers = 0;

  /**
   * Creates one writer and discards it at once: a constructor that throws stops start-up.
   * @param writerClass the application's writer, with a no-argument constructor.
   * @param poolSizeOrParameters the number of consumers, or every parameter; defaults as `HttpLogParameters`.
   */
  constructor(writerClass: HttpLogWriterClass, poolSizeOrParameters?: number | HttpLogParameters) {
    this.writerClass = writerClass;
    this.parameters = HttpLogParameters.from(poolSizeOrParameters);
    const probe = new writerClass();
    void callWriter(() => probe.close());
    this.#consumers = this.#createConsumers();
  }

  /** Called by `HttpServer.start()`: takes the callbacks and (again, after a `close()`) starts the consumers. */
  open(options: HttpLoggerOptions<Req>): void {
    this.#onCanLog = options.onCanLog;
    this.#onRedactContent = options.onRedactContent;
    if (this.#closed) {
      this.#consumers = this.#createConsumers();
      this.#closed = false;
    }
    if (this.#reportTimer === undefined) {
      this.#reportTimer = setInterval(() => {
        for (const consumer of this.#consumers) consumer.reportDue();
      }, this.parameters.discardReportInterval);
      this.#reportTimer.unref();
    }
  }

  /** Called once per request after the body is read, before routing and authentication. Never throws. */
  logRequest(request: Req): void {
    if (this.#closed || !this.#canLog(request)) return;
    try {
      const consumer = this.#nextConsumer();
      if (consumer.hasRoom) consumer.enqueue(buildLogRequest(request, this.parameters, this.#onRedactContent));
      else consumer.discard(request.host);
    } catch {
      // Logging never breaks a request.
    }
  }

  /** Called once per response, after it is complete. Never throws. */
  logResponse(request: Req, response: Res): void {
    if (this.#closed || !this.#canLog(request)) return;
    try {
      const consumer = this.#nextConsumer();
      if (consumer.hasRoom) consumer.enqueue(buildLogResponse(request, response, this.parameters, this.#onRedactContent));
      else consumer.discard(request.host);
    } catch {
      // Logging never breaks a request.
    }
  }

  /** Called for every response with status >= 500, with what was thrown (if anything) and the task id; not gated by `onCanLog`. Never throws. */
  logError(request: Req, response: Res, taskId: string, error: unknown): void {
    if (this.#closed) return;
    try {
      this.#nextConsumer().enqueue(buildLogError(request, response.statusCode, taskId, error));
    } catch {
      // Logging never breaks a request.
    }
  }

  /**
   * Writes a free-text action inline through the logger's own writer instance (created on first use and
   * again after a failure, at most once per `writerRetryInterval`). A throw or a rejection is dropped.
   * `requestId` names the request the line is about ('' for none).
   */
  logAction(host: string, message: string, taskId = "", requestId = ""): void {
    const writer = this.#inline();
    if (writer !== undefined) void callWriter(() => writer.writeAction(new HttpLogAction(host, message, taskId, Date.now(), requestId)));
  }

  /** The entries waiting in the consumers' queues now (for metrics). */
  get queueDepth(): number {
    let depth = 0;
    for (const consumer of this.#consumers) depth += consumer.size;
    return depth;
  }

  /** Every entry a full queue rejected since the logger was created (for metrics). */
  get discardedTotal(): number {
    let total = this.#discardedByClosedConsumers;
    if (!this.#closed) for (const consumer of this.#consumers) total += consumer.discardedTotal;
    return total;
  }

  /** Called by `HttpServer.stop()`: drains the queues and closes the writers, waiting at most `closeTimeout` ms. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const consumer of this.#consumers) this.#discardedByClosedConsumers += consumer.discardedTotal;
    if (this.#reportTimer !== undefined) {
      clearInterval(this.#reportTimer);
      this.#reportTimer = undefined;
    }
    const timeout = this.parameters.closeTimeout;
    const closing: Promise<unknown>[] = this.#consumers.map((consumer) => consumer.close(timeout));
    const inline = this.#inlineWriter;
    this.#inlineWriter = undefined;
    this.#inlineRetryAt = 0;
    const inlineClosing = inline === undefined ? undefined : callWriter(() => inline.close());
    if (inlineClosing !== undefined) closing.push(settlesWithin(inlineClosing, timeout));
    await Promise.all(closing);
  }

  #createConsumers(): LogConsumer[] {
    const consumers: LogConsumer[] = [];
    for (let i = 0; i < this.parameters.threadPoolSize; i++) consumers.push(new LogConsumer(this.writerClass, this.parameters));
    return consumers;
  }

  #canLog(request: Req): boolean {
    const onCanLog = this.#onCanLog;
    if (onCanLog === undefined) return true;
    try {
      return onCanLog(request) === true;
    } catch {
      return false;
    }
  }

  /** The consumer whose turn it is (round-robin). A full queue is known before the entry is built, so a saturated pipeline costs a counter, not a record. */
  #nextConsumer(): LogConsumer {
    const consumers = this.#consumers;
    if (consumers.length === 1) return consumers[0];
    const index = this.#next;
    this.#next = index + 1 === consumers.length ? 0 : index + 1;
    return consumers[index];
  }

  #inline(): HttpLogWriter | undefined {
    if (this.#inlineWriter !== undefined) return this.#inlineWriter;
    const now = Date.now();
    if (now < this.#inlineRetryAt) return undefined;
    try {
      this.#inlineWriter = new this.writerClass();
      return this.#inlineWriter;
    } catch {
      this.#inlineRetryAt = now + this.parameters.writerRetryInterval;
      return undefined;
    }
  }
}
