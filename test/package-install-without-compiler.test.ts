import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { repositoryRoot } from "./messages-catalog.js";
import { exampleRun, packInto, run } from "./support/packed-package.js";
import { nodeSqliteAbsence } from "./support/sqlite-drivers.js";

// A machine without a C++ toolchain: the packed tenon installed with its install scripts run (better-sqlite3's
// build among them) from a PATH without compilers, make or Python, and npm told that Python is /bin/false. The
// compile fails, better-sqlite3 is an optional dependency, so the install succeeds without it, and README's
// example serves on SQLite through node:sqlite. Node.js 20 has no node:sqlite: there, better-sqlite3 is the only
// driver and a compiler (or a prebuilt binary) is needed, as README says.

/** The tools a native build needs; none of them may be on the PATH the install sees. */
const compilerTools = ["cc", "c++", "gcc", "g++", "make", "python3", "python"];
/** The names left out of that PATH: compilers of every flavour and version, make, Python. */
const compilerNames = /^(c\+\+|cc|cpp|make|gmake|python)|gcc|g\+\+|clang/;

/**
 * A folder that stands in for this machine's PATH without a toolchain: links to every program on PATH but the
 * compilers, make and Python, and `node` is this test's own Node.js.
 */
function pathWithoutCompiler(bin: string): string {
  mkdirSync(bin);
  const seen = new Set(["node"]);
  symlinkSync(process.execPath, join(bin, "node"));
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (directory === "" || !existsSync(directory)) continue;
    for (const name of readdirSync(directory)) {
      if (seen.has(name) || compilerNames.test(name)) continue;
      seen.add(name);
      symlinkSync(join(directory, name), join(bin, name));
    }
  }
  return bin;
}

describe("the packed tenon on a machine without a C++ compiler", { skip: nodeSqliteAbsence() }, () => {
  let project = "";
  let environment: NodeJS.ProcessEnv = {};
  before(() => {
    project = mkdtempSync(join(tmpdir(), "tenon-no-compiler-"));
    const { CC: _cc, CXX: _cxx, npm_config_nodedir: _nodedir, npm_config_build_from_source: _source, ...inherited } = process.env;
    environment = { ...inherited, PATH: pathWithoutCompiler(join(project, "bin")), npm_config_python: "/bin/false" };
    for (const tool of compilerTools) {
      const found = spawnSync("sh", ["-c", `command -v ${tool}`], { env: environment });
      assert.notEqual(found.status, 0, `${tool} must not be on the PATH of the install`);
    }
    const tarball = packInto(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "tenon-no-compiler", private: true, type: "module" }));
    const example = readFileSync(join(repositoryRoot, "dist", "examples", "readme", "ten-lines.js"), "utf8");
    writeFileSync(join(project, "ten-lines.js"), `${example}\nconsole.log(JSON.stringify({ driver: database.driver }));\n${exampleRun}`);
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--foreground-scripts", `./${tarball}`], project, environment);
  });
  after(() => {
    if (project !== "") rmSync(project, { recursive: true, force: true });
  });

  it("installs without better-sqlite3, whose build fails, and serves README's example through node:sqlite", () => {
    assert.equal(existsSync(join(project, "node_modules", "better-sqlite3")), false, "better-sqlite3 was built after all");
    const [driver, example] = run("node", ["ten-lines.js"], project, environment)
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(driver, { driver: "node:sqlite" });
    assert.deepEqual(example, { inserted: 200, listed: 200, body: { count: 1, data: [{ id: 1, name: "Acme", versionId: 0 }] } });
  });
});
