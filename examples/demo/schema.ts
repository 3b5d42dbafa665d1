import type { Context } from "tenon";

/** The SQL type names of the demo tables on one engine. */
interface DemoTypes {
  readonly int: string;
  readonly text: (size: number) => string;
  readonly money: string;
  readonly timestamp: string;
}

const typesByEngine: Record<string, DemoTypes> = {
  // Tenon stores a decimal(18, 2) on SQLite as an integer number of cents (docs/engines.md).
  sqlite: { int: "INTEGER", text: () => "TEXT", money: "INTEGER", timestamp: "TEXT" },
  postgres: { int: "INTEGER", text: (size) => `VARCHAR(${size})`, money: "NUMERIC(18,2)", timestamp: "TIMESTAMPTZ" },
  mariadb: { int: "INT", text: (size) => `VARCHAR(${size})`, money: "DECIMAL(18,2)", timestamp: "DATETIME(3)" },
};

/** The demo's sequences: Tenon never creates one, so the demo does (DEMO.md). */
export const demoSequences = ["CompaniesID", "EmployeesID", "OrdersID", "OrderLinesID"] as const;

/** The demo's tables, in the order they can be created (and the reverse of the order they can be dropped). */
export const demoTables = ["Companies", "Employees", "Orders", "OrderLines"] as const;

/** CREATE TABLE statements of the demo for an engine (by dialect name). */
export function demoTableStatements(engine: string): string[] {
  const t = typesByEngine[engine];
  if (t === undefined) throw new Error(`The demo has no schema for the engine ${engine}.`);
  const audit = `CreatedAt ${t.timestamp}, CreatedBy ${t.text(100)}, UpdatedAt ${t.timestamp}, UpdatedBy ${t.text(100)}`;
  return [
    `CREATE TABLE Companies (ID ${t.int} NOT NULL PRIMARY KEY, Name ${t.text(100)} NOT NULL, Email ${t.text(254)},
      VatNumber ${t.text(14)}, CreditLimit ${t.money}, ${audit}, DeletedAt ${t.timestamp}, DeletedBy ${t.text(100)},
      VersionID ${t.int} NOT NULL)`,
    `CREATE TABLE Employees (ID ${t.int} NOT NULL PRIMARY KEY, FirstName ${t.text(100)} NOT NULL, LastName ${t.text(100)} NOT NULL,
      Email ${t.text(254)}, CompanyID ${t.int} NOT NULL, Salary ${t.money}, Notes ${t.text(1000)}, ${audit}, VersionID ${t.int} NOT NULL)`,
    `CREATE TABLE Orders (ID ${t.int} NOT NULL PRIMARY KEY, Number ${t.text(30)} NOT NULL, CompanyID ${t.int},
      Total ${t.money} NOT NULL, VersionID ${t.int} NOT NULL)`,
    `CREATE TABLE OrderLines (ID ${t.int} NOT NULL PRIMARY KEY, OrderID ${t.int} NOT NULL, Product ${t.text(100)} NOT NULL,
      Quantity ${t.int} NOT NULL, Price ${t.money} NOT NULL, VersionID ${t.int} NOT NULL)`,
    `CREATE INDEX IX_Employees_Company ON Employees (CompanyID)`,
    `CREATE INDEX IX_OrderLines_Order ON OrderLines (OrderID)`,
  ];
}

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

/** Whether a table exists, asked in a way every engine answers. */
async function tableExists(context: Context, table: string): Promise<boolean> {
  try {
    await context.query(`SELECT COUNT(*) FROM ${context.database.dialect.quoteIdentifier(table)}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the demo's tables and sequences where they are missing; with `reset` drops them first.
 * Answers whether the tables were (re)created, so the caller knows to seed them.
 */
export async function ensureDemoSchema(context: Context, reset: boolean): Promise<boolean> {
  const engine = context.database.dialect.name;
  const q = (name: string): string => context.database.dialect.quoteIdentifier(name);
  if (reset) {
    for (const table of [...demoTables].reverse()) await context.execute(`DROP TABLE IF EXISTS ${q(table)}`);
    if (engine !== "sqlite") for (const sequence of demoSequences) await context.execute(`DROP SEQUENCE IF EXISTS ${q(sequence)}`);
  } else if (await tableExists(context, "Companies")) {
    if (engine === "sqlite") await convertSqliteMoney(context);
    return false;
  }
  for (const statement of demoTableStatements(engine)) await context.execute(statement);
  if (engine === "sqlite") await context.execute(`PRAGMA user_version = ${sqliteMoneyInCents}`);
  if (engine !== "sqlite") for (const sequence of demoSequences) await context.execute(`CREATE SEQUENCE IF NOT EXISTS ${q(sequence)}`);
  return true;
}
