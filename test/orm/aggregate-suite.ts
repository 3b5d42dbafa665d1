// The aggregate route (`POST {base}/aggregate`) against reference SQL written by hand, on one engine: a table of
// 10^5 sales of two tenants (soft-deleted rows, NULLs in every measured column, a reference to stores of which
// one is soft-deleted), and a generated series of questions (random groups, metrics, where, having, order and
// page sizes) sent over a real socket; each answer must be exactly what the engine's own SQL, written here
// without Tenon, gives after the rules of docs/crud.md (having, NULL lowest, pages) are applied in the test.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Column, DeletedAt, Lazy, PrimaryKey, Sequence, Table, TenantColumn, Type, type Database } from "tenon";
import { HttpContext, HttpEntityController, HttpFilterParameters, type HttpRequest, HttpServer } from "tenon/http";
import { ask } from "../http/http-test-client.js";
import type { EngineHarness, TestDatabase } from "./harness.js";
import { seededRandom } from "../support/seeded-random.js";

/** A store of a tenant (the target of `Sale.store`); soft delete. */
@Table("AggStores")
@Sequence("AggStoresID")
export class AggStore {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Name", Type.varchar(40)) name = "";
  @Column("City", Type.varchar(40).orNull) city: string | null = null;
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
}

/** A sale: a column of every measured kind, each with NULLs; soft delete; a tenant. */
@Table("AggSales")
@Sequence("AggSalesID")
export class AggSale {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Region", Type.varchar(20).orNull) region: string | null = null;
  @Column("Channel", Type.varchar(20)) channel = "";
  @Column("Units", Type.int32.orNull) units: number | null = null;
  @Column("Big", Type.int64.orNull) big: bigint | null = null;
  @Column("Amount", Type.decimal(18, 2).orNull) amount: string | null = null;
  @Column("Ratio", Type.float.orNull) ratio: number | null = null;
  @Column("Active", Type.boolean) active = true;
  @Column("SoldAt", Type.date.orNull) soldAt: Date | null = null;
  @Column(
    "StoreID",
    Type.lazy(() => AggStore),
  )
  store = new Lazy<AggStore>();
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
}

/** The ceiling of groups of the suite's route (small, so that some generated questions pass it). */
export const suiteMaxGroups = 1500;

let database: Database | undefined;

/** The request's session; the tenant comes from `X-Tenant`. */
class AggregateContext implements AsyncDisposable {
  #orm: HttpContext | undefined;
  #tenant: string | undefined;
  get orm(): HttpContext {
    if (this.#orm === undefined) {
      if (database === undefined) throw new Error("The aggregate suite's database is not open.");
      this.#orm = new HttpContext(database);
      this.#orm.onGetCurrentTenant = () => this.#tenant;
    }
    return this.#orm;
  }
  attachRequest(request: HttpRequest): void {
    this.#tenant = request.header("x-tenant");
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#orm?.dispose();
  }
}

class SaleController extends HttpEntityController<AggregateContext, AggSale> {
  protected readonly entityClass = AggSale;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override get filterParameters(): HttpFilterParameters {
    return new HttpFilterParameters({ maxGroups: suiteMaxGroups });
  }
}

const regions = ["east", "north", "south", "west"];
const channels = ["app", "mail", "phone", "shop", "web"];
const storeNames = ["alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "ivy", "juniper"];
const cities = ["avon", "bath", "cork", "derry"];
const tenants = ["north", "south"];
/** Stores 1 to 12 are north's, 13 to 20 south's; store 5 is soft-deleted. */
const storeTenant = (id: number): string => (id <= 12 ? "north" : "south");

/** One generated sale, as the test writes it and reads it back. */
interface SaleRow {
  readonly id: number;
  readonly tenant: string;
  readonly region: string | null;
  readonly channel: string;
  readonly units: number | null;
  readonly big: bigint | null;
  readonly cents: bigint | null;
  readonly ratio: number | null;
  readonly active: boolean;
  readonly soldAt: Date | null;
  readonly store: number | null;
  readonly deleted: boolean;
}

function sales(count: number, next: () => number): SaleRow[] {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  const start = Date.UTC(2023, 0, 1);
  const rows: SaleRow[] = [];
  for (let id = 1; id <= count; id++) {
    const tenant = next() < 0.6 ? "north" : "south";
    const storeIds = tenant === "north" ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] : [13, 14, 15, 16, 17, 18, 19, 20];
    rows.push({
      id,
      tenant,
      region: next() < 0.1 ? null : pick(regions),
      channel: pick(channels),
      units: next() < 0.08 ? null : Math.floor(next() * 21),
      big: next() < 0.05 ? null : BigInt(Math.floor(next() * 1e12)) + 3_000_000_000n,
      cents: next() < 0.1 ? null : BigInt(Math.floor(next() * 1_050_000) - 50_000),
      ratio: next() < 0.05 ? null : (Math.floor(next() * 441) - 40) / 4,
      active: next() < 0.5,
      soldAt: next() < 0.03 ? null : new Date(start + Math.floor(next() * 730 * 86_400_000)),
      store: next() < 0.04 ? null : pick(storeIds),
      deleted: next() < 0.05,
    });
  }
  return rows;
}

