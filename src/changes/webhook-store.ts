import type { Connection, Database } from "../engines/database.js";
import { UniqueViolationError, WebhookConfigurationError } from "../errors.js";
import { compileApplicationSql } from "../sql/named-parameters.js";
import { type WebhookStatements, webhookStatementsOf } from "../sql/webhook-statements.js";
import { ChangeMessages } from "./change-messages.js";
import type { ChangeRecord } from "./change-record.js";

/** An event a subscription could not deliver, or one waiting behind such an event of the same key. */
export interface WebhookDeadLetter {
  /** The subscription's name. */
  readonly subscription: string;
  /** The event's id: its position in the change log (the `webhook-id` it is sent with). */
  readonly id: number;
  /** The entity's class name. */
  readonly entity: string;
  /** The entity's key. */
  readonly key: number;
  /** The tenant of the changed row; null for an entity without one. */
  readonly tenant: string | null;
  /** The change record it carries. */
  readonly record: ChangeRecord;
  /** The record's JSON text: the body it is POSTed with, as it was first sent. */
  readonly body: string;
  /** The attempts made (0 for an event set aside behind an earlier one of its key). */
  readonly attempts: number;
  /** Why the last attempt failed, or why it was set aside. */
  readonly lastError: string;
  /** When it was set aside (or last failed), in milliseconds since the epoch. */
  readonly failedAt: number;
  /** Whether a replay was asked for and has not yet run. */
  readonly replaying: boolean;
}

/** The state of a subscription's lease row. @internal */
export interface LeaseState {
  readonly position: number;
  readonly owner: string;
  readonly expiresAt: number;
  /** The database's clock when it was read. */
  readonly now: number;
}

/** What a dead letter is made of when it is set aside. @internal */
export interface NewDeadLetter {
  readonly subscription: string;
  readonly position: number;
  readonly entity: string;
  readonly key: number;
  readonly tenant: string | null;
  readonly payload: string;
  readonly attempts: number;
  readonly lastError: string;
}

/**
 * The webhook tables of one database: leases, dead letters and stored subscriptions. Every call takes a
 * connection and gives it back at once; each statement runs on its own (no transaction is held open).
 * @internal
 */
export class WebhookStore {
  readonly database: Database;
  readonly statements: WebhookStatements;

  constructor(database: Database) {
    this.database = database;
    const statements = webhookStatementsOf(database.dialect);
    if (statements === undefined) throw new WebhookConfigurationError("", "database", ChangeMessages.noClock(database.dialect.name));
    this.statements = statements;
  }

  /** Creates the lease row of `subscription` at `position` when it has none (another process may have made it). */
  async createLease(subscription: string, position: number): Promise<void> {
    try {
      await this.#execute(this.statements.createLease, { subscription, position });
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
    }
  }

  /** Takes the lease of `subscription` for `owner` when it expired; true when taken. */
  async takeLease(subscription: string, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.#execute(this.statements.takeLease, { owner, leaseMs, subscription })) === 1;
  }

  /** Extends `owner`'s lease; false when it is no longer `owner`'s. */
  async renewLease(subscription: string, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.#execute(this.statements.renewLease, { leaseMs, subscription, owner })) === 1;
  }

  /** Frees `owner`'s lease at once, so that another process takes it without waiting for its expiry. */
  async releaseLease(subscription: string, owner: string): Promise<void> {
    await this.#execute(this.statements.releaseLease, { subscription, owner });
  }

