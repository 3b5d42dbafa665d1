import { type ColumnType, Type } from "../mapping/column-type.js";
import { PerKeyCache } from "../per-key-cache.js";
import type { Dialect } from "./dialect.js";
import type { TableDefinition } from "./schema-statements.js";

/**
 * The table of Tenon's own that remembers idempotency keys (`Idempotency-Key` on POST): one row per key, the
 * key and its scope hashed into `key_hash`, the hash of the request body, the answer once the write committed,
 * and when the key may be used again. The schema tool creates it (`SchemaOptions.idempotencyKeys`).
 */
export const idempotencyTable: TableDefinition = {
  name: "tenon_idempotency_keys",
  primaryKey: "key_hash",
  columns: [
    { name: "key_hash", type: Type.varchar(64) as ColumnType<unknown>, nullable: false },
    { name: "request_hash", type: Type.varchar(64) as ColumnType<unknown>, nullable: false },
    { name: "status", type: Type.int32 as ColumnType<unknown>, nullable: false },
    { name: "answer", type: Type.string as ColumnType<unknown>, nullable: false },
    { name: "expires_at", type: Type.int64 as ColumnType<unknown>, nullable: false },
  ],
};

/**
 * The statements of the idempotency table on one engine, with `:name` parameters: `claim` inserts a key's row
 * (counting 0 rows, or failing with a duplicate key where the engine has no conflict clause, when the key is
 * taken), `complete` stores the answer, `read` reads a key's row, `release` frees a key whose window has passed,
 * `purge` deletes every such row.
 */
export class IdempotencyStatements {
  /** INSERT of a new key: `:keyHash`, `:requestHash`, `:expiresAt`; status 0 and an empty answer until `complete`. */
  readonly claim: string;
  /** UPDATE of a claimed key with its answer: `:status`, `:answer`, `:keyHash`. */
  readonly complete: string;
  /**
   * UPDATE of a claimed key with its answer and the hash of its body, known only once a streamed body was read
   * to its end: `:status`, `:answer`, `:requestHash`, `:keyHash`.
   */
  readonly completeWithRequest: string;
  /** SELECT request_hash, status, answer, expires_at of `:keyHash`. */
  readonly read: string;
  /** DELETE of `:keyHash` when it expired before `:now`. */
  readonly release: string;
  /** DELETE of every key that expired before `:now`. */
  readonly purge: string;

  /** @param dialect the engine. */
  constructor(dialect: Dialect) {
    const q = (name: string): string => dialect.quoteIdentifier(name);
    const table = q(idempotencyTable.name);
    const key = q("key_hash");
    this.claim =
      `INSERT INTO ${table} (${key}, ${q("request_hash")}, ${q("status")}, ${q("answer")}, ${q("expires_at")}) ` +
      `VALUES (:keyHash, :requestHash, 0, '', :expiresAt)${dialect.insertKeyConflict(key)}`;
    this.complete = `UPDATE ${table} SET ${q("status")} = :status, ${q("answer")} = :answer WHERE ${key} = :keyHash`;
    this.completeWithRequest = `UPDATE ${table} SET ${q("status")} = :status, ${q("answer")} = :answer, ${q("request_hash")} = :requestHash WHERE ${key} = :keyHash`;
    this.read = `SELECT ${q("request_hash")}, ${q("status")}, ${q("answer")}, ${q("expires_at")} FROM ${table} WHERE ${key} = :keyHash`;
    this.release = `DELETE FROM ${table} WHERE ${key} = :keyHash AND ${q("expires_at")} < :now`;
    this.purge = `DELETE FROM ${table} WHERE ${q("expires_at")} < :now`;
  }
}

const cache = new PerKeyCache((dialect: Dialect) => new IdempotencyStatements(dialect));

/** The idempotency statements of `dialect`, built once. */
export function idempotencyStatementsOf(dialect: Dialect): IdempotencyStatements {
  return cache.of(dialect);
}
