// A client for streamed answers over a real socket: reads a whole answer and says whether its chunked body
// ended properly, or reads part of it, pauses, and goes away.
import { type ClientRequest, type IncomingMessage, request } from "node:http";

/** A streamed answer as the client saw it. */
export interface StreamedAnswer {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly text: string;
  /** Whether the body ended with its last chunk (false: the connection was cut before). */
  readonly complete: boolean;
}

/** Sends one POST and opens its answer, without reading the body yet. */
export function open(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ readonly req: ClientRequest; readonly res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => resolve({ req, res }),
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends one POST and reads its whole answer. */
export async function fetchStream(port: number, path: string, body: unknown, headers: Record<string, string>): Promise<StreamedAnswer> {
  const { res } = await open(port, path, typeof body === "string" ? body : JSON.stringify(body), headers);
  return readAll(res);
}

/** Reads an answer to its end, or to the cut of its connection. */
export function readAll(res: IncomingMessage): Promise<StreamedAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8"), complete: res.complete });
    };
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("end", finish);
    res.on("close", finish);
    res.on("error", finish);
  });
}

/** Reads `bytes` of an answer's body (or all of it, when shorter), then stops reading: the socket stays open, paused. */
export function readSome(res: IncomingMessage, bytes: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) done();
    };
    const done = (): void => {
      res.off("data", onData);
      res.off("end", done);
      res.pause();
      resolve(Buffer.concat(chunks));
    };
    res.on("data", onData);
    res.on("end", done);
  });
}

/** How `upload` sends its body. */
export interface UploadOptions {
  /** Send the body in chunks of this many bytes without a Content-Length (chunked transfer coding). */
  readonly chunkBytes?: number;
  /** Send `Expect: 100-continue` and the body only once the server invites it (as curl does for large bodies). */
  readonly expectContinue?: boolean;
}

/** POSTs `body` (NDJSON by default) and reads the answer; an answer given before the whole body went out is read too. */
export function upload(
  port: number,
  path: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: UploadOptions = {},
): Promise<StreamedAnswer & { readonly continued: boolean }> {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return new Promise((resolve, reject) => {
    let continued = false;
    const all: Record<string, string> = { "content-type": "application/x-ndjson", ...headers };
    if (options.chunkBytes === undefined) all["content-length"] = String(bytes.length);
    if (options.expectContinue === true) all.expect = "100-continue";
    const req = request({ host: "127.0.0.1", port, path, method: "POST", agent: false, headers: all }, (res) => {
      readAll(res).then((answer) => resolve({ ...answer, continued }), reject);
    });
    // The server may answer and close before the body is sent: that is an answer, not a failure.
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    const send = (): void => {
      const size = options.chunkBytes;
      if (size === undefined) {
        req.end(bytes);
        return;
      }
      let offset = 0;
      const pump = (): void => {
        while (offset < bytes.length) {
          const piece = bytes.subarray(offset, offset + size);
          offset += piece.length;
          if (!req.write(piece)) {
            req.once("drain", pump);
            return;
          }
        }
        req.end();
      };
      pump();
    };
    if (options.expectContinue === true) {
      req.on("continue", () => {
        continued = true;
        send();
      });
      req.flushHeaders();
    } else send();
  });
}
