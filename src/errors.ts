/**
 * Every error type that Tenon's ORM layers raise. One home for each: the HTTP layer maps these to status
 * codes (see `src/http/errors.ts`), and nothing compares errors by their text.
 */

import { stackTracesBack, stackTracesOff } from "./stack-traces.js";

/**
 * Base class of every error Tenon raises on purpose: mapping violations, writes on join entities, blocked relations.
 * An error that only describes what the caller asked for (`InvalidInputError`, `ValidationError`,
 * `EntityNotFoundError`, `ConcurrentUpdateError`, `RelationConstraintError`, `PolicyRefusedError`, and their
 * subclasses) is built without a stack trace: its `stack` is its first line alone. It is answered 4xx or handled by
 * its type, and V8's capture of a trace (some 7 us from the depth of a request) would cost more than the rest of
 * the refused request. Every other error keeps its trace; so do all where `Error.stackTraceLimit` cannot be written.
 */
export class TenonError extends Error {
  /** @param message what went wrong, naming the class and member where there is one. */
  constructor(message: string, options?: ErrorOptions) {
    const limit = describesTheCaller(new.target) ? stackTracesOff() : undefined;
    try {
      super(message, options);
    } finally {
      stackTracesBack(limit);
    }
    this.name = new.target.name;
  }
}

/** The entity mapping is invalid: raised when a class is first mapped, naming the class and the member. */
export class MappingError extends TenonError {}

/** No row of `entity` has this primary key (Context.get). The HTTP layer answers it with 404. Built without a stack trace. */
export class EntityNotFoundError extends TenonError {
  /** The entity class name. */
  readonly entity: string;
  /** The primary key that was looked up. */
  readonly id: number;
  /** @param entity the entity class name. @param id the missing primary key. */
  constructor(entity: string, id: number) {
    super(`Entity ${id} not found.`);
    this.entity = entity;
    this.id = id;
  }
}

/** Optimistic locking failed: the row's version differs from the entity's. Answered 409. Built without a stack trace. */
export class ConcurrentUpdateError extends TenonError {
  /** @param entity the entity class name. @param id the primary key of the row. */
  constructor(entity: string, id: number) {
    super(`${entity} ${id} was changed or deleted by another user.`);
  }
}

/**
 * A delete refused by a `@Relation` with cascade false: rows of the child table still refer to the entity
 * (a `TenonError`, not a data-integrity error). Nothing was deleted. Answered 409. Built without a stack trace.
 */
export class RelationConstraintError extends TenonError {
  /** The entity class name. */
  readonly entity: string;
  /** The primary key of the entity that could not be deleted. */
  readonly id: number;
  /** The child table whose rows refer to it. */
  readonly childTable: string;
  /** How many child rows refer to it. */
  readonly children: number;
  /** @param entity the class name. @param id its key. @param childTable the child table. @param children the count of referring rows. */
  constructor(entity: string, id: number, childTable: string, children: number) {
    super(`${entity} ${id} cannot be deleted: ${children} row(s) of ${childTable} refer to it.`);
    this.entity = entity;
    this.id = id;
    this.childTable = childTable;
    this.children = children;
  }
}

/** A statement was asked of a context that has been disposed: its connection is gone and it reads and writes nothing. */
export class ContextDisposedError extends TenonError {
  constructor() {
    super("The context has been disposed.");
  }
}

/**
 * A session without a tenant asked for an entity scoped by tenant (`@TenantColumn`): it has no resolver
 * (`Context.onGetCurrentTenant`), the resolver answered none, and the session is not explicitly `unscoped`.
 * Nothing was read or written. The HTTP layer answers it 403.
 */
export class TenantRequiredError extends TenonError {
  /** The entity class name. */
  readonly entity: string;
  /** @param entity the scoped entity's class name. */
  constructor(entity: string) {
    super(`${entity} is scoped by tenant, and this session has no tenant.`);
    this.entity = entity;
  }
}

/**
 * A session without a caller asked for an entity governed by a `@Policy`: it has no resolver
 * (`Context.onGetCurrentCaller`), the resolver answered none, and the session is not explicitly `unscoped`.
 * Nothing was read or written. The HTTP layer answers it 403.
 */
export class PolicyCallerRequiredError extends TenonError {
  /** The entity class name. */
  readonly entity: string;
  /** @param entity the governed entity's class name. @param message what was refused. */
  constructor(entity: string, message: string) {
    super(message);
    this.entity = entity;
  }
}

/**
 * The entity's `@Policy` does not let the caller do this: no rule grants it the operation, or the row it may read
 * is not one the operation's rules grant. Nothing was written. The HTTP layer answers it 403; a row the caller
 * may not read at all is never this error but the answer of a missing row. Built without a stack trace.
 */
