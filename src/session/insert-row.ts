import type { Connection } from "../engines/database.js";
import { UniqueViolationError } from "../errors.js";
import { type EntityStatements, unscopedStatementsOf } from "../sql/entity-statements.js";
import { rowsSavepoint } from "../sql/savepoint-statements.js";
import { columnValues } from "./write-values.js";
import { SessionMessages } from "./session-messages.js";

/** How many drawn keys an insert tries before it gives up on keys that clients took ahead of the sequence. */
const maxKeyAttempts = 32;

/**
 * Sends an entity's INSERT. Where the engine can say so without an error (`ON CONFLICT (key) DO NOTHING`), a
 * taken key inserts no row; elsewhere it fails with `UniqueViolationError`, and when the engine cannot tell
 * which index was hit, the row of the key is looked up. A taken key that was `drawn` from the sequence is
 * replaced by `drawNext()`, up to 32 times, so that an id a client chose ahead of the sequence never breaks
 * this insert; a taken key the caller chose raises `UniqueViolationError` naming the entity and the key.
 */
export function insertRow(
  connection: Connection,
  statements: EntityStatements,
  entity: object,
  drawn: boolean,
  drawNext: () => Promise<number>,
): Promise<void> | undefined {
  // At once where the engine can: undefined when the row went in at the first attempt (no promise at all).
  if (connection.executeNow !== undefined) {
    let changed: number | undefined;
    try {
      changed = connection.executeNow(statements.insertSql, columnValues(statements.insertColumns, entity, statements.dialect));
    } catch (error) {
      return insertAttempts(connection, statements, entity, drawn, drawNext, { error });
    }
    if (changed !== undefined)
      return changed > 0 ? undefined : insertAttempts(connection, statements, entity, drawn, drawNext, { changed });
  }
  return insertAttempts(connection, statements, entity, drawn, drawNext, undefined);
}

/** The outcome of an INSERT already sent: the rows it inserted, or its failure. */
type InsertOutcome = { readonly changed: number } | { readonly error: unknown };

/** `insertRow`'s attempts; the first one's outcome is `first` when its statement was run already. */
async function insertAttempts(
  connection: Connection,
  statements: EntityStatements,
  entity: object,
  drawn: boolean,
  drawNext: () => Promise<number>,
  first: InsertOutcome | undefined,
): Promise<void> {
  const mapping = statements.mapping;
  for (let attempt = 1; ; attempt++) {
    const id = mapping.idOf(entity);
    const taken = (cause?: UniqueViolationError): UniqueViolationError =>
      new UniqueViolationError(
        cause?.message ?? SessionMessages.keyTaken(mapping.name, id),
        true,
        { cause: cause?.cause },
        {
          entity: mapping.name,
          id,
        },
      );
    try {
      const changed =
        attempt === 1 && first !== undefined
          ? outcomeOf(first)
          : await connection.execute(statements.insertSql, columnValues(statements.insertColumns, entity, statements.dialect));
      if (changed > 0) return;
      if (!drawn || attempt >= maxKeyAttempts) throw taken();
    } catch (error) {
      if (!(error instanceof UniqueViolationError) || error.onPrimaryKey === false || error.entity !== undefined) throw error;
      if (error.onPrimaryKey === undefined) {
        // Whose row has the key does not matter here, only whether one has: the read is not the tenant's.
        const byId = unscopedStatementsOf(mapping, statements.dialect).selectById(id, true);
        const rows = await connection.query(byId.sql, byId.parameters, statements.exactIntegers);
        if (rows.length === 0) throw new UniqueViolationError(error.message, false, { cause: error.cause });
      }
      if (!drawn || attempt >= maxKeyAttempts) throw taken(error);
    }
    mapping.primaryKey.set(entity, await drawNext());
  }
}

/** The rows an INSERT already sent inserted; throws its failure. */
function outcomeOf(outcome: InsertOutcome): number {
  if ("error" in outcome) throw outcome.error;
  return outcome.changed;
}

/** How many values one multi-row statement binds at most (SQLite allows 32766, the server engines 65535). */
const maxParameters = 30000;

/** How many rows of `statements`' entity one multi-row statement carries. */
export function rowsPerStatement(statements: EntityStatements): number {
  return Math.max(1, Math.min(1000, Math.floor(maxParameters / Math.max(1, statements.insertColumns.length))));
}

/**
 * Inserts `entities` (of one class, at most `rowsPerStatement`) with one multi-row INSERT inside a savepoint
 * of the caller's transaction. When a key is taken (fewer rows inserted, or a `UniqueViolationError`), the
 * statement is undone and each entity goes through `insertRow`, which replaces drawn keys and reports a
 * chosen one that is taken. `onRow` hears the position of the row being inserted alone, so that a failure can be attributed.
 */
export async function insertRows(
  connection: Connection,
  statements: EntityStatements,
  entities: readonly object[],
  drawn: (entity: object) => boolean,
  drawNext: () => Promise<number>,
  onRow?: (offset: number) => void,
): Promise<void> {
  onRow?.(0);
  if (entities.length === 1) return insertRow(connection, statements, entities[0], drawn(entities[0]), drawNext);
  const values: unknown[] = [];
  for (const entity of entities) values.push(...columnValues(statements.insertColumns, entity, statements.dialect));
  await connection.execute(rowsSavepoint.set, []);
  let complete = false;
  try {
    complete = (await connection.execute(statements.insertManySql(entities.length), values)) === entities.length;
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
  if (!complete) await connection.execute(rowsSavepoint.rollback, []);
  await connection.execute(rowsSavepoint.release, []);
  if (complete) return;
  for (let i = 0; i < entities.length; i++) {
    onRow?.(i);
    await insertRow(connection, statements, entities[i], drawn(entities[i]), drawNext);
  }
}
