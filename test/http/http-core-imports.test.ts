import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/** The repository's src/, read as TypeScript (a type-only import is an import too, and compiled output drops it). */
const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");

/**
 * The ORM's folders, which the HTTP core must not reach: the core defines small interfaces (readiness, pool
 * figures, statement observation) that the ORM side implements, and `src/http/crud` is the one bridge.
 */
const forbidden = ["mapping", "sql", "engines", "session", "json", "schema", "events", "filter", "validation"];

/** The folders of `src/http` that hold optional parts: each sees the ground floor (`exchange/`) and routing, never the server. */
const features = ["auth", "balancer", "logging", "openapi", "operations", "routing"];

/** Static imports and re-exports (`import x from`, `import type {...} from`, `export * from`, side-effect imports) and `import("...")`. */
const importPattern =
  /^\s*(?:import|export)(?:\s+type)?\s*(?:[\w*{}\s,$]+?\s+from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

/** The modules a source file names, as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(importPattern)].map((match) => match[1] ?? match[2]);
}

/** The source file a relative import names (`./x.js` is `./x.ts`), or undefined for a package import. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  return resolve(dirname(from), specifier).replace(/\.js$/, ".ts");
}

/** The source files that a file imports through relative paths. */
function localImportsOf(file: string): string[] {
  return importsOf(file).flatMap((specifier) => resolveImport(file, specifier) ?? []);
}

/**
 * Every file reached from `start` through relative imports that lies under one of `forbiddenDirs`, each
 * with the chain of imports that reaches it.
 */
function forbiddenReach(start: string, root: string, forbiddenDirs: readonly string[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>([start]);
  const queue: { file: string; chain: string[] }[] = [{ file: start, chain: [relative(root, start)] }];
  while (queue.length > 0) {
    const { file, chain } = queue.shift() as { file: string; chain: string[] };
    for (const specifier of importsOf(file)) {
      const target = resolveImport(file, specifier);
      if (target === undefined || seen.has(target)) continue;
      seen.add(target);
      const path = relative(root, target);
      const next = [...chain, path];
      if (forbiddenDirs.some((dir) => path.startsWith(`${dir}/`))) found.push(next.join(" -> "));
      else queue.push({ file: target, chain: next });
    }
  }
  return found;
}

/** The .ts files under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("the HTTP core knows nothing of the ORM", () => {
  it("no file under src/http except src/http/crud (and the entry point) reaches an ORM folder", () => {
    const http = join(srcRoot, "http");
    // index.ts is the door of `tenon/http`: it re-exports the CRUD layer beside the core, on purpose.
    const core = sourceFiles(http).filter((file) => !file.startsWith(join(http, "crud")) && file !== join(http, "index.ts"));
    assert.ok(core.length > 30, `expected the HTTP core's files under ${http}, found ${core.length}`);
    const violations = core.flatMap((file) => forbiddenReach(file, srcRoot, forbidden));
    assert.deepEqual(violations, []);
  });

  it("the ground floor (src/http/exchange) imports nothing else of src/http", () => {
    const http = join(srcRoot, "http");
    const exchange = join(http, "exchange");
    const files = sourceFiles(exchange);
    assert.ok(files.length >= 10, `expected the ground floor's files under ${exchange}, found ${files.length}`);
    const outside = files.flatMap((file) =>
      localImportsOf(file)
        .filter((target) => target.startsWith(`${http}/`) && !target.startsWith(`${exchange}/`))
        .map((target) => `${relative(srcRoot, file)} -> ${relative(srcRoot, target)}`),
    );
    assert.deepEqual(outside, []);
  });

  it("no optional part (auth, balancer, logging, openapi, operations, routing) imports the server or the CRUD bridge", () => {
    const http = join(srcRoot, "http");
    const upper = [join(http, "server"), join(http, "crud")];
    const files = features.flatMap((folder) => sourceFiles(join(http, folder)));
    assert.ok(files.length > 20, `expected the optional parts' files, found ${files.length}`);
    const upward = files.flatMap((file) =>
      localImportsOf(file)
        .filter((target) => upper.some((dir) => target.startsWith(`${dir}/`)))
        .map((target) => `${relative(srcRoot, file)} -> ${relative(srcRoot, target)}`),
    );
    assert.deepEqual(upward, []);
  });

  it("the import reader follows every import form through relative paths to a forbidden layer", () => {
    const root = mkdtempSync(join(tmpdir(), "tenon-imports-"));
    try {
      const write = (path: string, text: string): void => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write("http/a.ts", 'import type { B } from "./b.js";\nimport {\n  C,\n  type D,\n} from "../shared/c.js";\nimport "node:fs";\n');
      write("http/b.ts", 'export * from "../session/context.js";\n');
      write("shared/c.ts", 'export const C = () => import("../json/json.js");\n');
      write("http/clean.ts", '// import { x } from "../engines/e.js" is only a comment here\nimport { y } from "jose";\n');
      assert.deepEqual(forbiddenReach(join(root, "http/a.ts"), root, forbidden).sort(), [
        "http/a.ts -> http/b.ts -> session/context.ts",
        "http/a.ts -> shared/c.ts -> json/json.ts",
      ]);
      assert.deepEqual(forbiddenReach(join(root, "http/clean.ts"), root, forbidden), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