export class PolicyRefusedError extends TenonError {
  /** The entity class name. */
  readonly entity: string;
  /** The operation refused: `insert`, `update`, `delete`, or a read path. */
  readonly operation: string;
  /** @param entity the class name. @param operation the operation refused. @param message what was refused. */
  constructor(entity: string, operation: string, message: string) {
    super(message);
    this.entity = entity;
    this.operation = operation;
  }
}

/** A write (insert, update, delete, undelete) of a join entity, which reads joined tables and is read-only. Nothing was written. */
export class ReadOnlyEntityError extends TenonError {
  /** The entity class name. */
  readonly entity: string;
  /** @param entity the join entity's class name. */
  constructor(entity: string) {
    super(`${entity} is a join entity and is read-only: insert, update and delete are refused.`);
    this.entity = entity;
  }
}

/** One failed validation rule of one property. */
export interface ValidationFailure {
  /** The entity property as the wire names it: its `@JsonName`, else the TypeScript field name without `#`. */
  readonly property: string;
  /** The database column name of that property. */
  readonly column: string;
  /** The human-readable message. */
  readonly message: string;
}

/**
 * An entity failed validation before a write; nothing was written. Answered 422 with the list of failures. Built
 * without a stack trace.
 */
export class ValidationError extends TenonError {
  /** Every failure found, in declaration order. */
  readonly errors: readonly ValidationFailure[];
  /** @param errors every failure found. */
  constructor(errors: readonly ValidationFailure[]) {
    super(errors.length === 1 ? errors[0].message : `${errors.length} validation errors: ${errors.map((e) => e.message).join(" ")}`);
    this.errors = errors;
  }
}

/**
 * Input that cannot be read: a JSON value of the wrong type for a property, a malformed filter body, an
 * unknown or non-filterable column named by a client. The HTTP layer answers it with 400 and its message. Built
 * without a stack trace.
 */
export class InvalidInputError extends TenonError {
  /** The JSON property (wire name) the input failed on, when one member of a body is at fault. */
  readonly property: string | undefined;
  /** @param message what is wrong. @param options the cause, and the property at fault when there is one. */
  constructor(message: string, options?: ErrorOptions & { readonly property?: string }) {
    super(message, options);
    this.property = options?.property;
  }
}

/** A statement failed in the database or the connection to it failed. The message never reaches an HTTP client. */
export class DatabaseError extends TenonError {}

/**
 * An INSERT or UPDATE hit a unique key: the primary key (an id that a row already has, even a soft-deleted
 * one) or another unique index of the table. Each engine folder turns its own duplicate-key failure into this
 * type, so that a duplicate is answered 409, never 500. The message is the engine's and never reaches an HTTP
 * client.
 */
export class UniqueViolationError extends DatabaseError {
  /** True when the primary key was hit, false for another unique index, undefined when the engine cannot tell. */
  readonly onPrimaryKey: boolean | undefined;
  /** The entity class whose insert hit its primary key, when the session knows it. */
  readonly entity: string | undefined;
  /** The key that a row already has, when the session knows it. */
  readonly id: number | undefined;
  /**
   * @param message the engine's text. @param onPrimaryKey which key was hit, when known. @param options the
   * driver's error as cause. @param key the entity and key of an insert that hit its primary key.
   */
  constructor(message: string, onPrimaryKey: boolean | undefined, options?: ErrorOptions, key?: { entity: string; id: number }) {
    super(message, options);
    this.onPrimaryKey = onPrimaryKey;
    this.entity = key?.entity;
    this.id = key?.id;
  }
}

/**
 * A primary key outside the int32 range of the key type would be handed out: the
 * sequence (or the embedded engine's key table) has run past 2147483647. Nothing was written; the sequence
 * must be restarted or the table's keys compacted by an operator.
 */
export class KeyRangeError extends TenonError {}

/**
 * A webhook subscription is malformed (its name, URL, secret, entities or a number breaks its rule), or the
 * database cannot hold webhooks: raised when the subscription is configured, naming it and the field at fault.
 * Malformed input: a route that stores a subscription from a request body answers it with 400.
 */
export class WebhookConfigurationError extends InvalidInputError {
  /** The subscription's name ('' when the fault is in the options of every subscription). */
  readonly subscription: string;
  /** The field at fault (`url`, `secret`, `entities`...). */
  readonly field: string;
  /** @param subscription its name. @param field the field at fault. @param message the rule it breaks. */
  constructor(subscription: string, field: string, message: string) {
    super(message);
    this.subscription = subscription;
    this.field = field;
  }
}

/**
 * The schema tool cannot write the schema of a mapping: a type beyond what the engine can store (a decimal
 * of 70 digits on MariaDB), two entities that map one table differently, a relation naming no mapped column.
 */
export class SchemaError extends TenonError {
  /** The entity class name (or names, comma-separated) the problem belongs to. */
  readonly entity: string;
  /** @param entity the entity class name. @param message what cannot be expressed, and why. */
  constructor(entity: string, message: string) {
    super(message);
    this.entity = entity;
  }
}

