import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Schema } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { reportUnreachable } from "../orm/engine-availability.js";
import { mariaDbUnreachable, mariaDbUrl, openMariaDb } from "../orm/harness-mariadb.js";
import { openPostgres, postgresUnreachable, postgresUrl } from "../orm/harness-postgres.js";
import { oldEntities } from "./schema-fixtures.js";

// The command as the package declares it (package.json "bin": the bundle), which loads the entity files' own
// `import "tenon"` as the same bundle: as `npx tenon` does in a user's project.
const bin = fileURLToPath(new URL("../../pkg/bin/tenon.js", import.meta.url));
const entities = fileURLToPath(new URL("./command-entities.js", import.meta.url));
const unexpressible = fileURLToPath(new URL("./command-unexpressible.js", import.meta.url));

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Runs `tenon` in a process of its own, as `npx tenon` would. */
function tenon(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("tenon schema on SQLite: exit codes a CI pipeline can use", () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), "tenon-schema-command-"));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("print writes the DDL and exits 0 without creating the database file", async () => {
    const file = join(directory, "print.sqlite");
    const run = await tenon("schema", "print", "--url", `sqlite:${file}`, "--entities", entities);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^CREATE TABLE "Makers" \(\n {2}"ID" INTEGER NOT NULL,/);
    assert.match(run.out, /CREATE INDEX "IX_Widgets_MakerID" ON "Widgets" \("MakerID"\);/);
    assert.equal(existsSync(file), false);
  });

  it("diff exits 1 on an empty database, apply exits 0, and diff then exits 0", async () => {
    const url = `sqlite:${join(directory, "fresh.sqlite")}`;
    const before = await tenon("schema", "diff", "--url", url, "--entities", entities);
    assert.equal(before.code, 1, before.err);
    assert.match(before.out, /^Maker: table Makers is missing\.\nTag: table Tags is missing\.\nWidget: table Widgets is missing\.\n/);
    const apply = await tenon("schema", "apply", "--url", url, "--entities", entities);
    assert.equal(apply.code, 0, apply.err);
    assert.match(apply.out, /-- Applied 5 statements\./);
    const again = await tenon("schema", "apply", "--url", url, "--entities", entities);
    assert.deepEqual([again.code, again.out], [0, "-- Nothing to apply.\n"]);
    const after = await tenon("schema", "diff", "--url", url, "--entities", entities);
    assert.deepEqual([after.code, after.out], [0, "The database schema matches the mapping.\n"]);
  });

  it("apply exits 1 when differences remain that Tenon does not change, and names them", async () => {
    const file = join(directory, "old.sqlite");
    const database = new SqliteDatabase({ filename: file });
    await Schema.apply(database, oldEntities);
    await database.close();
    const apply = await tenon("schema", "apply", "--url", file, "--entities", entities);
    assert.equal(apply.code, 1, apply.err);
    assert.match(
      apply.out,
      /-- Still different after apply:\n-- {3}Widget\.count: column Widgets\.Count is INTEGER NULL in the database; the mapping wants INTEGER NOT NULL\./,
    );
  });

  it("--help writes the usage and exits 0", async () => {
    const run = await tenon("schema", "--help");
    assert.equal(run.code, 0);
    assert.match(run.out, /^Usage: tenon schema print\|diff\|apply --url <DATABASE_URL> --entities <module>/);
    assert.match(run.out, /Exit codes: 0 up to date, 1 differences, 2 error\.\n$/);
  });

  it("exits 2 with the reason on stderr for bad arguments and for an entity the engine cannot express", async () => {
    const url = `sqlite:${join(directory, "errors.sqlite")}`;
    const cases: [string[], RegExp][] = [
      [["schema", "drop", "--url", url, "--entities", entities], /^Unknown command "drop"\./],
      [["schema", "diff", "--entities", entities], /^The option --url is required\./],
      [["schema", "diff", "--url", url], /^The option --entities is required\./],
      [
        ["schema", "diff", "--url", "oracle://db/x", "--entities", entities],
        /^--url must be postgres:\/\/\.\.\., mariadb:\/\/\.\.\. or sqlite:<file>, not oracle:/,
      ],
      [["schema", "diff", "--url", url, "--entities", join(directory, "missing.js")], /^The entities module .* cannot be loaded/],
      [
        ["schema", "print", "--url", url, "--entities", unexpressible],
        /^TooPrecise\.amount: decimal\(1001, 2\) cannot be expressed on sqlite/,
      ],
      [["migrate"], /^Usage: tenon schema print\|diff\|apply/],
      [["schema"], /^Name a command: print, diff or apply\.\n\nUsage: tenon schema/],
    ];
    for (const [args, pattern] of cases) {
      const run = await tenon(...args);
      assert.equal(run.code, 2, args.join(" "));
      assert.match(run.err, pattern, args.join(" "));
      assert.equal(run.out, "");
    }
  });
});

const postgresReason = await postgresUnreachable();
if (postgresReason === undefined) {
  describe("tenon schema on PostgreSQL", () => {
    it("apply creates the schema in one transaction and diff then exits 0", async () => {
      const db = await openPostgres();
      try {
        const apply = await tenon("schema", "apply", "--url", postgresUrl, "--schema", db.schema, "--entities", entities);
        assert.equal(apply.code, 0, apply.err);
        assert.match(apply.out, /CREATE SEQUENCE "tagsid";/);
        const diff = await tenon("schema", "diff", "--url", postgresUrl, "--schema", db.schema, "--entities", entities);
        assert.deepEqual([diff.code, diff.out], [0, "The database schema matches the mapping.\n"]);
      } finally {
        await db.close();
      }
    });
  });
} else reportUnreachable("PostgreSQL", postgresReason, "schema command suite");

const mariaDbReason = await mariaDbUnreachable();
if (mariaDbReason === undefined) {
  describe("tenon schema on MariaDB", () => {
    it("apply --galera creates sequences with INCREMENT BY 0 and diff then exits 0", async () => {
      const db = await openMariaDb();
      try {
        const url = new URL(mariaDbUrl);
        url.pathname = `/${db.name}`;
        const apply = await tenon("schema", "apply", "--galera", "--url", url.href, "--entities", entities);
        assert.equal(apply.code, 0, apply.err);
        assert.match(apply.out, /CREATE SEQUENCE `TagsID` INCREMENT BY 0 NOCACHE ENGINE=InnoDB;/);
        const diff = await tenon("schema", "diff", "--url", url.href, "--entities", entities);
        assert.deepEqual([diff.code, diff.out], [0, "The database schema matches the mapping.\n"]);
      } finally {
        await db.close();
      }
    });
  });
} else reportUnreachable("MariaDB", mariaDbReason, "schema command suite");