/** How one engine writes literals and the periods of a date, by hand (not through Tenon's dialects). */
interface ReferenceSql {
  boolean(value: boolean): string;
  decimal(cents: bigint): string;
  timestamp(date: Date): string;
  truncate(column: string, unit: string): string;
}

function referenceSqlOf(harness: EngineHarness): ReferenceSql {
  const decimalText = (cents: bigint): string => {
    const negative = cents < 0n;
    const digits = (negative ? -cents : cents).toString().padStart(3, "0");
    return `${negative ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  };
  if (harness.name.startsWith("SQLite")) {
    return {
      boolean: (value) => (value ? "1" : "0"),
      decimal: (cents) => cents.toString(),
      timestamp: (date) => `'${date.toISOString()}'`,
      truncate: (column, unit) =>
        unit === "day"
          ? `substr(${column}, 1, 10) || 'T00:00:00.000Z'`
          : unit === "month"
            ? `substr(${column}, 1, 7) || '-01T00:00:00.000Z'`
            : unit === "year"
              ? `substr(${column}, 1, 4) || '-01-01T00:00:00.000Z'`
              : `date(${column}, 'weekday 0', '-6 days') || 'T00:00:00.000Z'`,
    };
  }
  if (harness.name.startsWith("PostgreSQL")) {
    return {
      boolean: (value) => (value ? "TRUE" : "FALSE"),
      decimal: decimalText,
      timestamp: (date) => `TIMESTAMPTZ '${date.toISOString()}'`,
      truncate: (column, unit) => `date_trunc('${unit}', ${column}, 'UTC')`,
    };
  }
  return {
    boolean: (value) => (value ? "1" : "0"),
    decimal: decimalText,
    timestamp: (date) => `'${date.toISOString().slice(0, 23).replace("T", " ")}'`,
    truncate: (column, unit) =>
      unit === "day"
        ? `DATE(${column})`
        : unit === "month"
          ? `DATE_FORMAT(${column}, '%Y-%m-01')`
          : unit === "year"
            ? `MAKEDATE(YEAR(${column}), 1)`
            : `SUBDATE(DATE(${column}), WEEKDAY(${column}))`,
  };
}

/** What the answer holds for one group or metric, and how the reference's raw value becomes that JSON. */
type ValueKind = "text" | "boolean" | "integer" | "int64" | "decimal2" | "decimal6" | "float" | "instant";

interface GroupChoice {
  readonly body: string | { column: string; truncate: string; as?: string };
  readonly name: string;
  readonly sql: (ref: ReferenceSql) => string;
  readonly kind: ValueKind;
}

interface MetricChoice {
  readonly body: { fn: string; column?: string; as: string };
  readonly name: string;
  /** The reference's select expressions: one, or for an average its sum and count. */
  readonly sql: readonly string[];
  readonly kind: ValueKind;
  readonly average?: "exact" | "double";
}

type Json = string | number | boolean | null;

const groupChoices: readonly GroupChoice[] = [
  { body: "region", name: "region", sql: () => "t.Region", kind: "text" },
  { body: "channel", name: "channel", sql: () => "t.Channel", kind: "text" },
  { body: "active", name: "active", sql: () => "t.Active", kind: "boolean" },
  { body: "units", name: "units", sql: () => "t.Units", kind: "integer" },
  { body: "storeId", name: "storeId", sql: () => "t.StoreID", kind: "integer" },
  { body: "store.name", name: "store.name", sql: () => "s.Name", kind: "text" },
  { body: "store.city", name: "store.city", sql: () => "s.City", kind: "text" },
  ...["day", "week", "month", "year"].map(
    (unit): GroupChoice => ({
      body: { column: "soldAt", truncate: unit, as: unit },
      name: unit,
      sql: (ref) => ref.truncate("t.SoldAt", unit),
      kind: "instant",
    }),
  ),
];

/** Far more groups than the ceiling: each answers 400. */
const bigGroup: GroupChoice = { body: "big", name: "big", sql: () => "t.Big", kind: "int64" };

const metricChoices: readonly MetricChoice[] = [
  { body: { fn: "count", as: "n" }, name: "n", sql: ["COUNT(*)"], kind: "integer" },
  { body: { fn: "count", column: "units", as: "unitsCounted" }, name: "unitsCounted", sql: ["COUNT(t.Units)"], kind: "integer" },
  {
    body: { fn: "countDistinct", column: "channel", as: "channels" },
    name: "channels",
    sql: ["COUNT(DISTINCT t.Channel)"],
    kind: "integer",
  },
  { body: { fn: "countDistinct", column: "storeId", as: "stores" }, name: "stores", sql: ["COUNT(DISTINCT t.StoreID)"], kind: "integer" },
  { body: { fn: "sum", column: "units", as: "unitsTotal" }, name: "unitsTotal", sql: ["SUM(t.Units)"], kind: "integer" },
  { body: { fn: "sum", column: "big", as: "bigTotal" }, name: "bigTotal", sql: ["SUM(t.Big)"], kind: "int64" },
  { body: { fn: "sum", column: "amount", as: "total" }, name: "total", sql: ["SUM(t.Amount)"], kind: "decimal2" },
  { body: { fn: "sum", column: "ratio", as: "ratios" }, name: "ratios", sql: ["SUM(t.Ratio)"], kind: "float" },
  {
    body: { fn: "avg", column: "amount", as: "meanAmount" },
    name: "meanAmount",
    sql: ["SUM(t.Amount)", "COUNT(t.Amount)"],
    kind: "decimal6",
    average: "exact",
  },
  {
    body: { fn: "avg", column: "units", as: "meanUnits" },
    name: "meanUnits",
    sql: ["SUM(t.Units)", "COUNT(t.Units)"],
    kind: "float",
    average: "double",
  },
  {
    body: { fn: "avg", column: "ratio", as: "meanRatio" },
    name: "meanRatio",
    sql: ["SUM(t.Ratio)", "COUNT(t.Ratio)"],
    kind: "float",
    average: "double",
  },
  { body: { fn: "min", column: "amount", as: "lowest" }, name: "lowest", sql: ["MIN(t.Amount)"], kind: "decimal2" },
  { body: { fn: "max", column: "amount", as: "highest" }, name: "highest", sql: ["MAX(t.Amount)"], kind: "decimal2" },
  { body: { fn: "min", column: "soldAt", as: "first" }, name: "first", sql: ["MIN(t.SoldAt)"], kind: "instant" },
  { body: { fn: "max", column: "soldAt", as: "last" }, name: "last", sql: ["MAX(t.SoldAt)"], kind: "instant" },
  { body: { fn: "max", column: "big", as: "bigMax" }, name: "bigMax", sql: ["MAX(t.Big)"], kind: "int64" },
  { body: { fn: "min", column: "ratio", as: "ratioMin" }, name: "ratioMin", sql: ["MIN(t.Ratio)"], kind: "float" },
  { body: { fn: "max", column: "units", as: "unitsMax" }, name: "unitsMax", sql: ["MAX(t.Units)"], kind: "integer" },
];

/** A where item of the body and the same condition in the reference's SQL. */
interface WhereChoice {
  readonly body: unknown;
  readonly sql: (ref: ReferenceSql) => string;
}

const whereChoices: readonly WhereChoice[] = [
  { body: { columnName: "active", condition: "=", value: true }, sql: (ref) => `t.Active = ${ref.boolean(true)}` },
  { body: { columnName: "units", condition: ">", value: 5 }, sql: () => "t.Units > 5" },
  { body: { columnName: "region", condition: "IS NULL" }, sql: () => "t.Region IS NULL" },
  { body: { columnName: "amount", condition: ">=", value: "1000.00" }, sql: (ref) => `t.Amount >= ${ref.decimal(100_000n)}` },
  { body: { columnName: "channel", condition: "IN", value: ["web", "app"] }, sql: () => "t.Channel IN ('web', 'app')" },
  {
    body: { columnName: "soldAt", condition: ">=", value: "2024-01-01T00:00:00.000Z" },
    sql: (ref) => `t.SoldAt >= ${ref.timestamp(new Date(Date.UTC(2024, 0, 1)))}`,
  },
  {
    body: {
      or: [
        { columnName: "units", condition: "<", value: 3 },
        { columnName: "amount", condition: "IS NULL" },
      ],
    },
    sql: () => "(t.Units < 3 OR t.Amount IS NULL)",
  },
];

/** The JSON of a raw value the reference SQL read. */
function jsonOf(kind: ValueKind, raw: unknown): Json {
  if (raw === null || raw === undefined) return null;
  switch (kind) {
    case "text":
      return String(raw);
    case "boolean":
      return typeof raw === "boolean" ? raw : Number(raw) !== 0;
    case "integer":
    case "float":
      return Number(raw);
    case "int64":
      return BigInt(String(raw).replace(/\.0*$/, "")).toString();
    case "decimal2":
      return typeof raw === "bigint" || typeof raw === "number" ? centsText(BigInt(raw)) : centsText(centsOf(String(raw)));
    case "decimal6":
      return String(raw);
    case "instant": {
      if (raw instanceof Date) return raw.toISOString();
      const text = String(raw);
      if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return `${text}T00:00:00.000Z`;
      if (/^\d{4}-\d{2}-\d{2} /.test(text)) return new Date(`${text.replace(" ", "T")}Z`).toISOString();
      return new Date(text).toISOString();
    }
  }
}

function centsOf(text: string): bigint {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = text.replace("-", "").split(".");
  const cents = BigInt(whole || "0") * 100n + BigInt(`${fraction}00`.slice(0, 2));
  return negative ? -cents : cents;
}

function centsText(cents: bigint): string {
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** The average of an exact decimal sum (in cents) over `count` values, with 6 digits, rounded half away from zero. */
function averageText(sumCents: bigint, count: bigint): string {
  const magnitude = sumCents < 0n ? -sumCents : sumCents;
  const units = (magnitude * 10_000n * 2n + count) / (2n * count);
  const digits = units.toString().padStart(7, "0");
  const text = `${digits.slice(0, -6)}.${digits.slice(-6)}`;
  return sumCents < 0n && units !== 0n ? `-${text}` : text;
}

/** Compares two answer values of a kind: NULL lowest, numbers and decimals by value, text by code units. */
function compare(kind: ValueKind, a: Json, b: Json): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  switch (kind) {
    case "text":
    case "instant":
      return a < b ? -1 : a > b ? 1 : 0;
    case "boolean":
      return Number(a) - Number(b);
    case "integer":
    case "float":
      return (a as number) - (b as number);
    case "int64": {
      const x = BigInt(a as string);
      const y = BigInt(b as string);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case "decimal2":
    case "decimal6": {
      const scale = kind === "decimal2" ? 2 : 6;
      const units = (text: string): bigint => {
        const negative = text.startsWith("-");
        const [whole, fraction = ""] = text.replace("-", "").split(".");
        const value = BigInt(whole + fraction.padEnd(scale, "0"));
        return negative ? -value : value;
      };
      const x = units(a as string);
      const y = units(b as string);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

/** A generated question: the body, and what the reference needs to answer it. */
interface Question {
  readonly title: string;
  readonly tenant: string;
  readonly groups: readonly GroupChoice[];
  readonly metrics: readonly MetricChoice[];
  readonly where: readonly WhereChoice[];
  readonly having: readonly { readonly metric: MetricChoice; readonly condition: string; readonly value: Json }[];
  readonly orderBy: readonly { readonly name: string; readonly kind: ValueKind; readonly direction: "ASC" | "DESC" }[];
  readonly limit: number | undefined;
}

function generate(count: number, next: () => number): Question[] {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  const some = <T>(values: readonly T[], most: number): T[] => {
    const chosen = new Set<T>();
    const wanted = Math.min(values.length, Math.floor(next() * (most + 1)));
    while (chosen.size < wanted) chosen.add(pick(values));
    return [...chosen];
  };
  const questions: Question[] = [];
  for (let index = 0; index < count; index++) {
    // Every seventh question groups by a column of about 10^5 values: more groups than the ceiling.
    let groups = index % 7 === 6 ? [bigGroup] : some(groupChoices, 2);
    // Two periods of one date would name the same column twice under different names: allowed, but keep one.
    groups = groups.filter((group, at) => group.kind !== "instant" || groups.findIndex((g) => g.kind === "instant") === at);
    const metrics = some(metricChoices, 3);
    if (metrics.length === 0) metrics.push(metricChoices[0]);
    const where = some(whereChoices, 2);
    const having: Question["having"][number][] = [];
    if (next() < 0.4) {
      const metric = pick(metrics);
      const threshold: Record<ValueKind, () => Json> = {
        integer: () => Math.floor(next() * 60),
        int64: () => (BigInt(Math.floor(next() * 5e13)) + 10_000_000_000n).toString(),
        decimal2: () => centsText(BigInt(Math.floor(next() * 500_000))),
        decimal6: () => `${Math.floor(next() * 6000)}.${String(Math.floor(next() * 1e6)).padStart(6, "0")}`,
        float: () => Math.floor(next() * 200) / 8,
        text: () => null,
        boolean: () => null,
        instant: () => new Date(Date.UTC(2023, Math.floor(next() * 24), 1)).toISOString(),
      };
      const condition = pick([">", ">=", "<", "<=", "<>", "IS NULL", "IS NOT NULL"]);
      having.push({ metric, condition, value: condition.startsWith("IS") ? null : threshold[metric.kind]() });
    }
    const terms = [
      ...groups.map((group) => ({ name: group.name, kind: group.kind })),
      ...metrics.map((metric) => ({ name: metric.name, kind: metric.kind })),
    ];
    const orderBy = some(terms, 2).map((term) => ({ ...term, direction: next() < 0.5 ? ("ASC" as const) : ("DESC" as const) }));
    const limit = pick([undefined, 7, 40, 250]);
    const tenant = pick(tenants);
    const title = `${groups.map((g) => g.name).join("+") || "(all rows)"} | ${metrics.map((m) => m.name).join(",")}${where.length > 0 ? ` | ${where.length} where` : ""}${having.length > 0 ? ` | having ${having[0].metric.name} ${having[0].condition}` : ""}${orderBy.length > 0 ? ` | order ${orderBy.map((o) => `${o.name} ${o.direction}`).join(",")}` : ""} | limit ${limit ?? "default"} | ${tenant}`;
    questions.push({ title, tenant, groups, metrics, where, having, orderBy, limit });
  }
  return questions;
}

/** The body a question sends. */
function bodyOf(question: Question): Record<string, unknown> {
  const body: Record<string, unknown> = { metrics: question.metrics.map((metric) => metric.body) };
  if (question.groups.length > 0) body.groupBy = question.groups.map((group) => group.body);
  if (question.where.length > 0) body.where = question.where.map((where) => where.body);
  if (question.having.length > 0)
    body.having = question.having.map((h) =>
      h.value === null
        ? { columnName: h.metric.name, condition: h.condition }
        : { columnName: h.metric.name, condition: h.condition, value: h.value },
    );
  if (question.orderBy.length > 0) body.orderBy = question.orderBy.map((item) => ({ columnName: item.name, direction: item.direction }));
  if (question.limit !== undefined) body.limit = question.limit;
  return body;
}

/** The aggregate route on one engine, against the engine's own SQL. */
export function aggregateSuite(harness: EngineHarness, options: { rows?: number; questions?: number } = {}): void {
  const rowCount = options.rows ?? 100_000;
  const questionCount = options.questions ?? 56;
  const seed = Number(process.env.TENON_AGGREGATE_SEED ?? 20261125);
  describe(`${harness.name}: aggregates answer what hand-written SQL answers (${rowCount} rows, seed ${seed})`, () => {
    let db: TestDatabase;
    let server: HttpServer<AggregateContext>;
    const ref = referenceSqlOf(harness);

    before(async () => {
      db = await harness.open();
      const t = harness.types;
      await db.exec(
        `CREATE TABLE AggStores (ID ${t.int32} NOT NULL PRIMARY KEY, TenantID ${t.varchar(20)} NOT NULL, Name ${t.varchar(40)} NOT NULL,
          City ${t.varchar(40)}, DeletedAt ${t.timestamp})`,
      );
      await db.exec(
        `CREATE TABLE AggSales (ID ${t.int32} NOT NULL PRIMARY KEY, TenantID ${t.varchar(20)} NOT NULL, Region ${t.varchar(20)},
          Channel ${t.varchar(20)} NOT NULL, Units ${t.int32}, Big ${t.int64}, Amount ${t.decimal(18, 2)}, Ratio ${t.float},
          Active ${t.boolean} NOT NULL, SoldAt ${t.timestamp}, StoreID ${t.int32}, DeletedAt ${t.timestamp})`,
      );
      const stores: string[] = [];
      for (let id = 1; id <= 20; id++) {
        const city = id % 6 === 0 ? "NULL" : `'${cities[id % cities.length]}'`;
        const deleted = id === 5 ? ref.timestamp(new Date(Date.UTC(2024, 5, 1))) : "NULL";
        stores.push(`(${id}, '${storeTenant(id)}', '${storeNames[id % storeNames.length]}', ${city}, ${deleted})`);
      }
      await db.exec(`INSERT INTO AggStores (ID, TenantID, Name, City, DeletedAt) VALUES ${stores.join(", ")}`);
      const rows = sales(rowCount, seededRandom(seed));
      const literal = (value: string | null): string => (value === null ? "NULL" : `'${value}'`);
      for (let start = 0; start < rows.length; start += 1000) {
        const values = rows
          .slice(start, start + 1000)
          .map(
            (row) =>
              `(${row.id}, '${row.tenant}', ${literal(row.region)}, '${row.channel}', ${row.units ?? "NULL"}, ${row.big ?? "NULL"}, ${
                row.cents === null ? "NULL" : ref.decimal(row.cents)
              }, ${row.ratio ?? "NULL"}, ${ref.boolean(row.active)}, ${row.soldAt === null ? "NULL" : ref.timestamp(row.soldAt)}, ${
                row.store ?? "NULL"
              }, ${row.deleted ? ref.timestamp(new Date(Date.UTC(2025, 0, 1))) : "NULL"})`,
          );
        await db.exec(
          `INSERT INTO AggSales (ID, TenantID, Region, Channel, Units, Big, Amount, Ratio, Active, SoldAt, StoreID, DeletedAt) VALUES ${values.join(", ")}`,
        );
      }
      database = db.database;
      server = new HttpServer(AggregateContext);
      server.port = 0;
      server.addBindAddress("127.0.0.1");
      server.allowAnonymous = true;
      server.registerController(SaleController, "/sales");
      await server.start();
    });

    after(async () => {
      await server?.stop();
      database = undefined;
      await db?.close();
    });

    const post = (tenant: string, body: unknown) =>
      ask(server.port, "/sales/aggregate", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", "X-Tenant": tenant },
      });

    /** The reference answer: the engine's groups and metrics by hand-written SQL, then having, order (NULL lowest) in the test. */
    async function reference(question: Question): Promise<Record<string, Json>[]> {
      const select = [
        ...question.groups.map((group, index) => `${group.sql(ref)} AS g${index}`),
        ...question.metrics.flatMap((metric, index) => metric.sql.map((sql, part) => `${sql} AS m${index}_${part}`)),
      ];
      const conditions = ["t.TenantID = ?", "t.DeletedAt IS NULL", ...question.where.map((where) => where.sql(ref))];
      let sql = `SELECT ${select.join(", ")} FROM AggSales t LEFT JOIN AggStores s ON s.ID = t.StoreID AND s.TenantID = t.TenantID AND s.DeletedAt IS NULL WHERE ${conditions.join(" AND ")}`;
      if (question.groups.length > 0) sql += ` GROUP BY ${question.groups.map((group) => group.sql(ref)).join(", ")}`;
      const raw = await db.rows(sql, [question.tenant]);
      const rows = raw.map((row) => {
        const values = Object.fromEntries(Object.entries(row).map(([key, value]) => [key.toLowerCase(), value]));
        const answer: Record<string, Json> = {};
        question.groups.forEach((group, index) => {
          answer[group.name] = jsonOf(group.kind, values[`g${index}`]);
        });
        question.metrics.forEach((metric, index) => {
          const first = values[`m${index}_0`];
          if (metric.average === undefined) {
            answer[metric.name] =
              metric.kind === "integer" && metric.sql[0].startsWith("COUNT") ? Number(first ?? 0) : jsonOf(metric.kind, first);
            return;
          }
          const count = Number(values[`m${index}_1`]);
          if (first === null || first === undefined || count === 0) answer[metric.name] = null;
          else if (metric.average === "double") answer[metric.name] = Number(typeof first === "bigint" ? first : String(first)) / count;
          else {
            const cents = typeof first === "bigint" || typeof first === "number" ? BigInt(first) : centsOf(String(first));
            answer[metric.name] = averageText(cents, BigInt(count));
          }
        });
        return answer;
      });
      const kept = rows.filter((row) =>
        question.having.every((h) => {
          const value = row[h.metric.name];
          if (h.condition === "IS NULL") return value === null;
          if (h.condition === "IS NOT NULL") return value !== null;
          if (value === null) return false;
          const order = compare(h.metric.kind, value, h.value);
          return (
            { ">": order > 0, ">=": order >= 0, "<": order < 0, "<=": order <= 0, "<>": order !== 0, "=": order === 0 }[h.condition] ??
            false
          );
        }),
      );
      const order = [
        ...question.orderBy,
        ...question.groups
          .filter((group) => !question.orderBy.some((item) => item.name === group.name))
          .map((group) => ({
            name: group.name,
            kind: group.kind,
            direction: "ASC" as const,
          })),
      ];
      return kept.sort((a, b) => {
        for (const item of order) {
          const result = compare(item.kind, a[item.name], b[item.name]);
          if (result !== 0) return item.direction === "ASC" ? result : -result;
        }
        return 0;
      });
    }

    it("the table holds 10^5 rows of two tenants, some soft-deleted", async () => {
      const counts = await db.rows(
        `SELECT TenantID AS tenant, COUNT(*) AS n, SUM(CASE WHEN DeletedAt IS NULL THEN 0 ELSE 1 END) AS deleted FROM AggSales GROUP BY TenantID ORDER BY TenantID`,
      );
      assert.equal(counts.length, 2);
      assert.equal(
        counts.reduce((sum, row) => sum + Number(row.n ?? row.N), 0),
        rowCount,
      );
      for (const row of counts) assert.ok(Number(row.deleted ?? row.DELETED) > 0);
    });

    const questions = generate(questionCount, seededRandom(seed + 1));
    questions.forEach((question, index) => {
      it(`question ${index + 1} answers the reference's groups, in order, page by page: ${question.title}`, async () => {
        const expected = await reference(question);
        const body = bodyOf(question);
        if (expected.length > suiteMaxGroups) {
          const answer = await post(question.tenant, body);
          assert.equal(answer.status, 400, answer.text);
          assert.match(
            (answer.json as { message: string }).message,
            new RegExp(`has ${expected.length} groups, more than the ${suiteMaxGroups}`),
          );
          return;
        }
        const pageSize = question.limit ?? 1000;
        const received: unknown[] = [];
        let cursor: string | undefined;
        // At most four pages: enough to cross page boundaries, without a walk of hundreds of pages.
        for (let page = 0; page < 4; page++) {
          const answer = await post(question.tenant, cursor === undefined ? body : { ...body, after: cursor });
          assert.equal(answer.status, 200, answer.text);
          const json = answer.json as { data: unknown[]; nextCursor?: string };
          received.push(...json.data);
          cursor = json.nextCursor;
          if (cursor === undefined) break;
          assert.equal(json.data.length, pageSize, "a page with a next cursor is full");
        }
        const compared = cursor === undefined ? expected : expected.slice(0, received.length);
        assert.deepEqual(received, compared);
        if (cursor === undefined) assert.equal(received.length, expected.length);
        else assert.ok(expected.length > received.length, "a cursor is answered only when more groups follow");
      });
    });
  });
}
