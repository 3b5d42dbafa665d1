// A client of Server-Sent Events for the tests: opens a stream over a real socket, parses its events and
// comments as a browser's EventSource would, and lets a test wait for a number of events, pause reading, or
// close it.
import { request as httpRequest, type IncomingMessage } from "node:http";

/** One event of a stream. */
export interface StreamEvent {
  /** The event's `id:` ('' without one). */
  readonly id: string;
  /** Its `data:`, parsed as JSON. */
  readonly data: Record<string, unknown>;
}

/** An open stream. */
export interface EventStream {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  /** The events so far. */
  readonly events: StreamEvent[];
  /** The comments so far (without the colon). */
  readonly comments: string[];
  /** The text received so far. */
  readonly body: string;
  /** Resolves when the response ends or the connection closes. */
  readonly ended: Promise<void>;
  /** Resolves with the first `count` events when they have arrived; rejects after `timeoutMs` (default 30 s). */
  waitFor(count: number, timeoutMs?: number): Promise<StreamEvent[]>;
  /** Starts reading a stream opened without reading. */
  resume(): void;
  /** Drops the connection. */
  close(): void;
}

/** Opens `path` on 127.0.0.1:`port` with `headers`; `read` false leaves the answer unread until `resume()`. */
export function openEventStream(port: number, path: string, headers: Record<string, string> = {}, read = true): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers: { Accept: "text/event-stream", ...headers } }, (res) => {
      let buffer = "";
      let body = "";
      const events: StreamEvent[] = [];
      const comments: string[] = [];
      let waiters: (() => void)[] = [];
      let endResolve: () => void = () => undefined;
      const ended = new Promise<void>((done) => (endResolve = done));
      const onData = (chunk: string): void => {
        body += chunk;
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id = "";
          let data: string | undefined;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("data: ")) data = line.slice(6);
          }
          if (data !== undefined) events.push({ id, data: JSON.parse(data) as Record<string, unknown> });
        }
        const woken = waiters;
        waiters = [];
        for (const waiter of woken) waiter();
      };
      const stream: EventStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        get body() {
          return body;
        },
        ended,
        waitFor(count, timeoutMs = 30_000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`only ${events.length} of ${count} events arrived`)), timeoutMs);
            const check = (): void => {
              if (events.length >= count) {
                clearTimeout(timer);
                ok(events.slice(0, count));
              } else waiters.push(check);
            };
            check();
            void ended.then(() => waiters.push(() => undefined));
          });
        },
        resume() {
          res.on("data", onData);
          res.resume();
        },
        close() {
          req.destroy();
        },
      };
      res.setEncoding("utf8");
      res.on("end", () => endResolve());
      res.on("close", () => endResolve());
      res.on("error", () => endResolve());
      if (read) res.on("data", onData);
      else res.pause();
      resolve(stream);
    });
    req.on("error", reject);
    req.end();
  });
}
