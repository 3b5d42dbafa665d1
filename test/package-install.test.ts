import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { repositoryRoot } from "./messages-catalog.js";
import { exampleRun, installed, packInto, run } from "./support/packed-package.js";

// The package as a user gets it: `npm pack`, installed from the tarball into a fresh strict project (no
// skipLibCheck), which compiles README's ten-line example and a `tenon/postgres` import under both module
// resolutions a TypeScript project uses today, then runs them. The versions of TypeScript, @types/node, pg and
// better-sqlite3 are the ones this repository uses, so that npm finds them in its cache. Without a compiler:
// package-install-without-compiler.test.ts.

/** A `tenon/postgres` import that reaches the test server. */
const postgresImport = `import { Context } from "tenon";
import { PostgresDatabase } from "tenon/postgres";

const database = new PostgresDatabase({ connectionString: process.env.TENON_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test" });
const context = new Context(database);
const rows = await context.query("SELECT :n + 1", { n: 41 });
console.log(JSON.stringify({ answer: Number(rows[0][0]) }));
await context.dispose();
await database.close();
`;

const resolutions = [
  { moduleResolution: "node16", module: "node16" },
  { moduleResolution: "bundler", module: "esnext" },
] as const;

describe("the packed tenon installs clean into a strict TypeScript project", () => {
  let project = "";
  before(() => {
    project = mkdtempSync(join(tmpdir(), "tenon-package-"));
    const tarball = packInto(project);
    // better-sqlite3 pinned to this repository's version: the install skips its build script, and the test
    // lends it this repository's compiled binding (the same version, so the same ABI).
    const sqlite = installed("better-sqlite3");
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "tenon-consumer", private: true, type: "module", overrides: { "better-sqlite3": sqlite } }),
    );
    run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--ignore-scripts",
        `./${tarball}`,
        `typescript@${installed("typescript")}`,
        `@types/node@${installed("@types/node")}`,
        `pg@${installed("pg")}`,
      ],
      project,
    );
    cpSync(join(repositoryRoot, "node_modules", "better-sqlite3", "build"), join(project, "node_modules", "better-sqlite3", "build"), {
      recursive: true,
    });
    mkdirSync(join(project, "src"));
    const example = readFileSync(join(repositoryRoot, "examples", "readme", "ten-lines.ts"), "utf8");
    writeFileSync(join(project, "src", "ten-lines.ts"), `${example}\n${exampleRun}`);
    writeFileSync(join(project, "src", "postgres.ts"), postgresImport);
  });
  after(() => {
    if (project !== "") rmSync(project, { recursive: true, force: true });
  });

  for (const { moduleResolution, module } of resolutions) {
    it(`compiles README's example and a tenon/postgres import with moduleResolution ${moduleResolution}, strict, without skipLibCheck, and runs both`, () => {
      const config = `tsconfig-${moduleResolution}.json`;
      const out = `out-${moduleResolution}`;
      writeFileSync(
        join(project, config),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            skipLibCheck: false,
            target: "ES2022",
            module,
            moduleResolution,
            lib: ["ES2023", "esnext.decorators", "esnext.disposable"],
            types: ["node"],
            rootDir: "src",
            outDir: out,
          },
          include: ["src"],
        }),
      );
      run(process.execPath, [join("node_modules", "typescript", "bin", "tsc"), "-p", config], project);
      const example = JSON.parse(run(process.execPath, [join(out, "ten-lines.js")], project));
      assert.deepEqual(example, {
        inserted: 200,
        listed: 200,
        body: { count: 1, data: [{ id: 1, name: "Acme", versionId: 0 }] },
      });
      assert.deepEqual(JSON.parse(run(process.execPath, [join(out, "postgres.js")], project)), { answer: 42 });
    });
  }
});
