// The entity, controller, server and engines of the streaming suites (exports and NDJSON imports), run on
// SQLite, PostgreSQL and MariaDB through real sockets. Each run has data of its own: a SQLite file in a
// temporary directory, a PostgreSQL schema and a MariaDB database named with the pid and a random suffix, and
// on PostgreSQL an application name of the run's own, so that counting its statements counts only this run's.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnection } from "mariadb";
import pg from "pg";
import {
  Column,
  Context,
  type Database,
  DeletedAt,
  DeletedBy,
  Lazy,
  MaxLength,
  PrimaryKey,
  Range,
  Required,
  Schema,
  Sequence,
  Table,
  TenantColumn,
  Type,
  VersionColumn,
} from "tenon";
import {
  HttpContext,
  HttpEntityController,
  type HttpFilterParameters,
  type HttpEntityReader,
  type HttpEntityWriter,
  type HttpRequest,
  type HttpServer,
} from "tenon/http";
import { MariaDbDatabase } from "tenon/mariadb";
import { PostgresDatabase } from "tenon/postgres";
import { SqliteDatabase, type SqliteDriverName } from "tenon/sqlite";
import BetterSqlite3 from "better-sqlite3";
import { mariaDbUrl } from "../../../orm/harness-mariadb.js";
import { postgresUrl } from "../../../orm/harness-postgres.js";
import { createMariaDbScratch, type ScratchDatabase } from "../../../support/scratch-database.js";
import { mainSqliteDriver } from "../../../support/sqlite-drivers.js";
import { started } from "../../http-test-client.js";

/** A shelf (what an item refers to). */
@Table("StreamShelves")
@Sequence("StreamShelvesID")
export class Shelf {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.varchar(100)) title = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An item: text, decimals, floats, booleans, dates, a reference, a tenant and soft delete. */
@Table("StreamItems")
@Sequence("StreamItemsID")
export class Item {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Required() @MaxLength(200) @Column("Name", Type.varchar(200)) name = "";
  @Column("Note", Type.varchar(2000).orNull) note: string | null = null;
  @Range(0, 1000000) @Column("Amount", Type.decimal(12, 2).orNull) amount: string | null = null;
  @Column("Weight", Type.float.orNull) weight: number | null = null;
  @Column("Active", Type.boolean) active = true;
  @Column("MadeAt", Type.date.orNull) madeAt: Date | null = null;
  @Column(
    "ShelfID",
    Type.lazy(() => Shelf),
  )
  shelf = new Lazy<Shelf>();
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.varchar(50)) deletedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** What a test attaches to the readers and writers the controller creates. */
export const streamHooks: {
  reader?: (reader: HttpEntityReader<Item>) => void;
  writer?: (writer: HttpEntityWriter<Item>) => void;
  filterParameters?: HttpFilterParameters;
} = {};

let current: Database | undefined;

/** The request's context: the session of the caller's tenant (the `X-Tenant` header), created on first use. */
export class StreamContext implements AsyncDisposable {
  #orm: HttpContext | undefined;
  #request: HttpRequest | undefined;
  get orm(): HttpContext {
    if (this.#orm === undefined) {
      if (current === undefined) throw new Error("no database");
      this.#orm = new HttpContext(current);
      this.#orm.onGetCurrentTenant = () => this.#request?.header("x-tenant");
      this.#orm.onGetCurrentUser = () => "streamer";
    }
    return this.#orm;
  }
  attachRequest(request: HttpRequest): void {
    this.#request = request;
  }
  abort(): void {
    void this.#orm?.cancel();
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#orm?.dispose();
  }
}

/** /items: the generic controller. */
export class ItemController extends HttpEntityController<StreamContext, Item> {
  protected readonly entityClass = Item;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override get filterParameters(): HttpFilterParameters {
    return streamHooks.filterParameters ?? super.filterParameters;
  }
  protected override createReader(): HttpEntityReader<Item> {
    const reader = super.createReader();
    streamHooks.reader?.(reader);
    return reader;
  }
  protected override createWriter(): HttpEntityWriter<Item> {
    const writer = super.createWriter();
    streamHooks.writer?.(writer);
    return writer;
  }
}

