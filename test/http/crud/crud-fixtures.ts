// The entities, controllers and server of the generic CRUD suites: a real HttpServer on an ephemeral port
// over a real SQLite file in a temporary directory, read back directly with better-sqlite3.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DirectSqlite, openDirectSqlite } from "../../support/direct-sqlite.js";
import {
  Column,
  CreatedAt,
  CreatedBy,
  DeletedAt,
  DeletedBy,
  DetailColumn,
  Email,
  Filter,
  JsonIgnore,
  JsonIgnoreSerialize,
  Lazy,
  LazyList,
  MaxLength,
  NotFilterable,
  PrimaryKey,
  Range,
  Required,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
  type EntityClass,
} from "tenon";
import {
  Delete,
  HttpContext,
  HttpEntityController,
  HttpFilterParameters,
  HttpServer,
  type HttpEntityReader,
  type HttpEntityWriter,
  type HttpRequest,
} from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";
import { ask, type Answer } from "../http-test-client.js";

/** A category of widgets (the target of `Widget.category`). */
@Table("Categories")
@Sequence("CategoriesID")
export class Category {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Title", Type.varchar(50)) title = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/**
 * A widget: every filterable type, a not-filterable column, a JSON-ignored one, a never-serialized one,
 * validation rules, a relation, a detail list, all six change-tracking columns (soft delete) and a version.
 */
@Table("Widgets")
@Sequence("WidgetsID")
export class Widget {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Required() @MaxLength(50) @Column("Name", Type.varchar(50)) name = "";
  @Column("ArticleCode", Type.varchar(20).orNull) code: string | null = null;
  @Range(0, 1000) @Column("Quantity", Type.int32) quantity = 0;
  @Column("Price", Type.decimal(10, 2).orNull) price: string | null = null;
  @Column("Weight", Type.float.orNull) weight: number | null = null;
  @Column("Active", Type.boolean) active = true;
  @Column("MadeAt", Type.date.orNull) madeAt: Date | null = null;
  @Email() @Column("Email", Type.varchar(100).orNull) email: string | null = null;
  @NotFilterable @Column("Secret", Type.string.orNull) secret: string | null = null;
  @JsonIgnore @Column("Internal", Type.string.orNull) internal: string | null = null;
  @JsonIgnoreSerialize @Column("Password", Type.string.orNull) password: string | null = null;
  @Column(
    "CategoryID",
    Type.lazy(() => Category),
  )
  category = new Lazy<Category>();
  @DetailColumn("ID", "WidgetID", () => Part) parts = new LazyList<Part>();
  @CreatedAt @Column("CreatedAt", Type.date.orNull) createdAt: Date | null = null;
  @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string) updatedBy = "";
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string) deletedBy = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A part of a widget (its detail list); deleting one is a hard delete. */
@Table("Parts")
@Sequence("PartsID")
export class Part {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column(
    "WidgetID",
    Type.lazy(() => Widget),
  )
  widget = new Lazy<Widget>();
  @Required() @Column("Label", Type.varchar(50)) label = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** The tables of the suites. */
export const crudSchema = [
  `CREATE TABLE Categories (ID INTEGER NOT NULL PRIMARY KEY, Title TEXT NOT NULL, VersionID INTEGER NOT NULL)`,
  `CREATE TABLE Widgets (ID INTEGER NOT NULL PRIMARY KEY, Name TEXT NOT NULL, ArticleCode TEXT, Quantity INTEGER NOT NULL, Price INTEGER,
    Weight REAL, Active INTEGER NOT NULL, MadeAt TEXT, Email TEXT, Secret TEXT, Internal TEXT, Password TEXT, CategoryID INTEGER,
    CreatedAt TEXT, CreatedBy TEXT, UpdatedAt TEXT, UpdatedBy TEXT, DeletedAt TEXT, DeletedBy TEXT, VersionID INTEGER NOT NULL)`,
  `CREATE TABLE Parts (ID INTEGER NOT NULL PRIMARY KEY, WidgetID INTEGER NOT NULL, Label TEXT NOT NULL, VersionID INTEGER NOT NULL)`,
];

/** The hooks a test attaches to the readers and writers the controllers create, and what they recorded. */
export interface CrudHooks {
  reader?: (reader: HttpEntityReader<Widget>, context: HttpContext) => void;
  writer?: (writer: HttpEntityWriter<Widget>, context: HttpContext) => void;
  /** The class of the request's session (an application's subclass of `HttpContext`); `HttpContext` when unset. */
  contextClass?: typeof HttpContext;
}

/** The hooks in force (a test sets them and clears them after). */
export const hooks: CrudHooks = {};

let sharedDatabase: SqliteDatabase | undefined;

/** The per-request context: an `HttpContext` created on first use, given back after the response. */
export class CrudContext implements AsyncDisposable {
  #orm: HttpContext | undefined;
  #request: HttpRequest | undefined;

