import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Database } from "../engines/database.js";
import type { EntityClass } from "../mapping/column-type.js";
import { MappingKey } from "../mapping/mapping-keys.js";
import { rawEntityOf } from "../mapping/metadata-store.js";
import { Schema, type SchemaOptions } from "./schema.js";
import { SchemaMessages } from "./schema-messages.js";

/** Where the command writes. */
export interface CommandOutput {
  /** Normal output (DDL, reports). */
  out(text: string): void;
  /** Errors and usage. */
  err(text: string): void;
}

/** The exit codes of `tenon schema`, for CI pipelines. */
export const SchemaExitCode = {
  /** The database matches the mapping. */
  upToDate: 0,
  /** Differences were found (or, after apply, remain). */
  differences: 1,
  /** Bad arguments, an unreachable database, a mapping the engine cannot express. */
  error: 2,
} as const;

interface Arguments {
  readonly command: string;
  readonly url: string;
  readonly entities: string;
  readonly schema: string | undefined;
  readonly galera: boolean;
}

class UsageError extends Error {}

/**
 * `tenon schema print|diff|apply --url <DATABASE_URL> --entities <module>`: the schema tool from a shell,
 * over `Schema.create`, `Schema.diff` and `Schema.apply`. Answers the exit code.
 */
export async function runSchemaCommand(argv: readonly string[], output: CommandOutput, cwd = process.cwd()): Promise<number> {
  if (argv[0] === "--help" || argv[0] === "-h") {
    output.out(`${SchemaMessages.usage}\n`);
    return SchemaExitCode.upToDate;
  }
  let parsed: Arguments;
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${SchemaMessages.usage}\n`);
    return SchemaExitCode.error;
  }
  let database: Database | undefined;
  try {
    const entities = await loadEntities(parsed.entities, cwd);
    const options: SchemaOptions = { galera: parsed.galera };
    database = await openDatabase(parsed.command === "print" ? printUrl(parsed.url) : parsed.url, parsed.schema, cwd);
    if (parsed.command === "print") {
      output.out(Schema.create(database, entities, options).toString());
      return SchemaExitCode.upToDate;
    }
    if (parsed.command === "diff") {
      const diff = await Schema.diff(database, entities, options);
      output.out(diff.toString());
      return diff.isEmpty ? SchemaExitCode.upToDate : SchemaExitCode.differences;
    }
    const applied = await Schema.apply(database, entities, options);
    const count = applied.script.statements.length;
    output.out(count === 0 ? `${SchemaMessages.nothingToApply}\n` : `${applied.script.toString()}\n${SchemaMessages.applied(count)}\n`);
    const after = await Schema.diff(database, entities, options);
    if (after.isEmpty) return SchemaExitCode.upToDate;
    output.out(`${SchemaMessages.remaining}\n${after.differences.map((each) => `--   ${each.message}`).join("\n")}\n`);
    return SchemaExitCode.differences;
  } catch (error) {
    output.err(`${(error as Error).message ?? String(error)}\n`);
    return SchemaExitCode.error;
  } finally {
    await database?.close().catch(() => undefined);
  }
}

function parseArguments(argv: readonly string[]): Arguments {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError(SchemaMessages.missingCommand);
  if (command !== "print" && command !== "diff" && command !== "apply") throw new UsageError(SchemaMessages.unknownCommand(command));
  const values = new Map<string, string>();
  let galera = false;
  for (let index = 0; index < rest.length; index++) {
    const option = rest[index];
    if (option === "--galera") galera = true;
    else if (option === "--url" || option === "--entities" || option === "--schema") {
      const value = rest[++index];
      if (value === undefined) throw new UsageError(SchemaMessages.missingOption(option));
      values.set(option, value);
    } else throw new UsageError(SchemaMessages.unknownOption(option));
  }
  const url = values.get("--url");
  const entities = values.get("--entities");
  if (url === undefined) throw new UsageError(SchemaMessages.missingOption("--url"));
  if (entities === undefined) throw new UsageError(SchemaMessages.missingOption("--entities"));
  return { command, url, entities, schema: values.get("--schema"), galera };
}

/** Every exported class of the module that carries `@Table`. */
async function loadEntities(module: string, cwd: string): Promise<EntityClass[]> {
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(resolve(cwd, module)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(SchemaMessages.cannotLoad(module, (error as Error).message));
  }
  const entities = Object.values(exports).filter(
    (value): value is EntityClass =>
      typeof value === "function" && rawEntityOf(value as EntityClass)?.annotations.has(MappingKey.table) === true,
  );
  if (entities.length === 0) throw new UsageError(SchemaMessages.noEntities(module));
  return entities;
}

/** `print` needs only the engine: an SQLite file is not created (or touched) for it. */
function printUrl(url: string): string {
  return engineOf(url) === "sqlite" ? "sqlite::memory:" : url;
}

function engineOf(url: string): "postgres" | "mariadb" | "sqlite" {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  const scheme = match?.[1].toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") return "postgres";
  if (scheme === "mariadb" || scheme === "mysql") return "mariadb";
  if (scheme === undefined || scheme === "sqlite" || scheme === "file" || scheme.length === 1 /* a Windows drive */) return "sqlite";
  throw new UsageError(SchemaMessages.unknownScheme(scheme));
}

/** Opens the engine of the URL; a driver the URL does not need is never loaded. */
async function openDatabase(url: string, schema: string | undefined, cwd: string): Promise<Database> {
  switch (engineOf(url)) {
    case "postgres": {
      const { PostgresDatabase } = await import("../engines/postgres/postgres-database.js");
      return new PostgresDatabase({ connectionString: url, schema, poolSize: 1 });
    }
    case "mariadb": {
      const { MariaDbDatabase } = await import("../engines/mariadb/mariadb-database.js");
      return new MariaDbDatabase({ connectionString: url, poolSize: 1 });
    }
    case "sqlite": {
      const { SqliteDatabase } = await import("../engines/sqlite/sqlite-database.js");
      const path = url.replace(/^(sqlite|file):(\/\/(?=\/))?/i, "");
      return new SqliteDatabase({ filename: path === ":memory:" ? path : resolve(cwd, path) });
    }
  }
}
