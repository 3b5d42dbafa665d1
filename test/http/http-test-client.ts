// Helpers for the HTTP tests: a real server on an ephemeral port, a plain HTTP client, and a raw socket.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { HttpServer, type HttpContextSource } from "../../src/http/server/http-server.js";

/** An answer as the client saw it. */
export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: unknown;
}

/** What to send. */
export interface Ask {
  readonly method?: string;
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string | Buffer;
}

/** One request sent by `ask` and the answer it got, as a recorder sees it. */
export interface Exchange {
  readonly port: number;
  readonly method: string;
  /** The request target as sent (path and query). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: string | Buffer | undefined;
  readonly answer: Answer;
}

const recorders = new Set<(exchange: Exchange) => void>();

/**
 * Records every exchange `ask` makes with `port` from now on (until `stop()`), so that a suite can check all the
 * answers it received against a contract once it is done.
 */
export function recordExchanges(port: () => number): { readonly exchanges: readonly Exchange[]; stop(): void } {
  const exchanges: Exchange[] = [];
  const recorder = (exchange: Exchange): void => {
    if (exchange.port === port()) exchanges.push(exchange);
  };
  recorders.add(recorder);
  return { exchanges, stop: () => recorders.delete(recorder) };
}

/** Sends one request on a fresh connection and reads the whole answer (and hands the exchange to the recorders). */
export async function ask(port: number, path: string, options: Ask = {}): Promise<Answer> {
  const answer = await send(port, path, options);
  if (recorders.size > 0) {
    const exchange = { port, method: options.method ?? "GET", path, headers: options.headers ?? {}, body: options.body, answer };
    for (const recorder of recorders) recorder(exchange);
  }
  return answer;
}

function send(port: number, path: string, options: Ask): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text === "" ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/** The outcome of a raw exchange: every byte the server sent, and whether it closed the connection. */
export interface RawOutcome {
  readonly text: string;
  readonly closedByServer: boolean;
}

/**
 * Opens a raw TCP connection, runs `script` (which writes and may wait), then reads until the server closes
 * or `waitMs` passes without the server closing.
 */
export function raw(
  port: number,
  script: (write: (data: string | Buffer) => void, end: () => void) => Promise<void> | void,
  waitMs = 3000,
): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closedByServer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closedByServer });
    };
    let timer: NodeJS.Timeout = setTimeout(() => finish(false), waitMs + 10000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") finish(true);
      else if (!settled) reject(error);
    });
    socket.on("connect", () => {
      Promise.resolve(
        script(
          (data) => socket.write(data),
          () => socket.end(),
        ),
      )
        .then(() => {
          clearTimeout(timer);
          timer = setTimeout(() => finish(false), waitMs);
        })
        .catch(reject);
    });
  });
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A server on 127.0.0.1 and an ephemeral port, configured by `setup`, started. */
export async function started<C>(contextClass: HttpContextSource<C>, setup: (server: HttpServer<C>) => void): Promise<HttpServer<C>> {
  const server = new HttpServer(contextClass);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  setup(server);
  await server.start();
  return server;
}

/** The status codes of every response in a raw exchange, in order. */
export function statusesOf(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]));
}
