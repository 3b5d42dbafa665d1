import { type ColumnType, Type } from "../mapping/column-type.js";
import { PerKeyCache } from "../per-key-cache.js";
import type { Dialect } from "./dialect.js";
import type { TableDefinition } from "./schema-statements.js";

const column = (name: string, type: ColumnType<unknown>, nullable = false) => ({ name, type, nullable });

/**
 * One row per webhook subscription: which process delivers it (`owner`) until when (`expires_at`, in the
 * database's milliseconds since the epoch), and the position of the change log up to which every change was
 * delivered or set aside (`position`). A process takes and renews a lease by conditional UPDATE, so at most
 * one process delivers a subscription at a time. The schema tool creates it (`SchemaOptions.webhooks`).
 */
export const webhookLeaseTable: TableDefinition = {
  name: "tenon_webhook_leases",
  primaryKey: "subscription",
  columns: [
    column("subscription", Type.varchar(100) as ColumnType<unknown>),
    column("owner", Type.varchar(200) as ColumnType<unknown>),
    column("expires_at", Type.int64 as ColumnType<unknown>),
    column("position", Type.int64 as ColumnType<unknown>),
  ],
};

/**
 * The events a subscription could not deliver (or that wait behind such an event of the same key), with the
 * payload they carry, so that a replay sends them though the change log was purged meanwhile. `id` is
 * `<position>@<subscription>`; `replay` is 1 while a replay was asked for and not yet done.
 */
export const webhookDeadLetterTable: TableDefinition = {
  name: "tenon_webhook_dead_letters",
  primaryKey: "id",
  columns: [
    column("id", Type.varchar(130) as ColumnType<unknown>),
    column("subscription", Type.varchar(100) as ColumnType<unknown>),
    column("position", Type.int64 as ColumnType<unknown>),
    column("entity", Type.varchar(100) as ColumnType<unknown>),
    column("entity_key", Type.int32 as ColumnType<unknown>),
    column("tenant", Type.varchar(100) as ColumnType<unknown>, true),
    column("payload", Type.string as ColumnType<unknown>),
    column("attempts", Type.int32 as ColumnType<unknown>),
    column("last_error", Type.varchar(500) as ColumnType<unknown>),
    column("failed_at", Type.int64 as ColumnType<unknown>),
    column("replay", Type.int32 as ColumnType<unknown>),
  ],
};

/** The subscriptions stored in the database (besides those configured in code): a name and its definition as JSON. */
export const webhookSubscriptionTable: TableDefinition = {
  name: "tenon_webhooks",
  primaryKey: "name",
  columns: [column("name", Type.varchar(100) as ColumnType<unknown>), column("definition", Type.string as ColumnType<unknown>)],
};

/** The columns of a dead letter as `deadLetterColumns` reads them, in order. */
export const deadLetterColumns = [
  "subscription",
  "position",
  "entity",
  "entity_key",
  "tenant",
  "payload",
  "attempts",
  "last_error",
  "failed_at",
  "replay",
] as const;

/**
 * The statements of the webhook tables on one engine, with `:name` parameters. `:now` is never bound: times
 * are the database's own clock (`Dialect.currentMillis`), so that the processes of several machines compare
 * lease expiries on one clock.
 */
export class WebhookStatements {
  /** INSERT of a subscription's lease row, free (expired) at `:position`; skipped or a duplicate key when it exists. */
  readonly createLease: string;
  /** Takes `:subscription` for `:owner` until `:leaseMs` from now, when its lease has expired (1 row: taken). */
  readonly takeLease: string;
  /** Extends `:owner`'s lease of `:subscription` to `:leaseMs` from now (0 rows: it is no longer the owner's). */
  readonly renewLease: string;
  /** Frees `:owner`'s lease of `:subscription` at once. */
  readonly releaseLease: string;
  /** Stores `:position` for `:owner`'s lease of `:subscription` (0 rows: it is no longer the owner's). */
  readonly savePosition: string;
  /** SELECT position, owner, expires_at and the database's time of `:subscription`'s lease. */
  readonly readLease: string;
  /** INSERT of a dead letter: `:id` and the columns of `deadLetterColumns` as named parameters. */
  readonly insertDeadLetter: string;
  /** SELECT `deadLetterColumns` of the oldest dead letter of `:subscription`, `:entity`, `:entityKey` (ORDER BY position). */
  readonly firstOfKey: string;
  /** SELECT entity, entity_key, MAX(replay) of `:subscription`'s dead letters, one row per key. */
  readonly keysOf: string;
  /** SELECT `deadLetterColumns` of `:subscription`'s dead letters after `:after`, in position order (paged). */
  readonly list: string;
  /** The number of `:subscription`'s dead letters. */
  readonly count: string;
  /** Asks for a replay of every dead letter of `:subscription`. */
  readonly replayAll: string;
  /** Asks for a replay of the dead letter `:id`. */
  readonly replayOne: string;
  /** Records another failed replay of `:id`: `:attempts`, `:lastError`, `:failedAt`, the replay request withdrawn. */
  readonly failedAgain: string;
  /** Withdraws the replay of every dead letter of `:subscription`, `:entity`, `:entityKey`. */
  readonly withdrawKey: string;
  /** DELETE of the dead letter `:id` (delivered, or discarded). */
  readonly deleteOne: string;
  /** DELETE of every dead letter of `:subscription`. */
  readonly deleteAll: string;
  /** SELECT name, definition of every stored subscription. */
  readonly storedSubscriptions: string;
  /** INSERT of a stored subscription: `:name`, `:definition`. */
  readonly insertSubscription: string;
  /** UPDATE of a stored subscription's `:definition` by `:name`. */
  readonly updateSubscription: string;
  /** DELETE of the stored subscription `:name`. */
  readonly deleteSubscription: string;

