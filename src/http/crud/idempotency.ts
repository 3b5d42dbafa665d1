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
export async function runOnce<R>(
  context: HttpContext,
  key: HttpIdempotencyKey,
  windowSeconds: number,
  retry: RetryOption,
  work: () => Promise<R>,
): Promise<R> {
  const statements = idempotencyStatementsOf(context.database.dialect);
  const keyHash = key.keyHash;
  try {
    return await context.transaction(
      async () => {
        const now = Date.now();
        await context.execute(statements.release, { keyHash, now });
        let claimed: boolean;
        try {
          claimed =
            (await context.execute(statements.claim, { keyHash, requestHash: key.requestHash, expiresAt: now + windowSeconds * 1000 })) > 0;
        } catch (error) {
          if (!(error instanceof UniqueViolationError)) throw error;
          claimed = false;
        }
        if (!claimed) throw new KeyTaken();
        const answer = await work();
        await context.execute(statements.complete, { status: HttpStatus.ok, answer: JSON.stringify(answer) ?? "null", keyHash });
        return answer;
      },
      { retry },
    );
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
  }
  const rows = await context.query(statements.read, { keyHash });
  if (rows.length === 0 || Number(rows[0][1]) === 0) throw new HttpError(HttpStatus.conflict, CrudMessages.idempotencyKeyInProgress);
  if (rows[0][0] !== key.requestHash) throw new HttpError(HttpStatus.unprocessableEntity, CrudMessages.idempotencyKeyReused);
  return JSON.parse(String(rows[0][2])) as R;
}

/**
 * Deletes every idempotency key whose window has passed (a key that comes again replaces its own expired row
 * anyway; this keeps the table small). Answers the number of rows deleted.
 */
export function purgeIdempotencyKeys(context: HttpContext): Promise<number> {
  return context.execute(idempotencyStatementsOf(context.database.dialect).purge, { now: Date.now() });
}
