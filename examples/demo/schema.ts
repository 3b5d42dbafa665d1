import { type Context, type EntityClass, EntityMapping, Schema, type SchemaOptions } from "tenon";
import { demoTenants } from "./authentication.js";
import { Company, Employee, EmployeeDirectory, Order, OrderLine } from "./entities.js";
import { seededUsCompanies } from "./seed.js";

/** The demo's entities, parents before children: the schema tool writes their tables, sequences and keys. */
export const demoEntities: readonly EntityClass[] = [Company, Employee, Order, OrderLine, EmployeeDirectory];

/** The table of Tenon's own that `SchemaOptions.idempotencyKeys` adds (dropped with the demo's tables on reset). */
const idempotencyKeysTable = "tenon_idempotency_keys";

/** The tables of Tenon's own that `SchemaOptions.changeFeed` adds (dropped with the demo's tables on reset). */
const changeFeedTables = ["tenon_changes", "tenon_change_counter"];

/** The SQLite `user_version` from which the demo's money columns hold cents (docs/engines.md). */
const sqliteMoneyInCents = 1;

/**
 * Converts a demo database of an earlier Tenon, whose SQLite money columns held amounts as NUMERIC values,
 * to the cents that Tenon stores now; `user_version` records that it is done.
 */
async function convertSqliteMoney(context: Context): Promise<void> {
  const [[version]] = await context.query("PRAGMA user_version");
  if (Number(version) >= sqliteMoneyInCents) return;
  await context.transaction(async () => {
    const money: [string, string][] = [
      ["Companies", "CreditLimit"],
      ["Employees", "Salary"],
      ["Orders", "Total"],
      ["OrderLines", "Price"],
    ];
    for (const [table, column] of money) {
      await context.execute(`UPDATE ${table} SET ${column} = CAST(ROUND(${column} * 100) AS INTEGER) WHERE ${column} IS NOT NULL`);
    }
    await context.execute(`PRAGMA user_version = ${sqliteMoneyInCents}`);
  });
}

/**
 * Creates what is missing of the demo's schema from the mapping (`Schema.apply`: tables, sequences, indexes,
 * foreign keys; the ORM itself never creates any); with `reset` drops the tables and sequences first. Answers
 * whether the tables were (re)created, so the caller knows to seed them: the rows are the one thing the
 * mapping cannot know.
 */
export async function ensureDemoSchema(context: Context, reset: boolean): Promise<boolean> {
  const database = context.database;
  const schema = database.dialect.schema;
  const q = (name: string): string => database.dialect.quoteIdentifier(name);
  const mappings = demoEntities.map((entity) => EntityMapping.of(entity)).filter((mapping) => !mapping.isJoinEntity);
  if (reset) {
    for (const mapping of [...mappings].reverse()) await context.execute(`DROP TABLE IF EXISTS ${q(mapping.tableName)}`);
    for (const mapping of mappings)
      if (schema?.hasSequences && mapping.sequenceName !== undefined)
        await context.execute(`DROP SEQUENCE IF EXISTS ${q(mapping.sequenceName)}`);
    if (schema?.keyTable !== undefined) await context.execute(`DROP TABLE IF EXISTS ${q(schema.keyTable.name)}`);
    await context.execute(`DROP TABLE IF EXISTS ${q(idempotencyKeysTable)}`);
    for (const table of changeFeedTables) await context.execute(`DROP TABLE IF EXISTS ${q(table)}`);
  }
  // MariaDB's sequences take the Galera form (INCREMENT BY 0), so the demo runs on a cluster as on one server,
  // where such a sequence counts 1, 2, 3 like any other.
  // idempotencyKeys: Tenon's table of Idempotency-Key answers (docs/crud.md), which every process shares;
  // changeFeed: the change records of companies and orders (docs/changes.md).
  const options: SchemaOptions = { galera: schema?.galeraSequences === true, idempotencyKeys: true, changeFeed: true };
  const applied = await Schema.apply(database, demoEntities, options);
  const companies = EntityMapping.of(Company).tableName;
  const created = applied.differences.some((difference) => difference.kind === "missingTable" && difference.table === companies);
  if (database.dialect.name === "sqlite") {
    if (created) await context.execute(`PRAGMA user_version = ${sqliteMoneyInCents}`);
    else await convertSqliteMoney(context);
  }
  // A demo database of an earlier Tenon has no tenants: its rows become the seed's tenant's, as if seeded now.
  // Nor regions or orders' creators: its companies get the seed's regions (EU unless the seed says US), and its
  // orders the seed as their creator.
  const added = (table: string, column: string): boolean =>
    applied.differences.some(
      (difference) =>
        difference.kind === "missingColumn" && difference.table === table && difference.column?.toLowerCase() === column.toLowerCase(),
    );
  for (const difference of applied.differences) {
    if (difference.kind === "missingColumn" && difference.column?.toLowerCase() === "tenantid")
      await context.execute(`UPDATE ${q(difference.table)} SET ${q("TenantID")} = :tenant WHERE ${q("TenantID")} IS NULL`, {
        tenant: demoTenants.seeded,
      });
  }
  if (added(companies, "Region")) {
    const region = q("Region");
    await context.execute(`UPDATE ${q(companies)} SET ${region} = 'EU' WHERE ${region} IS NULL OR ${region} = ''`);
    for (const name of seededUsCompanies)
      await context.execute(`UPDATE ${q(companies)} SET ${region} = 'US' WHERE ${q("Name")} = :name`, { name });
  }
  const orders = EntityMapping.of(Order).tableName;
  if (added(orders, "CreatedBy"))
    await context.execute(`UPDATE ${q(orders)} SET ${q("CreatedBy")} = 'seed' WHERE ${q("CreatedBy")} IS NULL OR ${q("CreatedBy")} = ''`);
  return created;
}