  /** The request's session; `*By` columns get the `X-Test-User` header. */
  get orm(): HttpContext {
    if (this.#orm === undefined) {
      if (sharedDatabase === undefined) throw new Error("The CRUD test database is not open.");
      this.#orm = new (hooks.contextClass ?? HttpContext)(sharedDatabase);
      this.#orm.onGetCurrentUser = () => this.#request?.header("x-test-user") ?? "tester";
    }
    return this.#orm;
  }

  /** Called by the server right after construction. */
  attachRequest(request: HttpRequest): void {
    this.#request = request;
  }

  /** Gives the connection back. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#orm?.dispose();
  }
}

abstract class WidgetControllerBase extends HttpEntityController<CrudContext, Widget> {
  protected readonly entityClass: EntityClass<Widget> = Widget;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override createReader(): HttpEntityReader<Widget> {
    const reader = super.createReader();
    hooks.reader?.(reader, this.httpContext);
    return reader;
  }
  protected override createWriter(): HttpEntityWriter<Widget> {
    const writer = super.createWriter();
    hooks.writer?.(writer, this.httpContext);
    return writer;
  }
}

/** /widgets: the defaults. */
export class WidgetController extends WidgetControllerBase {}

/** /small-widgets: maxLimit 3, at most 2 conditions and 1 order-by column. */
export class SmallWidgetController extends WidgetControllerBase {
  protected override get filterParameters(): HttpFilterParameters {
    return new HttpFilterParameters({ maxLimit: 3, maxWhereConditions: 2, maxOrderByColumns: 1 });
  }
}

/** /zero-widgets: every ceiling 0, which means the defaults. */
export class ZeroWidgetController extends WidgetControllerBase {
  protected override get filterParameters(): HttpFilterParameters {
    return new HttpFilterParameters({ maxLimit: 0, maxWhereConditions: 0, maxOrderByColumns: 0 });
  }
}

/** /unlimited-widgets: every ceiling negative, which means unlimited. */
export class UnlimitedWidgetController extends WidgetControllerBase {
  protected override get filterParameters(): HttpFilterParameters {
    return new HttpFilterParameters({ maxLimit: -1, maxWhereConditions: -1, maxOrderByColumns: -1 });
  }
}

/** /all-widgets: soft-deleted rows included (decided by the server, never by a body). */
export class AllWidgetController extends WidgetControllerBase {
  protected override get filterParameters(): HttpFilterParameters {
    return new HttpFilterParameters({ includeDeleted: true });
  }
}

/** /parts: a hard-deleted entity; also deletes through `HttpContext.delete(class, id, version)` directly. */
export class PartController extends HttpEntityController<CrudContext, Part> {
  protected readonly entityClass: EntityClass<Part> = Part;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }

