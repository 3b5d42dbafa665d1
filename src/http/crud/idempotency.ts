import { createHash } from "node:crypto";
import { InvalidInputError, UniqueViolationError } from "../../errors.js";
import type { RetryOption } from "../../session/retry-policy.js";
import { idempotencyStatementsOf } from "../../sql/idempotency-statements.js";
import { HttpError } from "../exchange/http-errors.js";
import { HttpStatus } from "../exchange/http-messages.js";
import type { HttpRequest } from "../exchange/http-request.js";
import { CrudMessages } from "./crud-messages.js";
import type { HttpContext } from "./http-context.js";

/** The header a client names a retryable POST with. */
export const idempotencyHeader = "idempotency-key";

/** The longest key accepted (its characters, quotes excluded). */
const maxKeyLength = 255;

/**
 * A key as sent: visible ASCII but the comma and the double quote, or the same inside double quotes (a
 * structured-field string, so without a backslash either). A comma or a space is refused in both forms: a comma
 * would make a list of keys.
 */
const keySyntax = /^(?:"([\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]{1,255})"|([\x21\x23-\x2b\x2d-\x7e]{1,255}))$/;

/**
 * An `Idempotency-Key` of a request, checked, with what it is scoped by: the key is the caller's (its user and
 * tenant), for one method and address, so that no two callers or routes ever share one. Only hashes are kept:
 * the key's with its scope, and the body's (a retry must send the same bytes).
 */
export class HttpIdempotencyKey {
  /** SHA-256 (hex) of the scope and the key: the row's identity. */
  readonly keyHash: string;
  /** SHA-256 (hex) of the request body. */
  readonly requestHash: string;

  private constructor(keyHash: string, requestHash: string) {
    this.keyHash = keyHash;
    this.requestHash = requestHash;
  }

  /**
   * The key of a request, or undefined when it sends none. A key that is empty, longer than 255 characters,
   * or has characters outside visible ASCII (a comma, so a list of keys, included) is an `InvalidInputError` (400).
   */
  static of(request: HttpRequest): HttpIdempotencyKey | undefined {
    const sent = request.header(idempotencyHeader);
    if (sent === undefined) return undefined;
    const match = keySyntax.exec(sent.trim());
    if (match === null) throw new InvalidInputError(CrudMessages.badIdempotencyKey(maxKeyLength));
    const key = match[1] ?? match[2];
    const user = request.user;
    const scope = [request.method, request.path, user?.username ?? "", user?.tenant ?? "", key].join("\u0000");
    const keyHash = createHash("sha256").update(scope).digest("hex");
    return new HttpIdempotencyKey(keyHash, createHash("sha256").update(request.body).digest("hex"));
  }
}

/** Thrown inside the write's transaction when its key is already taken: the transaction rolls back, the stored answer is read. */
class KeyTaken extends Error {}

/**
 * Runs a write once per idempotency key: inside one transaction, the key is claimed (a row of
 * `tenon_idempotency_keys`, whose primary key makes two claims of one key wait for each other), the write runs
 * and its answer is stored with it. A key that is already claimed (by a committed write, or a concurrent one
 * once it commits) answers the stored answer again, without a second write; with another body, 422. A write
 * that fails rolls its claim back with it, so the key can be retried. After `windowSeconds` a key is free again.
 */
export function runOnce<R>(
  context: HttpContext,
  key: HttpIdempotencyKey,
  windowSeconds: number,
  retry: RetryOption,
  work: () => Promise<R>,
): Promise<R> {
  return once(context, key, windowSeconds, retry, work, undefined);
}

/** Frees the key when its window has passed, then claims it: false when it is taken (waiting for a claim in progress to commit). */
async function claim(context: HttpContext, keyHash: string, requestHash: string, windowSeconds: number): Promise<boolean> {
  const statements = idempotencyStatementsOf(context.database.dialect);
  const now = Date.now();
  await context.execute(statements.release, { keyHash, now });
  try {
    return (await context.execute(statements.claim, { keyHash, requestHash, expiresAt: now + windowSeconds * 1000 })) > 0;
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
    return false;
  }
}

