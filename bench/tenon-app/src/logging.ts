import {
  HttpLogWriter,
  JsonLinesLogWriter,
  type HttpLogAction,
  type HttpLogRequest,
  type HttpLogResponse,
  type HttpServer,
} from "tenon/http";

/** S6-slow: a writer that takes 50 ms per entry (without blocking the process, like a slow remote sink). */
class SlowLogWriter extends HttpLogWriter {
  #sleep(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, 50));
  }
  writeAction(_action: HttpLogAction): Promise<void> {
    return this.#sleep();
  }
  writeRequest(_request: HttpLogRequest): Promise<void> {
    return this.#sleep();
  }
  writeResponse(_response: HttpLogResponse): Promise<void> {
    return this.#sleep();
  }
}

/** S6: request logging with default parameters, the JSON-lines writer to a file, or the slow writer. */
export function registerLogging<C>(server: HttpServer<C>, mode: string, file: string): void {
  if (mode === "file") {
    class BenchLog extends JsonLinesLogWriter {
      static override path: string | undefined = file;
    }
    server.registerLogWriter(BenchLog);
  } else if (mode === "slow") {
    server.registerLogWriter(SlowLogWriter);
  }
}
