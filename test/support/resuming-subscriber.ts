// A change stream reader for the tests that leaves and comes back: it drops its connection every so many
// events (and whenever a process stops under it) and resumes with Last-Event-ID, as EventSource does.
import { request as httpRequest } from "node:http";

/** One event a subscriber received. */
export interface ReceivedChange {
  readonly id: number;
  readonly record: { entity: string; key: number; action: string; version: number; data?: { name?: string } };
}

/**
 * A change stream reader that disconnects on purpose every so many events (a number drawn between the bounds of
 * `every` for each connection), and whenever the stream is cut, and resumes with Last-Event-ID after the last
 * event it took, as EventSource does.
 */
export class ResumingSubscriber {
  /** Every event taken, in arrival order. */
  readonly events: ReceivedChange[] = [];
  /** How many streams were opened. */
  connections = 0;
  /** How each stream ended or was refused, the newest last (at most 20 kept): for a failure's message. */
  readonly endings: string[] = [];
  /** When the last event or heartbeat arrived (ms since the epoch; 0 before the first). */
  lastActivityAt = 0;
  #stopped = false;
  #current: ReturnType<typeof httpRequest> | undefined;
  readonly #port: number;
  readonly #path: string;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #every: readonly [number, number];
  #opened: () => void = () => undefined;
  /** Resolves once the first stream is open (its head arrived). */
  readonly opened = new Promise<void>((resolve) => (this.#opened = resolve));
  readonly done: Promise<void>;

  constructor(port: number, path: string, headers: Readonly<Record<string, string>>, every: readonly [number, number]) {
    this.#port = port;
    this.#path = path;
    this.#headers = headers;
    this.#every = every;
    this.done = this.#loop();
  }

  /** Stops reading and resumes no more. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#current?.destroy();
    return this.done;
  }

  /** What this subscriber has seen, in one line: for a failure's message. */
  describe(): string {
    const idle = this.lastActivityAt === 0 ? "never" : `${Date.now() - this.lastActivityAt} ms ago`;
    return `${this.events.length} events, last id ${this.events.at(-1)?.id}, ${this.connections} connections, last activity ${idle}, endings: ${this.endings.join("; ")}`;
  }

  #ended(how: string): void {
    this.endings.push(how);
    if (this.endings.length > 20) this.endings.shift();
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      await this.#once().catch((error: Error) => this.#ended(error.message));
      if (!this.#stopped) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  #once(): Promise<void> {
    const last = this.events.at(-1);
    const [low, high] = this.#every;
    const quota = low + Math.floor(Math.random() * (high - low));
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...this.#headers, Accept: "text/event-stream" };
      if (last !== undefined) headers["Last-Event-ID"] = String(last.id);
      const req = httpRequest({ host: "127.0.0.1", port: this.#port, path: this.#path, headers }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`stream answered ${res.statusCode} to Last-Event-ID ${last?.id}`));
          return;
        }
        this.connections++;
        res.setEncoding("utf8");
        let buffer = "";
        let read = 0;
        res.on("data", (chunk: string) => {
          this.lastActivityAt = Date.now();
          buffer += chunk;
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.includes(": changes")) this.#opened();
            let id: number | undefined;
            let data: string | undefined;
            for (const line of block.split("\n")) {
              if (line.startsWith("id: ")) id = Number(line.slice(4));
              else if (line.startsWith("data: ")) data = line.slice(6);
            }
            if (id === undefined || data === undefined) continue;
            this.events.push({ id, record: JSON.parse(data) });
            if (++read >= quota) {
              // Disconnect on purpose mid-stream: what follows is read again after the last event taken.
              req.destroy();
              this.#ended(`left after ${read}`);
              resolve();
              return;
            }
          }
        });
        res.on("end", () => {
          this.#ended(`ended by the server after ${read}`);
          resolve();
        });
        res.on("close", () => resolve());
        res.on("error", (error) => {
          this.#ended(`${error.message} after ${read}`);
          resolve();
        });
      });
      this.#current = req;
      // A client that gets no answer at all in a while gives up and asks again, as any robust client does: a
      // connection that node:cluster's primary handed to a worker killed at that moment is never answered nor
      // closed (the primary keeps the socket of a handoff the dead worker never acknowledged).
      const unanswered = setTimeout(() => {
        this.#ended("no answer in 10 s");
        req.destroy();
      }, 10_000);
      req.on("response", () => clearTimeout(unanswered));
      req.on("close", () => clearTimeout(unanswered));
      req.on("error", reject);
      req.end();
    });
  }
}