/** One engine's database for a streaming suite, and what the suite reads of it directly. */
export interface StreamingDatabase {
  readonly database: Database;
  /**
   * How many statements or snapshots of this run the server holds now (PostgreSQL: this run's connections
   * active or idle in a transaction; MariaDB: this run's database's connections running a query or holding a
   * transaction; SQLite: 1 when a reader keeps the write-ahead log from being checkpointed, else 0).
   */
  held(): Promise<number>;
  /** Rows of the items table, read directly (bypassing Tenon): `SELECT COUNT(*)` and the like. */
  count(where?: string): Promise<number>;
  close(): Promise<void>;
}

/** An engine the streaming suites run on. */
export interface StreamingEngine {
  readonly name: string;
  /** Why it cannot run here, or undefined. */
  unreachable(): Promise<string | undefined>;
  open(): Promise<StreamingDatabase>;
}

const runTag = `tenon_stream_${process.pid}_${randomBytes(4).toString("hex")}`;

/** SQLite through `driver` on a file in a temporary directory, in WAL mode (read directly with better-sqlite3). */
export function sqliteStreamingWith(driver: SqliteDriverName): StreamingEngine {
  return {
    name: driver === "node:sqlite" ? "SQLite (node:sqlite)" : "SQLite",
    unreachable: async () => undefined,
    async open() {
      const directory = mkdtempSync(join(tmpdir(), "tenon-stream-"));
      const filename = join(directory, "stream.sqlite");
      const database = new SqliteDatabase({ filename, driver });
      await Schema.apply(database, [Shelf, Item], { idempotencyKeys: true });
      const direct = openDirect(filename, driver);
      return {
        database,
        async held() {
          // A reader that holds an old snapshot keeps a TRUNCATE checkpoint from finishing: busy 1.
          direct.run(
            "INSERT INTO StreamShelves (ID, Title, VersionID) VALUES (?, 'probe', 0)",
            1_000_000 + Math.floor(Math.random() * 1e9),
          );
          return Number(direct.first("PRAGMA wal_checkpoint(TRUNCATE)")[0]);
        },
        async count(where = "1 = 1") {
          return Number(direct.first(`SELECT COUNT(*) FROM StreamItems WHERE ${where}`)[0]);
        },
        async close() {
          direct.close();
          await database.close();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  };
}

/** A connection of the test's own to a SQLite file, through the driver under test (no busy wait). */
interface DirectSqlite {
  run(sql: string, ...parameters: unknown[]): void;
  /** The first row, as an array. */
  first(sql: string): unknown[];
  close(): void;
}

function openDirect(filename: string, driver: SqliteDriverName): DirectSqlite {
  if (driver === "node:sqlite") {
    type Statement = { run(...p: unknown[]): unknown; get(): unknown; setReturnArrays(on: boolean): void };
    const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as {
      DatabaseSync: new (file: string) => { prepare(sql: string): Statement; exec(sql: string): void; close(): void };
    };
    const db = new DatabaseSync(filename);
    db.exec("PRAGMA busy_timeout = 0");
    return {
      run: (sql, ...parameters) => void db.prepare(sql).run(...parameters),
      first: (sql) => {
        const statement = db.prepare(sql);
        statement.setReturnArrays(true);
        return statement.get() as unknown[];
      },
      close: () => db.close(),
    };
  }
  const db = new BetterSqlite3(filename);
  db.pragma("busy_timeout = 0");
  return {
    run: (sql, ...parameters) => void db.prepare(sql).run(...parameters),
    first: (sql) => db.prepare(sql).raw(true).get() as unknown[],
    close: () => db.close(),
  };
}

/** SQLite through better-sqlite3 (node:sqlite where it cannot run). */
export const sqliteStreaming: StreamingEngine = sqliteStreamingWith(mainSqliteDriver);

/** PostgreSQL: a schema of the run's own on the shared test server, the pool's connections named by the run's tag. */
export const postgresStreaming: StreamingEngine = {
  name: "PostgreSQL",
  async unreachable() {
    const { postgresUnreachable } = await import("../../../orm/harness-postgres.js");
    return postgresUnreachable();
  },
  async open() {
    const schema = `${runTag}_${randomBytes(2).toString("hex")}`;
    const direct = new pg.Client({ connectionString: postgresUrl });
    direct.on("error", () => {});
    await direct.connect();
    await direct.query(`CREATE SCHEMA ${schema}`);
    const database = new PostgresDatabase({ connectionString: postgresUrl, schema, poolSize: 6, applicationName: schema });
    await Schema.apply(database, [Shelf, Item], { idempotencyKeys: true });
    return {
      database,
      async held() {
        const result = await direct.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')",
          [schema],
        );
        return result.rows[0].n as number;
      },
      async count(where = "1 = 1") {
        return Number((await direct.query(`SELECT COUNT(*) AS n FROM ${schema}.StreamItems WHERE ${where}`)).rows[0].n);
      },
      async close() {
        await database.close();
        await direct.query(`DROP SCHEMA ${schema} CASCADE`);
        await direct.end();
      },
    };
  },
};

/** MariaDB: a database of the run's own on the shared test server. */
export const mariaDbStreaming: StreamingEngine = {
  name: "MariaDB",
  async unreachable() {
    const { mariaDbUnreachable } = await import("../../../orm/harness-mariadb.js");
    return mariaDbUnreachable();
  },
  async open() {
    const scratch: ScratchDatabase = await createMariaDbScratch(mariaDbUrl, { prefix: "tenon_stream" });
    const database = new MariaDbDatabase({ connectionString: scratch.url, poolSize: 6 });
    await Schema.apply(database, [Shelf, Item], { idempotencyKeys: true });
    const watcher = await createConnection({ ...connectionOf(mariaDbUrl), connectTimeout: 5000 });
    return {
      database,
      async held() {
        const rows = (await watcher.query(
          `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST p WHERE p.DB = ? AND p.ID <> CONNECTION_ID()
             AND (p.COMMAND = 'Query' OR EXISTS (SELECT 1 FROM information_schema.INNODB_TRX t WHERE t.trx_mysql_thread_id = p.ID))`,
          [scratch.name],
        )) as { n: bigint | number }[];
        return Number(rows[0].n);
      },
      async count(where = "1 = 1") {
        const rows = await scratch.rows(`SELECT COUNT(*) AS n FROM StreamItems WHERE ${where}`);
        return Number(rows[0].n);
      },
      async close() {
        await watcher.end().catch(() => {});
        await database.close();
        await scratch.close();
      },
    };
  },
};

function connectionOf(server: string): { host: string; port: number; user: string; password?: string } {
  const url = new URL(server);
  return {
    host: url.hostname,
    port: url.port === "" ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: url.password === "" ? undefined : decodeURIComponent(url.password),
  };
}

/** A running server over `database` with the items controller at /items, and how to stop it. */
export async function startStreamingServer(
  database: Database,
  setup: (server: HttpServer<StreamContext>) => void = () => {},
): Promise<{ port: number; stop(): Promise<void> }> {
  current = database;
  const server = await started(StreamContext, (s) => {
    s.allowAnonymous = true;
    s.registerController(ItemController, "/items");
    setup(s);
  });
  return {
    port: server.port,
    stop: async () => {
      await server.stop();
      current = undefined;
    },
  };
}

/** An item's values, for seeding. */
export interface SeedItem {
  readonly tenant: string;
  readonly name: string;
  readonly note?: string | null;
  readonly amount?: string | null;
  readonly weight?: number | null;
  readonly active?: boolean;
  readonly madeAt?: Date | null;
  readonly shelf?: number | null;
  readonly deleted?: boolean;
}

/** Inserts shelves and items directly through an unscoped session (1,000 rows a statement). */
export async function seed(database: Database, shelves: readonly string[], items: readonly SeedItem[]): Promise<number[]> {
  const context = new Context(database);
  context.unscoped = true;
  try {
    const shelfEntities = shelves.map((title) => Object.assign(new Shelf(), { title }));
    if (shelfEntities.length > 0) await context.insertAll(shelfEntities);
    const entities = items.map((item) => {
      const entity = new Item();
      entity.tenantId = item.tenant;
      entity.name = item.name;
      entity.note = item.note ?? null;
      entity.amount = item.amount ?? null;
      entity.weight = item.weight ?? null;
      entity.active = item.active ?? true;
      entity.madeAt = item.madeAt ?? null;
      if (item.shelf !== undefined && item.shelf !== null) entity.shelf.id = shelfEntities[item.shelf].id;
      return entity;
    });
    for (let start = 0; start < entities.length; start += 1000) await context.insertAll(entities.slice(start, start + 1000));
    const deleted = entities.filter((_, index) => items[index].deleted === true);
    if (deleted.length > 0) await context.deleteAll(deleted);
    return shelfEntities.map((shelf) => shelf.id);
  } finally {
    await context.dispose();
  }
}
