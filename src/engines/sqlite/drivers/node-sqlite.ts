import type { SqliteDriver, SqliteHandle, SqliteStatement } from "../sqlite-driver.js";

/** The part of `node:sqlite` the driver uses (declared here: the oldest supported line's types lack it). */
interface NodeSqliteStatement extends SqliteStatement {
  setReturnArrays(enabled: boolean): void;
  setReadBigInts(enabled: boolean): void;
}
interface NodeSqliteDatabase {
  readonly isOpen?: boolean;
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (filename: string, options?: { readonly readOnly?: boolean }) => NodeSqliteDatabase;
  StatementSync: { readonly prototype: Partial<NodeSqliteStatement> };
}

/**
 * `node:sqlite` when this Node.js line has it with rows as arrays (`setReturnArrays`: Node.js 22.16 and
 * later), else undefined (Node.js 20 has no `node:sqlite`).
 */
function nodeSqlite(): NodeSqliteModule | undefined {
  const module = process.getBuiltinModule("node:sqlite") as NodeSqliteModule | undefined;
  return typeof module?.StatementSync?.prototype.setReturnArrays === "function" ? module : undefined;
}

/** @internal The `node:sqlite` driver, or undefined on a Node.js line without it. */
export function nodeSqliteDriver(): SqliteDriver | undefined {
  const module = nodeSqlite();
  if (module === undefined) return undefined;
  return {
    name: "node:sqlite",
    open(filename: string, readOnly = false): SqliteHandle {
      const db = readOnly ? new module.DatabaseSync(filename, { readOnly: true }) : new module.DatabaseSync(filename);
      let open = true;
      return {
        driver: "node:sqlite",
        prepare(sql: string, exactIntegers: boolean): SqliteStatement {
          const statement = db.prepare(sql);
          statement.setReturnArrays(true);
          statement.setReadBigInts(exactIntegers);
          return statement;
        },
        exec(sql: string): void {
          db.exec(sql);
        },
        close(): void {
          if (open) db.close();
          open = false;
        },
      };
    },
  };
}