  /** Stores the position delivered up to; false when the lease is no longer `owner`'s. */
  async savePosition(subscription: string, owner: string, position: number): Promise<boolean> {
    return (await this.#execute(this.statements.savePosition, { position, subscription, owner })) === 1;
  }

  /** The lease row of `subscription`, or undefined. */
  async lease(subscription: string): Promise<LeaseState | undefined> {
    const [row] = await this.#query(this.statements.readLease, { subscription });
    if (row === undefined) return undefined;
    return { position: Number(row[0]), owner: String(row[1]), expiresAt: Number(row[2]), now: Number(row[3]) };
  }

  /** Sets an event aside. */
  async insertDeadLetter(letter: NewDeadLetter): Promise<void> {
    try {
      await this.#insertDeadLetter(letter);
    } catch (error) {
      // Set aside by an earlier try whose next statement failed: it is there already.
      if (!(error instanceof UniqueViolationError)) throw error;
    }
  }

  async #insertDeadLetter(letter: NewDeadLetter): Promise<void> {
    await this.#execute(this.statements.insertDeadLetter, {
      id: deadLetterId(letter.subscription, letter.position),
      subscription: letter.subscription,
      position: letter.position,
      entity: letter.entity,
      entityKey: letter.key,
      tenant: letter.tenant,
      payload: letter.payload,
      attempts: letter.attempts,
      lastError: letter.lastError.slice(0, 500),
      failedAt: Date.now(),
      replay: 0,
    });
  }

  /** The oldest dead letter of one key of `subscription`, or undefined. */
  async firstOfKey(subscription: string, entity: string, key: number): Promise<WebhookDeadLetter | undefined> {
    const [row] = await this.#query(this.statements.firstOfKey, { subscription, entity, entityKey: key });
    return row === undefined ? undefined : deadLetterOf(row);
  }

  /** The keys of `subscription` with dead letters, each with whether a replay of one of them is asked for. */
  async keysOf(subscription: string): Promise<{ entity: string; key: number; replaying: boolean }[]> {
    const rows = await this.#query(this.statements.keysOf, { subscription });
    return rows.map((row) => ({ entity: String(row[0]), key: Number(row[1]), replaying: Number(row[2]) === 1 }));
  }

  /** At most `limit` dead letters of `subscription` after the id `after`, in id order. */
  async list(subscription: string, after: number, limit: number): Promise<WebhookDeadLetter[]> {
    return (await this.#query(this.statements.list, { subscription, after, limit })).map(deadLetterOf);
  }

  /** The number of dead letters of `subscription`. */
  async count(subscription: string): Promise<number> {
    return Number((await this.#query(this.statements.count, { subscription }))[0][0]);
  }

  /** Asks for a replay of every dead letter of `subscription`, or of those with the ids given; answers how many. */
  async replay(subscription: string, ids?: readonly number[]): Promise<number> {
    if (ids === undefined) return this.#execute(this.statements.replayAll, { subscription });
    let count = 0;
    for (const id of ids) count += await this.#execute(this.statements.replayOne, { id: deadLetterId(subscription, id) });
    return count;
  }

  /** Records another failed attempt of a replayed dead letter, and withdraws its replay. */
  async failedAgain(subscription: string, id: number, attempts: number, lastError: string): Promise<void> {
    await this.#execute(this.statements.failedAgain, {
      attempts,
      lastError: lastError.slice(0, 500),
      failedAt: Date.now(),
      id: deadLetterId(subscription, id),
    });
  }

  /** Withdraws the replay of every dead letter of one key of `subscription` (its oldest failed again). */
  async withdrawKey(subscription: string, entity: string, key: number): Promise<void> {
    await this.#execute(this.statements.withdrawKey, { subscription, entity, entityKey: key });
  }

  /** Deletes the dead letters of `subscription` with the ids given, or all of them; answers how many. */
  async remove(subscription: string, ids?: readonly number[]): Promise<number> {
    if (ids === undefined) return this.#execute(this.statements.deleteAll, { subscription });
    let count = 0;
    for (const id of ids) count += await this.#execute(this.statements.deleteOne, { id: deadLetterId(subscription, id) });
    return count;
  }

  /** Every stored subscription: its name and its definition's JSON. */
  async storedSubscriptions(): Promise<{ name: string; definition: string }[]> {
    return (await this.#query(this.statements.storedSubscriptions, {})).map((row) => ({
      name: String(row[0]),
      definition: String(row[1]),
    }));
  }

  /** Stores a subscription, or replaces the stored one of that name. */
  async storeSubscription(name: string, definition: string): Promise<void> {
    if ((await this.#execute(this.statements.updateSubscription, { definition, name })) > 0) return;
    try {
      await this.#execute(this.statements.insertSubscription, { name, definition });
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
      await this.#execute(this.statements.updateSubscription, { definition, name });
    }
  }

  /** Deletes a stored subscription; false when there was none. */
  async removeSubscription(name: string): Promise<boolean> {
    return (await this.#execute(this.statements.deleteSubscription, { name })) > 0;
  }

  async #execute(sql: string, parameters: Record<string, unknown>): Promise<number> {
    return this.#with((connection) => {
      const compiled = compileApplicationSql(sql, parameters, this.database.dialect);
      return connection.execute(compiled.sql, compiled.parameters);
    });
  }

  async #query(sql: string, parameters: Record<string, unknown>): Promise<unknown[][]> {
    return this.#with((connection) => {
      const compiled = compileApplicationSql(sql, parameters, this.database.dialect);
      return connection.query(compiled.sql, compiled.parameters);
    });
  }

  async #with<R>(work: (connection: Connection) => Promise<R>): Promise<R> {
    const connection = await this.database.acquire();
    try {
      return await work(connection);
    } finally {
      connection.release();
    }
  }
}

function deadLetterId(subscription: string, position: number): string {
  return `${position}@${subscription}`;
}

function deadLetterOf(row: unknown[]): WebhookDeadLetter {
  return {
    subscription: String(row[0]),
    id: Number(row[1]),
    entity: String(row[2]),
    key: Number(row[3]),
    tenant: row[4] === null || row[4] === undefined ? null : String(row[4]),
    record: JSON.parse(String(row[5])) as ChangeRecord,
    body: String(row[5]),
    attempts: Number(row[6]),
    lastError: String(row[7]),
    failedAt: Number(row[8]),
    replaying: Number(row[9]) === 1,
  };
}
