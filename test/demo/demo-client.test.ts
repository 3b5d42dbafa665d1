// The typed client of examples/client (its own package, with TypeScript 5, openapi-typescript and
// openapi-fetch): types generated from the running demo's document compile under strict, a wrong property
// name does not compile, and the client logs on, lists, filters, inserts, updates, meets a stale version
// (409) and deletes against the running demo. The client package's dependencies come from
// `npm ci --prefix examples/client` (.ci/run runs it; the set-up below runs it when they are missing, and a
// failure fails the test).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { sqliteDemoEngine } from "./demo-engines.js";
import { startDemo, type DemoProcess } from "./demo-process.js";

const clientRoot = fileURLToPath(new URL("../../../examples/client/", import.meta.url));
const tsc = join(clientRoot, "node_modules", "typescript", "bin", "tsc");
const generator = join(clientRoot, "node_modules", "openapi-typescript", "bin", "cli.js");

/** Runs a command in the client package and answers its status and output. */
function run(command: string, args: readonly string[], timeout = 180000): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: clientRoot, encoding: "utf8", timeout, env: { ...process.env, NO_COLOR: "1" } });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error?.message ?? ""}` };
}

/** Installs the client package's dependencies from its lock when they are missing or older than the lock. */
function installClientDependencies(): void {
  const installed = join(clientRoot, "node_modules", ".package-lock.json");
  const lock = join(clientRoot, "package-lock.json");
  if (existsSync(installed) && existsSync(tsc) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const install = run(npm, ["ci", "--no-audit", "--no-fund"], 600000);
  assert.equal(install.status, 0, `npm ci --prefix examples/client failed:\n${install.output}`);
}

/** The copy of src/type-tests.ts without its `@ts-expect-error` directives, compiled with the package. */
const unchecked = join(clientRoot, "generated", "type-tests-unchecked.ts");

describe("the typed client of examples/client against the running demo", () => {
  let demo: DemoProcess;
  let origin = "";
  let compiled: { status: number | null; output: string };
  let expectedFailures = 0;

  before(async () => {
    installClientDependencies();
    const db = await sqliteDemoEngine.open();
    demo = await startDemo(db.env);
    origin = `http://127.0.0.1:${demo.port}`;
    const generated = run(process.execPath, [
      generator,
      `${origin}/api/openapi.json`,
      "--read-write-markers",
      "-o",
      "generated/demo-api.d.ts",
    ]);
    assert.equal(generated.status, 0, generated.output);
    // One compilation of the package (src/ and generated/) with the unchecked copy beside it: the copy must
    // fail on exactly the lines that carry a directive in the original, and nothing else may fail.
    const source = readFileSync(join(clientRoot, "src", "type-tests.ts"), "utf8");
    expectedFailures = source.split("\n").filter((line) => /^\s*\/\/ @ts-expect-error/.test(line)).length;
    writeFileSync(
      unchecked,
      source.replace(/\/\/ @ts-expect-error/g, "// (expected to fail)").replace(/"\.\/demo-client\.js"/g, '"../src/demo-client.js"'),
    );
    compiled = run(process.execPath, [tsc, "-p", "tsconfig.json"]);
  });
  after(async () => {
    rmSync(unchecked, { force: true });
    rmSync(join(clientRoot, "dist", "generated", "type-tests-unchecked.js"), { force: true });
    await demo?.stop();
  });

  test("the generated types and the client compile under strict, and every @ts-expect-error is needed", () => {
    const elsewhere = compiled.output.split("\n").filter((line) => /error TS/.test(line) && !line.includes("type-tests-unchecked.ts"));
    assert.deepEqual(elsewhere, [], compiled.output);
    assert.ok(existsSync(join(clientRoot, "dist", "src", "main.js")));
  });

  test("a wrong property name, column, operator, path or type fails to compile", () => {
    assert.ok(expectedFailures >= 5, "type-tests.ts has its expectations");
    assert.notEqual(compiled.status, 0, "the unchecked copy must not compile");
    const failedLines = new Set([...compiled.output.matchAll(/type-tests-unchecked\.ts\((\d+),\d+\): error TS/g)].map((match) => match[1]));
    assert.equal(failedLines.size, expectedFailures, compiled.output);
    assert.match(compiled.output, /nmae/);
  });

  test("the client logs on, lists, filters, aggregates, inserts, updates, gets 409 for a stale version, and deletes", () => {
    const walked = run(process.execPath, [join(clientRoot, "dist", "src", "main.js"), origin], 60000);
    assert.equal(walked.status, 0, walked.output);
    const report = JSON.parse(walked.output) as Record<string, Record<string, unknown>>;
    assert.equal(report.listed.status, 200);
    assert.ok((report.listed.count as number) >= 3);
    assert.equal(report.filtered.status, 200);
    const names = report.filtered.names as string[];
    assert.ok(names.length > 0 && names.every((name) => name.startsWith("A")), JSON.stringify(names));
    assert.equal(report.aggregated.status, 200);
    assert.ok((report.aggregated.groups as number) >= 3 && (report.aggregated.orders as number) >= 5, JSON.stringify(report.aggregated));
    assert.deepEqual(report.inserted.status, 200);
    assert.equal(report.inserted.name, "Typed Client Ltd");
    assert.deepEqual(report.updated, { status: 200, versionId: 1 });
    assert.equal(report.staleUpdate.status, 409);
    assert.equal(typeof report.staleUpdate.message, "string");
    assert.deepEqual(report.deleted, { status: 200, deleted: true });
    assert.deepEqual(report.afterDelete, { status: 404 });
  });
});
