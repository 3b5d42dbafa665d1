// The package as a user gets it: `npm pack` of this repository, and the versions of the packages it installs
// beside it (the ones this repository uses, so that npm finds them in its cache).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "../messages-catalog.js";

/** The version of a package installed in this repository. */
export function installed(name: string): string {
  return (JSON.parse(readFileSync(join(repositoryRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

/** Runs a command; fails the test with its output when it exits non-zero, else answers its standard output. */
export function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 240_000 });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`);
  return result.stdout;
}

/** Packs this repository (without its scripts: the build is there already) into `directory`; answers the tarball's name. */
export function packInto(directory: string): string {
  const packed = JSON.parse(run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", directory], repositoryRoot)) as {
    filename: string;
  }[];
  return packed[0].filename;
}

/** What the test appends to README's example: a schema, an ephemeral port, one insert and one list, then stop. */
export const exampleRun = `
database.exec('CREATE TABLE "Companies" ("ID" INTEGER PRIMARY KEY, "Name" TEXT NOT NULL, "VersionID" INTEGER NOT NULL)');
server.port = 0;
await server.start();
const base = \`http://127.0.0.1:\${server.port}/api/companies\`;
const inserted = await fetch(base, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"Acme"}' });
const listed = await fetch(base);
console.log(JSON.stringify({ inserted: inserted.status, listed: listed.status, body: await listed.json() }));
await server.stop();
await database.close();
`;
