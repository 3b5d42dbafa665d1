import type { Connection } from "../engines/database.js";
import { UniqueViolationError } from "../errors.js";
import { Filter } from "../filter/filter.js";
import { jsonPlanOf } from "../json/json-plan.js";
import type { JsonObject } from "../json/json-value.js";
import { jsonPropertyName } from "../json/json-visibility.js";
import type { EntityMapping } from "../mapping/entity-mapping.js";
import { PerKeyCache } from "../per-key-cache.js";
import { type ChangeAction, type ChangeRecorder, useChangeRecorder } from "../session/change-capture.js";
import type { Context } from "../session/context.js";
import { type ChangeStatements, changeStatementsOf } from "../sql/change-statements.js";
import { announceChanges } from "./change-signal.js";
// The policy of an entity with a change feed is checked against what its records carry when it is mapped.
import "./change-policy.js";

/** A change captured in a transaction, waiting for its position at COMMIT. */
interface KeptChange {
  readonly entity: string;
  readonly key: number;
  readonly action: ChangeAction;
  readonly version: number | null;
  readonly data: string;
  readonly user: string;
  readonly tenant: string | null;
}

/** Records per INSERT: 9 parameters each stays under every engine's limit of bound parameters. */
const recordsPerStatement = 500;

/** The JSON names a change record's data keeps, or undefined for every serialized member. */
const keptNames = new PerKeyCache((mapping: EntityMapping): ReadonlySet<string> | undefined => {
  const members = mapping.changeFeed?.members;
  if (members === undefined) return undefined;
  const names = new Set<string>([jsonPropertyName(mapping.primaryKey)]);
  for (const member of members) {
    const column = mapping.column(member);
    if (column !== undefined) names.add(jsonPropertyName(column));
  }
  return names;
});

/** The entity's JSON as a change record carries it: flat (references as their ids), limited to the feed's members. */
function dataOf(mapping: EntityMapping, entity: object): string {
  const json = jsonPlanOf(mapping).flat(entity);
  const names = keptNames.of(mapping);
  if (names === undefined) return JSON.stringify(json);
  const kept: JsonObject = {};
  for (const name of Object.keys(json)) if (names.has(name)) kept[name] = json[name];
  return JSON.stringify(kept);
}

/**
 * The change feed's side of the session (`ChangeRecorder`): serializes each written entity when its write ran,
 * and at COMMIT raises the counter (whose row lock it then holds until COMMIT, so that positions are handed out
 * in commit order: a reader that has seen position n has seen every position below it) and inserts the records.
 */
export const changeWriter: ChangeRecorder = {
  async capture(session, mapping, entities, action, versionDelta): Promise<unknown[]> {
    const user = session.onGetCurrentUser?.() ?? "";
    const version = mapping.versionColumn;
    const tenant = mapping.tenantColumn;
    // An update's object may lack columns its source never carried (a JSON body has no Created pair): read the rows again.
    const rows = action === "update" || action === "undelete" ? await committedRows(session, mapping, entities) : undefined;
    const kept: KeptChange[] = [];
    for (const written of entities) {
      const key = mapping.idOf(written);
      const entity = rows?.get(key) ?? written;
      kept.push({
        entity: mapping.name,
        key,
        action,
        version: version === undefined ? null : (version.get(entity) as number) + versionDelta,
        data: dataOf(mapping, entity),
        user,
        tenant: tenant === undefined ? null : String(tenant.get(entity)),
      });
    }
    return kept;
  },

  async flush(session: Context, connection: Connection, kept: readonly unknown[]): Promise<void> {
    const statements = changeStatementsOf(session.database.dialect);
    const count = kept.length;
    if ((await connection.execute(statements.raiseCounter, [count])) === 0) await createCounter(connection, statements, count);
    const [[head]] = await connection.query(statements.readCounter, []);
    let position = Number(head) - count;
    const at = Date.now();
    for (let start = 0; start < count; start += recordsPerStatement) {
      const chunk = kept.slice(start, start + recordsPerStatement) as KeptChange[];
      const parameters: unknown[] = [];
      for (const change of chunk) {
        position++;
        parameters.push(position, change.entity, change.key, change.action, change.version, change.data, change.user, change.tenant, at);
      }
      await connection.execute(statements.insert(chunk.length), parameters);
    }
    const notification = session.database.dialect.changeNotification;
    if (notification !== undefined) await connection.execute(notification, []);
  },

  committed(session: Context): void {
    announceChanges(session.database);
  },
};

/** Creates the counter row at `count`; when another transaction created it meanwhile, raises that one instead. */
async function createCounter(connection: Connection, statements: ChangeStatements, count: number): Promise<void> {
  let created = 0;
  try {
    created = await connection.execute(statements.createCounter, [count]);
  } catch (error) {
    if (!(error instanceof UniqueViolationError)) throw error;
  }
  if (created === 0) await connection.execute(statements.raiseCounter, [count]);
}

/**
 * The rows of `entities` as committed in this transaction, by key (one query; a row a fixed WHERE hides is absent).
 * Read under no policy: a change record carries the row, and each reader's policy decides what of it that reader sees.
 */
async function committedRows(session: Context, mapping: EntityMapping, entities: readonly object[]): Promise<Map<number, object>> {
  const rows = new Map<number, object>();
  const keys = entities.map((entity) => mapping.idOf(entity));
  for (let start = 0; start < keys.length; start += recordsPerStatement) {
    const filter = new Filter().add({ kind: "in", column: mapping.primaryKey, values: keys.slice(start, start + recordsPerStatement) });
    for (const row of await session.selectFor(mapping.entityClass, filter, null)) rows.set(mapping.idOf(row), row);
  }
  return rows;
}

useChangeRecorder(changeWriter);