/** What kind of difference between the mapping and the live database a `SchemaDifference` is. */
export type SchemaDifferenceKind =
  | "missingTable"
  | "missingColumn"
  | "missingSequence"
  | "missingIndex"
  | "columnType"
  | "columnSize"
  | "columnNullability";

/** One difference between the mapping and the live database (`Schema.diff`). */
export interface SchemaDifference {
  /** What differs. */
  readonly kind: SchemaDifferenceKind;
  /** The entity class name (or names, comma-separated, when several entities map the table). */
  readonly entity: string;
  /** The table, as the mapping names it. */
  readonly table: string;
  /** The column, as the mapping names it, for column and index differences. */
  readonly column?: string;
  /** The property of the entity mapped to that column, where there is one. */
  readonly property?: string;
  /** The sequence, for `missingSequence`. */
  readonly sequence?: string;
  /** What the mapping wants: `VARCHAR(100) NOT NULL`. */
  readonly expected?: string;
  /** What the database has: `VARCHAR(200) NULL`. */
  readonly actual?: string;
  /** The additive statement that makes it right; undefined when Tenon will not change it (it never drops, narrows or alters). */
  readonly statement?: string;
  /** The difference in one sentence. */
  readonly message: string;
}

/** The live database does not match the mapping: raised by the check of `Schema.startCheck`, so the server does not start. */
export class SchemaMismatchError extends TenonError {
  /** Every difference found. */
  readonly differences: readonly SchemaDifference[];
  /** @param message the report. @param differences every difference found. */
  constructor(message: string, differences: readonly SchemaDifference[]) {
    super(message);
    this.differences = differences;
  }
}

/** Why a database failure is transient: what went wrong, in terms a retry policy can decide on. */
export type TransientKind =
  /** A serialization failure, a deadlock, a lock wait timeout or a certification failure: the server rolled the work back. */
  | "conflict"
  /** The connection was lost, refused or shut down by the server. */
  | "connection"
  /** The embedded engine's file stayed locked by another process beyond its busy timeout. */
  | "busy"
  /** The statement ran longer than the statement timeout, or was cancelled. */
  | "timeout";

/**
 * A database failure that may not happen again if the work is tried later: a serialization or certification
 * failure, a deadlock, a lost or refused connection, a busy file, a statement timeout. The engines classify
 * their drivers' errors into it (each in its `*-errors.ts`); the HTTP layer answers it 503 with `Retry-After`
 * (the client may retry), never 500, and the message goes only to the log.
 */
export class TransientDatabaseError extends DatabaseError {
  /** What kind of transient failure this is. */
  readonly kind: TransientKind;
  /**
   * Whether running the whole unit of work again is safe: true when the server certainly did not keep any of
   * it (rolled back, or never reached). False when the outcome is in doubt, such as a connection lost after
   * COMMIT (or a single self-committing statement) was sent, and for timeouts, which a retry would repeat.
   */
  readonly retrySafe: boolean;
  /** Whether the connection is gone: the session must take another one before it runs anything else. */
  readonly connectionLost: boolean;
  /**
   * @param message what went wrong (for the log). @param kind the kind of failure. @param retrySafe whether a
   * retry is safe. @param connectionLost whether the connection is gone.
   */
  constructor(message: string, kind: TransientKind, retrySafe: boolean, connectionLost: boolean, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
    this.retrySafe = retrySafe;
    this.connectionLost = connectionLost;
  }

  /** The same failure with the retry marked unsafe (its outcome is in doubt). */
  inDoubt(): TransientDatabaseError {
    if (!this.retrySafe) return this;
    return new TransientDatabaseError(this.message, this.kind, false, this.connectionLost, { cause: this.cause });
  }
}

/**
 * A key sequence in a form that can hand out the same value twice: on a MariaDB Galera node, a sequence
 * whose increment is not 0 (`NOCACHE` with `INCREMENT BY 1` is accepted by the server but gives duplicate
 * keys when two nodes draw at once). Raised at the sequence's first use; nothing was written. The fix is
 * in the schema (docs/engines.md), so it is not transient and never retried.
 */
export class UnsafeSequenceError extends DatabaseError {
  /** The sequence as the engine names it. */
  readonly sequence: string;

  /** @param sequence the sequence's quoted name; `message` says why it is unsafe and how to fix it. */
  constructor(sequence: string, message: string) {
    super(message);
    this.sequence = sequence;
  }
}

/** The errors built without a stack trace (see `TenonError`): each describes the caller's request, not a fault. */
const callerErrors: ReadonlySet<unknown> = new Set<unknown>([
  InvalidInputError,
  ValidationError,
  EntityNotFoundError,
  ConcurrentUpdateError,
  RelationConstraintError,
  PolicyRefusedError,
]);

/** True when `type` is one of `callerErrors` or extends one. */
function describesTheCaller(type: unknown): boolean {
  for (let at = type; typeof at === "function" && at !== TenonError; at = Object.getPrototypeOf(at)) {
    if (callerErrors.has(at)) return true;
  }
  return false;
}
