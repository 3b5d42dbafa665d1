import { SchemaError, SchemaMismatchError } from "../errors.js";
import type { Connection, Database } from "../engines/database.js";
import type { EntityClass } from "../mapping/column-type.js";
import type { Catalog } from "../sql/catalog.js";
import { SchemaStatements } from "../sql/schema-statements.js";
import { SchemaDiff, SchemaScript } from "./schema-diff.js";
import { SchemaMessages } from "./schema-messages.js";
import { buildSchemaModel, type SchemaModel, withFrameworkTable } from "./schema-model.js";
import { idempotencyTable } from "../sql/idempotency-statements.js";
import { changeCounterTable, changeTable } from "../sql/change-statements.js";
import { webhookDeadLetterTable, webhookLeaseTable, webhookSubscriptionTable } from "../sql/webhook-statements.js";
import { planSchema, type PlanContext } from "./schema-plan.js";

/** Choices of the schema tool. */
export interface SchemaOptions {
  /**
   * MariaDB on a Galera cluster: sequences are created `INCREMENT BY 0 NOCACHE ENGINE=InnoDB`, so each node
   * follows its own `auto_increment_increment`/`auto_increment_offset` (a plain sequence is refused or hands
   * out duplicates there). Default false; refused on other engines.
   */
  readonly galera?: boolean;
  /** Declare foreign keys for `Lazy` columns, `@Relation` and `@DetailColumn` (default true); indexes are created either way. */
  readonly foreignKeys?: boolean;
  /**
   * Include Tenon's table of idempotency keys (`tenon_idempotency_keys`), which the generic writer needs for
   * `Idempotency-Key` on POST (docs/crud.md). Default false.
   */
  readonly idempotencyKeys?: boolean;
  /**
   * Include Tenon's tables of the change feed (`tenon_changes` and `tenon_change_counter`), which every entity
   * with `@ChangeFeed` writes to (docs/changes.md). Default false.
   */
  readonly changeFeed?: boolean;
  /**
   * Include Tenon's tables of the change feed's webhooks (`tenon_webhook_leases`, `tenon_webhook_dead_letters`
   * and `tenon_webhooks`, the stored subscriptions), which `ChangeWebhooks` needs (docs/changes.md). Default false.
   */
  readonly webhooks?: boolean;
}

const emptyCatalog: Catalog = { table: () => undefined, hasSequence: () => false };

/**
 * The schema from the mapping: `create` writes the DDL of a set of entities for the database's engine,
 * `diff` compares the mapping with the live catalogue, `apply` runs the additive statements of the diff, and
 * `startCheck` gives `HttpServer.addStartCheck` a check that refuses to start on a mismatch. The ORM itself
 * never creates a table or a sequence; only this tool does, when asked.
 */
export class Schema {
  private constructor() {}

  /** The whole schema of `entities` (tables, sequences, indexes, foreign keys) as plain DDL for the database's engine. */
  static create(database: Database, entities: readonly EntityClass[], options: SchemaOptions = {}): SchemaScript {
    const { model, context } = prepare(database, entities, options);
    return new SchemaScript(planSchema(model, emptyCatalog, { ...context, highestKeys: new Map() }).statements);
  }

  /** Reads the live catalogue and reports what is missing or different, with the additive DDL that fixes what Tenon may change. */
  static async diff(database: Database, entities: readonly EntityClass[], options: SchemaOptions = {}): Promise<SchemaDiff> {
    const connection = await database.acquire();
    try {
      return await diffOn(database, connection, entities, options);
    } finally {
      connection.release();
    }
  }

  /**
   * Brings the database up to date with only additive statements and answers the diff it found. On engines
   * with transactional DDL (PostgreSQL, SQLite) every statement runs in one transaction: all or nothing.
   * MariaDB commits each DDL statement on its own. A second `apply` finds nothing to do.
   */
  static async apply(database: Database, entities: readonly EntityClass[], options: SchemaOptions = {}): Promise<SchemaDiff> {
    const transactional = database.dialect.schema?.transactionalDdl === true;
    const connection = await database.acquire();
    try {
      if (transactional) await connection.begin();
      try {
        const diff = await diffOn(database, connection, entities, options);
        for (const statement of diff.script.statements) await connection.execute(statement, []);
        if (transactional) await connection.commit();
        return diff;
      } catch (error) {
        if (transactional) await connection.rollback().catch(() => undefined);
        throw error;
      }
    } finally {
      connection.release();
    }
  }

  /**
   * A start-up check for `HttpServer.addStartCheck`: it rejects with a `SchemaMismatchError`, naming each
   * entity, column and both types, when the live database differs from the mapping in any way.
   */
  static startCheck(database: Database, entities: readonly EntityClass[], options: SchemaOptions = {}): () => Promise<void> {
    return async () => {
      const diff = await Schema.diff(database, entities, options);
      if (diff.isEmpty) return;
      const report = [SchemaMessages.mismatch(diff.differences.length), ...diff.differences.map((each) => `  ${each.message}`)].join("\n");
      throw new SchemaMismatchError(report, diff.differences);
    };
  }
}

async function diffOn(
  database: Database,
  connection: Connection,
  entities: readonly EntityClass[],
  options: SchemaOptions,
): Promise<SchemaDiff> {
  const { model, context } = prepare(database, entities, options);
  const catalog = await context.schema.readCatalog((sql, parameters = []) => connection.query(sql, parameters));
  const highestKeys = new Map<string, number>();
  for (const sequence of model.sequences) {
    if (!context.schema.hasSequences || catalog.hasSequence(sequence.name) || catalog.table(sequence.table) === undefined) continue;
    const [[highest]] = await connection.query(context.statements.highestKey(sequence.table, sequence.keyColumn), []);
    highestKeys.set(sequence.name, highest === null || highest === undefined ? 0 : Number(highest));
  }
  const plan = planSchema(model, catalog, { ...context, highestKeys });
  return new SchemaDiff(plan.differences, plan.statements);
}

function prepare(
  database: Database,
  entities: readonly EntityClass[],
  options: SchemaOptions,
): { model: SchemaModel; context: Omit<PlanContext, "highestKeys"> } {
  const dialect = database.dialect;
  const schema = dialect.schema;
  if (schema === undefined) throw new SchemaError("", SchemaMessages.noSchemaDialect(dialect.name));
  if (options.galera === true && !schema.galeraSequences) throw new SchemaError("", SchemaMessages.galeraNeedsSequences(dialect.name));
  const entityModel = buildSchemaModel(dialect, schema, entities, options.foreignKeys ?? true);
  let model = options.idempotencyKeys === true ? withFrameworkTable(entityModel, idempotencyTable) : entityModel;
  if (options.changeFeed === true) model = withFrameworkTable(withFrameworkTable(model, changeTable), changeCounterTable);
  if (options.webhooks === true)
    for (const table of [webhookLeaseTable, webhookDeadLetterTable, webhookSubscriptionTable]) model = withFrameworkTable(model, table);
  return { model, context: { schema, statements: new SchemaStatements(dialect, schema), sequenceOptions: { galera: options.galera } } };
}
