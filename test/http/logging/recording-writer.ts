import type {
  HttpLogAction,
  HttpLogDiscarded,
  HttpLogError,
  HttpLogRequest,
  HttpLogResponse,
} from "../../../src/http/logging/http-log-records.js";
import { HttpLogWriter, type HttpLogWriterClass } from "../../../src/http/logging/http-log-writer.js";
import type { LoggedRequest } from "../../../src/http/logging/http-log-capture.js";

/** What every instance of one recording writer class saw, in order. */
export class Recording {
  readonly actions: HttpLogAction[] = [];
  readonly requests: HttpLogRequest[] = [];
  readonly responses: HttpLogResponse[] = [];
  readonly discarded: HttpLogDiscarded[] = [];
  readonly errors: HttpLogError[] = [];
  /** Every call in order, as `kind` strings. */
  readonly calls: string[] = [];
  /** For every call, the number of the instance that received it (1-based, construction order). */
  readonly owners: number[] = [];
  /** Instances constructed (the registration probe included). */
  instances = 0;
  /** Instances closed. */
  closed = 0;
  #waiters: { test: () => boolean; resolve: () => void }[] = [];

  record(kind: string, push: () => void, owner = 0): void {
    push();
    this.calls.push(kind);
    this.owners.push(owner);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.test()) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once `test` holds, checked after every recorded call; rejects after `ms`. */
  until(test: () => boolean, ms = 10000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`condition not reached in ${ms} ms; calls: ${this.calls.join(",")}`)), ms);
      this.#waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** The sum of the discard counts reported. */
  get discardedCount(): number {
    return this.discarded.reduce((sum, entry) => sum + entry.count, 0);
  }
}

/** How a recording writer behaves besides recording. */
export interface RecordingBehaviour {
  /** Awaited before each queued write (request, response, error, discarded) is recorded. */
  readonly gate?: () => Promise<void> | undefined;
  /** Thrown by the constructor while it returns true (it receives the instance number, 1-based). */
  readonly failConstructor?: (instance: number) => boolean;
  /** Makes writeRequest throw synchronously. */
  readonly throwOnRequest?: boolean;
  /** Makes writeResponse return a rejected promise. */
  readonly rejectOnResponse?: boolean;
  /** Keeps the default writeDiscarded / writeError (forwarding to writeAction). */
  readonly defaultForwarding?: boolean;
}

/** A writer class whose instances record into `recording`. */
export function recordingWriter(recording: Recording, behaviour: RecordingBehaviour = {}): HttpLogWriterClass {
  async function gated(kind: string, push: () => void, owner: number): Promise<void> {
    const wait = behaviour.gate?.();
    if (wait !== undefined) await wait;
    recording.record(kind, push, owner);
  }
  class RecordingWriter extends HttpLogWriter {
    readonly id: number;
    constructor() {
      super();
      this.id = ++recording.instances;
      if (behaviour.failConstructor?.(recording.instances) === true) throw new Error("writer constructor failed");
    }
    override writeAction(action: HttpLogAction): void {
      recording.record("action", () => recording.actions.push(action), this.id);
    }
    override writeRequest(request: HttpLogRequest): Promise<void> {
      if (behaviour.throwOnRequest === true) throw new Error("writeRequest failed");
      return gated("request", () => recording.requests.push(request), this.id);
    }
    override writeResponse(response: HttpLogResponse): Promise<void> {
      if (behaviour.rejectOnResponse === true) return Promise.reject(new Error("writeResponse rejected"));
      return gated("response", () => recording.responses.push(response), this.id);
    }
    override writeDiscarded(discarded: HttpLogDiscarded): void | Promise<void> {
      if (behaviour.defaultForwarding === true) return super.writeDiscarded(discarded);
      return gated("discarded", () => recording.discarded.push(discarded), this.id);
    }
    override writeError(error: HttpLogError): void | Promise<void> {
      if (behaviour.defaultForwarding === true) return super.writeError(error);
      return gated("error", () => recording.errors.push(error), this.id);
    }
    override close(): void {
      recording.closed++;
    }
  }
  return RecordingWriter;
}

/** A gate that holds writes until opened. */
export class Gate {
  #open = false;
  #waiting: (() => void)[] = [];
  /** Writes waiting at the gate. */
  get waiting(): number {
    return this.#waiting.length;
  }
  /** The `gate` behaviour: a promise while closed. */
  readonly wait = (): Promise<void> | undefined => (this.#open ? undefined : new Promise<void>((resolve) => this.#waiting.push(resolve)));
  /** Lets every held write and every later one through. */
  open(): void {
    this.#open = true;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }
}

/** A request shaped like `HttpRequest`, for tests of the record builders without a server. */
export function fakeRequest(fields: Partial<Omit<LoggedRequest, "body">> & { body?: Uint8Array | string } = {}): LoggedRequest {
  const body = typeof fields.body === "string" ? Buffer.from(fields.body, "utf8") : (fields.body ?? Buffer.alloc(0));
  return {
    host: "example.test",
    uri: "/api/things",
    sentMethod: "GET",
    remoteIp: "127.0.0.1",
    clientIp: "10.0.0.1",
    user: undefined,
    contentType: "",
    params: [],
    headers: [["Host", "example.test"]],
    ...fields,
    body,
  };
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `test` holds, checked every 5 ms; rejects after `ms` (a busy machine may take its time). */
export async function eventually(test: () => boolean, ms = 10000): Promise<void> {
  for (let waited = 0; !test(); waited += 5) {
    if (waited >= ms) throw new Error(`condition not reached in ${ms} ms`);
    await delay(5);
  }
}
