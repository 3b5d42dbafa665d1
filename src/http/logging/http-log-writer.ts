import { HttpLogAction, type HttpLogDiscarded, type HttpLogError, type HttpLogRequest, type HttpLogResponse } from "./http-log-records.js";
import { LogMessages } from "./log-messages.js";

/**
 * The application's log writer (docs/logging.md). Each log consumer creates its own instance on first use, so
 * a writer needs no locking; a writer meant to survive a destination missing at start-up opens it on first
 * write, not in its constructor. Every method may return a Promise: the consumer waits for it before the
 * next entry, and a throw or a rejection is caught and dropped. Nothing on the request path waits for it.
 */
export abstract class HttpLogWriter {
  /** Writes a free-text line. Called inline by `HttpLogger.logAction()` and by the defaults below. */
  abstract writeAction(action: HttpLogAction): void | Promise<void>;

  /** Writes a request entry; called on a log consumer. */
  abstract writeRequest(request: HttpLogRequest): void | Promise<void>;

  /** Writes a response entry; called on a log consumer. */
  abstract writeResponse(response: HttpLogResponse): void | Promise<void>;

  /** Reports entries that a full queue rejected, per host. The default forwards to `writeAction` with a formatted message. */
  writeDiscarded(discarded: HttpLogDiscarded): void | Promise<void> {
    return this.writeAction(new HttpLogAction(discarded.host, LogMessages.discarded(discarded.host, discarded.count), "", discarded.time));
  }

  /** Writes the detail of a response with status >= 500. The default forwards to `writeAction`. */
  writeError(error: HttpLogError): void | Promise<void> {
    const message = LogMessages.error(
      error.exceptionClassName,
      error.exceptionMessage,
      error.nestedExceptionClassName,
      error.nestedExceptionMessage,
    );
    return this.writeAction(new HttpLogAction(error.host, message, error.taskId, error.time, error.requestId));
  }

  /** Releases what the writer holds (a file, a connection). Called when the server stops; the default does nothing. */
  close(): void | Promise<void> {}
}

/** A class of log writer with a no-argument constructor, as given to `registerLogWriter`. */
export type HttpLogWriterClass = new () => HttpLogWriter;
