// A small steady load for the multi-process tests: `concurrency` clients on keep-alive connections send one
// request after another until stopped, and every outcome is counted: the status of each answer, and each
// request that got no answer (a reset, a refused connection) with its error code.
import { Agent, request as httpRequest } from "node:http";

/** One request of the load. */
export interface LoadRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** What a load saw. */
export interface LoadResult {
  /** Answers per status code. */
  readonly statuses: ReadonlyMap<number, number>;
  /** Requests that got no answer: `<method> <path>: <error code>`. */
  readonly failures: readonly string[];
  /** Answers with their request and body, for the caller's own checks (only when `keep` is set). */
  readonly answers: readonly { request: LoadRequest; status: number; text: string }[];
  /** Every request sent. */
  readonly sent: number;
}

/** A running load. */
export interface RunningLoad {
  /** How many answers arrived so far. */
  answered(): number;
  /** Stops sending, waits for the requests in flight, and answers what was seen. */
  stop(): Promise<LoadResult>;
}

/** Starts `concurrency` clients sending `next(i)` (i counts requests from 0) to 127.0.0.1:`port`. */
export function startLoad(
  port: number,
  options: { concurrency: number; next: (index: number) => LoadRequest; keep?: boolean; keepAlive?: boolean },
): RunningLoad {
  const agent = new Agent({ keepAlive: options.keepAlive ?? true, maxSockets: options.concurrency });
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const answers: { request: LoadRequest; status: number; text: string }[] = [];
  let sent = 0;
  let answered = 0;
  let running = true;

  const one = (request: LoadRequest): Promise<void> =>
    new Promise((resolve) => {
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers["Content-Type"] ??= "application/json";
      const req = httpRequest({ host: "127.0.0.1", port, path: request.path, method: request.method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          answered++;
          if (options.keep === true) answers.push({ request, status, text: Buffer.concat(chunks).toString("utf8") });
          resolve();
        });
        res.on("error", (error: NodeJS.ErrnoException) => {
          failures.push(`${request.method} ${request.path}: ${error.code ?? error.message} (in the answer)`);
          resolve();
        });
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        failures.push(`${request.method} ${request.path}: ${error.code ?? error.message}`);
        resolve();
      });
      req.end(request.body);
    });

  const client = async (): Promise<void> => {
    while (running) await one(options.next(sent++));
  };
  const clients = Array.from({ length: options.concurrency }, () => client());
  return {
    answered: () => answered,
    async stop() {
      running = false;
      await Promise.all(clients);
      agent.destroy();
      return { statuses, failures, answers, sent };
    },
  };
}

/** Resolves once `condition` holds, polling; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 30000): Promise<void> {
  const begun = Date.now();
  while (!condition()) {
    if (Date.now() - begun > timeoutMs) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
