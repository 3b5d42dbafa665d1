// One hostile exchange over a raw TCP socket: write bytes (with pauses), optionally half-close, and watch
// what the server answers and when it closes, within a bound.
import { connect } from "node:net";

/** A piece of what the client sends: bytes, or a pause in ms. */
export type Step = string | Buffer | { readonly pause: number };

/** How to run an exchange. */
export interface ExchangeOptions {
  /**
   * Half-close (FIN) after the last step, as a client that has nothing more to say: once an answer is
   * complete, or after `quietMs` without one. (node:http treats a FIN as a client gone: a request still
   * waiting for its answer is dropped, so FIN at once would leave every asynchronous handler unanswered.)
   */
  readonly halfClose?: boolean;
  /** How long to wait for a first complete answer before the half-close (default 0). */
  readonly quietMs?: number;
  /** The time the server has, from the last step, to answer and close. */
  readonly boundMs: number;
  /** The local address to connect from (127.0.0.2 for an untrusted loopback peer). */
  readonly localAddress?: string;
  /** Stop waiting as soon as this many answers have arrived complete (for kept-alive connections). */
  readonly answers?: number;
}

/** What the client saw. */
export interface Exchange {
  /** The status of every answer, in order (100 Continue included). */
  readonly statuses: number[];
  /** Every byte received, as latin1. */
  readonly text: string;
  /** The server closed (or reset) the connection within the bound. */
  readonly closed: boolean;
  /** Time from the last step to the close, or to the end of the wait. */
  readonly ms: number;
  /** The socket error that ended the exchange (ECONNRESET...), if any. */
  readonly error?: string | undefined;
}

const statusLine = /HTTP\/1\.[01] (\d{3}) /g;

/** The statuses of every answer in `text`. */
export function statusesIn(text: string): number[] {
  return [...text.matchAll(statusLine)].map((match) => Number(match[1]));
}

/** The number of complete answers in `text` (status line, headers and a Content-Length body). */
function completeAnswers(text: string): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const start = text.indexOf("HTTP/1.", at);
    if (start < 0) return count;
    const end = text.indexOf("\r\n\r\n", start);
    if (end < 0) return count;
    const head = text.slice(start, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const bodyEnd = end + 4 + (length === null ? 0 : Number(length[1]));
    if (text.length < bodyEnd) return count;
    if (!/^HTTP\/1\.[01] 1\d\d /.test(head)) count++;
    at = bodyEnd;
  }
}

/** Runs one exchange; never rejects (a refused connection counts as closed with no answer). */
export function exchange(port: number, steps: readonly Step[], options: ExchangeOptions): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress: options.localAddress });
    const chunks: Buffer[] = [];
    let lastStepAt = Date.now();
    let done = false;
    let failure: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const text = (): string => Buffer.concat(chunks).toString("latin1");
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(quiet);
      socket.destroy();
      const all = text();
      resolve({ statuses: statusesIn(all), text: all, closed, ms: Date.now() - lastStepAt, error: failure });
    };
    let halfClosed = false;
    let quiet: NodeJS.Timeout | undefined;
    const halfClose = (): void => {
      clearTimeout(quiet);
      if (halfClosed || done) return;
      halfClosed = true;
      if (socket.writable) socket.end();
      lastStepAt = Date.now();
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), options.boundMs);
    };
    let stepsDone = false;
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const complete = completeAnswers(text());
      if (options.answers !== undefined && complete >= options.answers) finish(false);
      else if (stepsDone && options.halfClose === true && complete > 0) halfClose();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
      finish(true);
    });
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      void (async () => {
        for (const step of steps) {
          if (done) return;
          if (typeof step === "string" || Buffer.isBuffer(step)) {
            if (!socket.writable) break;
            socket.write(step);
          } else {
            await new Promise((wake) => setTimeout(wake, step.pause));
          }
        }
        if (done) return;
        stepsDone = true;
        lastStepAt = Date.now();
        if (options.halfClose === true) {
          if (completeAnswers(text()) > 0) halfClose();
          else quiet = setTimeout(halfClose, options.quietMs ?? 0);
        } else {
          timer = setTimeout(() => finish(false), options.boundMs);
        }
      })();
    });
  });
}