  /** @param dialect the engine, with `currentMillis`. */
  constructor(dialect: Dialect, now: string) {
    const q = (name: string): string => dialect.quoteIdentifier(name);
    const leases = q(webhookLeaseTable.name);
    const dead = q(webhookDeadLetterTable.name);
    const stored = q(webhookSubscriptionTable.name);
    const subscription = q("subscription");
    this.createLease =
      `INSERT INTO ${leases} (${subscription}, ${q("owner")}, ${q("expires_at")}, ${q("position")}) ` +
      `VALUES (:subscription, '', 0, :position)${dialect.insertKeyConflict(subscription)}`;
    this.takeLease =
      `UPDATE ${leases} SET ${q("owner")} = :owner, ${q("expires_at")} = ${now} + :leaseMs ` +
      `WHERE ${subscription} = :subscription AND ${q("expires_at")} < ${now}`;
    this.renewLease = `UPDATE ${leases} SET ${q("expires_at")} = ${now} + :leaseMs WHERE ${subscription} = :subscription AND ${q("owner")} = :owner`;
    this.releaseLease = `UPDATE ${leases} SET ${q("expires_at")} = 0 WHERE ${subscription} = :subscription AND ${q("owner")} = :owner`;
    this.savePosition = `UPDATE ${leases} SET ${q("position")} = :position WHERE ${subscription} = :subscription AND ${q("owner")} = :owner`;
    this.readLease = `SELECT ${q("position")}, ${q("owner")}, ${q("expires_at")}, ${now} FROM ${leases} WHERE ${subscription} = :subscription`;
    const columns = deadLetterColumns.map(q).join(", ");
    const named = deadLetterColumns.map((name) => `:${camel(name)}`).join(", ");
    this.insertDeadLetter = `INSERT INTO ${dead} (${q("id")}, ${columns}) VALUES (:id, ${named})`;
    const ofKey = `${subscription} = :subscription AND ${q("entity")} = :entity AND ${q("entity_key")} = :entityKey`;
    this.firstOfKey = `SELECT ${columns} FROM ${dead} WHERE ${ofKey} ORDER BY ${q("position")}${dialect.paginate("1", "0")}`;
    this.keysOf =
      `SELECT ${q("entity")}, ${q("entity_key")}, MAX(${q("replay")}) FROM ${dead} WHERE ${subscription} = :subscription ` +
      `GROUP BY ${q("entity")}, ${q("entity_key")}`;
    this.list =
      `SELECT ${columns} FROM ${dead} WHERE ${subscription} = :subscription AND ${q("position")} > :after ` +
      `ORDER BY ${q("position")}${dialect.paginate(":limit", "0")}`;
    this.count = `SELECT COUNT(*) FROM ${dead} WHERE ${subscription} = :subscription`;
    this.replayAll = `UPDATE ${dead} SET ${q("replay")} = 1 WHERE ${subscription} = :subscription AND ${q("replay")} = 0`;
    this.replayOne = `UPDATE ${dead} SET ${q("replay")} = 1 WHERE ${q("id")} = :id AND ${q("replay")} = 0`;
    this.failedAgain =
      `UPDATE ${dead} SET ${q("attempts")} = :attempts, ${q("last_error")} = :lastError, ${q("failed_at")} = :failedAt, ` +
      `${q("replay")} = 0 WHERE ${q("id")} = :id`;
    this.withdrawKey = `UPDATE ${dead} SET ${q("replay")} = 0 WHERE ${ofKey}`;
    this.deleteOne = `DELETE FROM ${dead} WHERE ${q("id")} = :id`;
    this.deleteAll = `DELETE FROM ${dead} WHERE ${subscription} = :subscription`;
    this.storedSubscriptions = `SELECT ${q("name")}, ${q("definition")} FROM ${stored} ORDER BY ${q("name")}`;
    this.insertSubscription = `INSERT INTO ${stored} (${q("name")}, ${q("definition")}) VALUES (:name, :definition)`;
    this.updateSubscription = `UPDATE ${stored} SET ${q("definition")} = :definition WHERE ${q("name")} = :name`;
    this.deleteSubscription = `DELETE FROM ${stored} WHERE ${q("name")} = :name`;
  }
}

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

const cache = new PerKeyCache((dialect: Dialect) =>
  dialect.currentMillis === undefined ? undefined : new WebhookStatements(dialect, dialect.currentMillis),
);

/** The webhook statements of `dialect`, built once; undefined for an engine without a clock (`Dialect.currentMillis`). */
export function webhookStatementsOf(dialect: Dialect): WebhookStatements | undefined {
  return cache.of(dialect);
}
