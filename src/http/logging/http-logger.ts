// STUB written by the lead so that the server compiles before the logging part lands.
// The logging engineer owns this file and replaces the body; the members below are the contract
// between the server (src/http/server*.ts) and the logging part.

/** The application's log writer (SPEC.md 6.2). */
export abstract class HttpLogWriter {
  /** Written inline on the request path. */
  abstract writeAction(action: unknown): void | Promise<void>;
  /** Queued to a background consumer. */
  abstract writeRequest(request: unknown): void | Promise<void>;
  /** Queued to a background consumer. */
  abstract writeResponse(response: unknown): void | Promise<void>;
}

/** A class of log writer with a no-argument constructor. */
export type HttpLogWriterClass = new () => HttpLogWriter;

/** Tuning of the log pipeline (SPEC.md 2.6). */
export class HttpLogParameters {}

/** Callbacks the server hands to the logger when it starts. */
export interface HttpLoggerOptions<Req> {
  /** SPEC.md 2.1 OnCanLog. */
  readonly onCanLog?: ((request: Req) => boolean) | undefined;
  /** SPEC.md 2.1 OnRedactContent. */
  readonly onRedactContent?: ((request: Req, content: string) => string) | undefined;
}

/** The server's entry into the log pipeline. */
export class HttpLogger<Req = unknown, Res = unknown> {
  /** Creates one writer and discards it at once (a throwing constructor stops start-up). */
  constructor(writerClass: HttpLogWriterClass, poolSizeOrParameters?: number | HttpLogParameters) {
    void new writerClass();
    void poolSizeOrParameters;
  }
  /** Called by `HttpServer.start()`. */
  open(options: HttpLoggerOptions<Req>): void {
    void options;
  }
  /** Called once per request after the body is read, before routing and authentication. Never throws. */
  logRequest(request: Req): void {
    void request;
  }
  /** Called once per response, after it is complete. Never throws. */
  logResponse(request: Req, response: Res): void {
    void request;
    void response;
  }
  /** Called for every response with status >= 500 with what was thrown (if anything) and the task id. Never throws. */
  logError(request: Req, response: Res, taskId: string, error: unknown): void {
    void request;
    void response;
    void taskId;
    void error;
  }
  /** Called by `HttpServer.stop()`: drains the queues and stops the consumers. */
  async close(): Promise<void> {}
}