  /** DELETE /parts/direct/{id}/{version}: the context's own delete by id and version. */
  @Delete("direct/?/?")
  async deleteDirect(id: number, version: number): Promise<{ id: number }> {
    await this.httpContext.delete(Part, id, version);
    return { id };
  }
}

/** A running CRUD server over a fresh SQLite file. */
export interface CrudServer {
  readonly port: number;
  readonly file: string;
  /** Sends a request; a non-string body is sent as JSON. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** Reads rows directly from the file (read-only, bypassing Tenon). */
  rows(sql: string, ...parameters: unknown[]): Record<string, unknown>[];
  /** Every table's rows and the schema, as text: what "the database unchanged" compares. */
  dump(): string;
  /** A hash of the database files' bytes. */
  fileHash(): string;
  /** Runs SQL directly on the file. */
  exec(sql: string): void;
  close(): Promise<void>;
}

/** Starts the server on port 0 with the CRUD controllers, over a fresh SQLite file filled by `seed`. */
export async function startCrudServer(seed: (db: DirectSqlite) => void): Promise<CrudServer> {
  const directory = mkdtempSync(join(tmpdir(), "tenon-crud-"));
  const file = join(directory, "crud.sqlite");
  const direct = openDirectSqlite(file);
  for (const sql of crudSchema) direct.exec(sql);
  seed(direct);
  direct.close();
  sharedDatabase = new SqliteDatabase({ filename: file, name: file });
  const server = new HttpServer(CrudContext);
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  server.allowAnonymous = true;
  server.registerController(WidgetController, "/widgets");
  server.registerController(SmallWidgetController, "/small-widgets");
  server.registerController(ZeroWidgetController, "/zero-widgets");
  server.registerController(UnlimitedWidgetController, "/unlimited-widgets");
  server.registerController(AllWidgetController, "/all-widgets");
  server.registerController(PartController, "/parts");
  await server.start();
  const port = server.port;
  const read = <T>(work: (db: DirectSqlite) => T): T => {
    const db = openDirectSqlite(file, { readonly: true });
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  const database = sharedDatabase;
  return {
    port,
    file,
    call(method, path, body, headers = {}) {
      const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
      const allHeaders = text === undefined ? headers : { "Content-Type": "application/json", ...headers };
      return ask(port, path, { method, body: text, headers: allHeaders });
    },
    rows: (sql, ...parameters) => read((db) => db.prepare(sql).all(...parameters) as Record<string, unknown>[]),
    dump: () =>
      read((db) => {
        const tables = db.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name").all() as { name: string; type: string }[];
        const parts = [JSON.stringify(tables)];
        for (const table of tables.filter((t) => t.type === "table")) {
          parts.push(JSON.stringify(db.prepare(`SELECT * FROM "${table.name}" ORDER BY 1`).all()));
        }
        return parts.join("\n");
      }),
    fileHash() {
      const hash = createHash("sha256");
      for (const suffix of ["", "-wal"]) if (existsSync(file + suffix)) hash.update(readFileSync(file + suffix));
      return hash.digest("hex");
    },
    exec(sql) {
      const db = openDirectSqlite(file);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    },
    async close() {
      await server.stop();
      await database.close();
      sharedDatabase = undefined;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A filter helper for tests that need one: rows of Parts of a widget. */
export function partsOf(widgetId: number): Filter {
  return new Filter().addWhere("WidgetID = :widgetId", { widgetId });
}

/** Names of the seeded widgets by id (ids 1 to 25; widget 25 is soft-deleted). */
export function seededName(id: number): string {
  const special: Record<number, string> = { 1: "Acme Anvil", 2: "acme rocket", 3: "O'Brien's Gear", 4: "100% Cotton", 5: "under_score" };
  return special[id] ?? `Widget ${String(id).padStart(2, "0")}`;
}

/** Seeds 2 categories, 25 widgets (id 25 soft-deleted) and 3 parts of widget 1. */
export function seedWidgets(db: DirectSqlite): void {
  db.prepare("INSERT INTO Categories VALUES (1, 'Tools', 0), (2, 'Toys', 0)").run();
  const insert =
    db.prepare(`INSERT INTO Widgets (ID, Name, ArticleCode, Quantity, Price, Weight, Active, MadeAt, Email, Secret, Internal, Password,
    CategoryID, CreatedAt, CreatedBy, UpdatedAt, UpdatedBy, DeletedAt, DeletedBy, VersionID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (let i = 1; i <= 25; i++) {
    insert.run(
      i,
      seededName(i),
      i % 2 === 1 ? `C${i}` : null,
      i * 10,
      i % 5 === 0 ? null : i * 150, // cents: SQLite stores a decimal(10, 2) scaled by 100
      i / 4,
      i % 2,
      new Date(Date.UTC(2024, 0, i)).toISOString(),
      `w${i}@example.com`,
      `secret ${i}`,
      `internal ${i}`,
      `password ${i}`,
      i % 3 === 0 ? null : (i % 2) + 1,
      "2024-02-01T00:00:00.000Z",
      "seed",
      null,
      "",
      i === 25 ? "2024-03-01T00:00:00.000Z" : null,
      i === 25 ? "seed" : "",
      0,
    );
  }
  db.prepare("INSERT INTO Parts VALUES (1, 1, 'Handle', 0), (2, 1, 'Head', 0), (3, 1, 'Spring', 0)").run();
}