/** The answer stored for a taken key: 409 while its write is in progress, 422 for another body, else the answer. */
async function storedAnswer<R>(context: HttpContext, keyHash: string, requestHash: string): Promise<R> {
  const rows = await context.query(idempotencyStatementsOf(context.database.dialect).read, { keyHash });
  if (rows.length === 0 || Number(rows[0][1]) === 0) throw new HttpError(HttpStatus.conflict, CrudMessages.idempotencyKeyInProgress);
  if (rows[0][0] !== requestHash) throw new HttpError(HttpStatus.unprocessableEntity, CrudMessages.idempotencyKeyReused);
  return JSON.parse(String(rows[0][2])) as R;
}

/**
 * A request body read as it arrives, hashed as it goes (SHA-256), so that a streamed body, never held whole,
 * still has the hash an idempotency key compares: `digest` reads what is left and answers it. Breaking out of
 * an iteration leaves the rest unread, for `digest` to read.
 */
export class HashedBody implements AsyncIterable<Buffer> {
  readonly #hash = createHash("sha256");
  readonly #source: AsyncIterator<Buffer | Uint8Array>;
  #done = false;

  /** @param source the body's chunks, as they arrive or already read. */
  constructor(source: AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>) {
    if (Symbol.asyncIterator in source) this.#source = source[Symbol.asyncIterator]();
    else {
      const chunks = source[Symbol.iterator]();
      this.#source = { next: () => Promise.resolve(chunks.next()) };
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    // No `return`: a loop that stops early leaves the source open for `digest`.
    return { next: () => this.#next() };
  }

  /** Reads the rest of the body and answers the hash (hex) of all of it. */
  async digest(): Promise<string> {
    while (!this.#done) await this.#next();
    return this.#hash.digest("hex");
  }

  async #next(): Promise<IteratorResult<Buffer>> {
    if (this.#done) return { done: true, value: undefined };
    const next = await this.#source.next();
    if (next.done === true) {
      this.#done = true;
      return { done: true, value: undefined };
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    this.#hash.update(chunk);
    return { done: false, value: chunk };
  }
}

/**
 * `runOnce` for a write whose body is read as a stream (an NDJSON import): the key is claimed before the body
 * is read, the write reads it, and the body's hash, known only at its end (`body.digest()`), is stored with the
 * answer. A key already taken reads the body to its end to hash it, then answers the stored answer (the same
 * body) or 422 (another one). The write is never retried (its body cannot be read twice): a transient failure
 * answers 503, and the client sends it again with the same key.
 */
export function runOnceStreamed<R>(
  context: HttpContext,
  key: HttpIdempotencyKey,
  windowSeconds: number,
  body: HashedBody,
  work: () => Promise<R>,
): Promise<R> {
  return once(context, key, windowSeconds, false, work, body);
}

/** `runOnce` and `runOnceStreamed`: the body's hash is the key's (`body` undefined) or taken from the streamed body. */
async function once<R>(
  context: HttpContext,
  key: HttpIdempotencyKey,
  windowSeconds: number,
  retry: RetryOption,
  work: () => Promise<R>,
  body: HashedBody | undefined,
): Promise<R> {
  const statements = idempotencyStatementsOf(context.database.dialect);
  const keyHash = key.keyHash;
  try {
    return await context.transaction(
      async () => {
        // A streamed body's hash is known only at its end: its claim holds none until the answer is stored.
        if (!(await claim(context, keyHash, body === undefined ? key.requestHash : "", windowSeconds))) throw new KeyTaken();
        const answer = await work();
        const stored = JSON.stringify(answer) ?? "null";
        if (body === undefined) await context.execute(statements.complete, { status: HttpStatus.ok, answer: stored, keyHash });
        else {
          const requestHash = await body.digest();
          await context.execute(statements.completeWithRequest, { status: HttpStatus.ok, answer: stored, requestHash, keyHash });
        }
        return answer;
      },
      { retry },
    );
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
  }
  return storedAnswer<R>(context, keyHash, body === undefined ? key.requestHash : await body.digest());
}

/**
 * Deletes every idempotency key whose window has passed (a key that comes again replaces its own expired row
 * anyway; this keeps the table small). Answers the number of rows deleted.
 */
export function purgeIdempotencyKeys(context: HttpContext): Promise<number> {
  return context.execute(idempotencyStatementsOf(context.database.dialect).purge, { now: Date.now() });
}
