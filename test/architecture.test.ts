import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { repositoryRoot } from "./messages-catalog.js";

/** ARCHITECTURE.md, read from the repository (not from dist/). */
const architecture = readFileSync(join(repositoryRoot, "ARCHITECTURE.md"), "utf8");

/** Every `src/...` path the text names, without a trailing dot or slash. */
function namedSourcePaths(text: string): string[] {
  const paths = [...text.matchAll(/(?<![\w/.-])src\/[\w./-]*[\w]/g)].map((match) => match[0]);
  return [...new Set(paths)].sort();
}

/** One row of the layer table: the units it names (files or folders under src/) and what they may import. */
interface LayerRow {
  readonly units: readonly string[];
  readonly allowed: ReadonlySet<string>;
}

/**
 * The rows of the "Layers" table: first cell the units, third cell what they may import, where "the ground
 * floor" stands for the units of the first row.
 */
function layerRows(text: string): LayerRow[] {
  const section = text.slice(text.indexOf("## Layers"), text.indexOf("\n## ", text.indexOf("## Layers") + 1));
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("| `src/"))
    .map((line) => line.split("|").map((cell) => cell.trim()));
  const pathsIn = (cell: string): string[] => [...cell.matchAll(/`(src\/[^`]+)`/g)].map((match) => match[1]);
  const ground = pathsIn(rows[0]?.[1] ?? "");
  return rows.map((cells) => {
    const allowed = new Set(pathsIn(cells[3] ?? ""));
    if ((cells[3] ?? "").includes("the ground floor")) for (const unit of ground) allowed.add(unit);
    return { units: pathsIn(cells[1] ?? ""), allowed };
  });
}

/** The .ts files under src/, relative to the repository root. */
function sourceFiles(): string[] {
  return readdirSync(join(repositoryRoot, "src"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)))
    .sort();
}

/** The unit of the table a file belongs to: the longest unit that is the file or a folder holding it. */
function unitOf(file: string, units: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const unit of units) {
    if ((file === unit || file.startsWith(`${unit}/`)) && (best === undefined || unit.length > best.length)) best = unit;
  }
  return best;
}

/** Static imports, re-exports and `import("...")` of a source file, relative ones resolved to src paths. */
function localImportsOf(file: string): string[] {
  const text = readFileSync(join(repositoryRoot, file), "utf8");
  const pattern = /^\s*(?:import|export)(?:\s+type)?\s*(?:[\w*{}\s,$]+?\s+from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;
  return [...text.matchAll(pattern)]
    .map((match) => match[1] ?? match[2])
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(repositoryRoot, resolve(dirname(join(repositoryRoot, file)), specifier)).replace(/\.js$/, ".ts"));
}

describe("ARCHITECTURE.md describes the tree as it is", () => {
  it("every src/ path it names exists", () => {
    const named = namedSourcePaths(architecture);
    assert.ok(named.length > 40, `expected ARCHITECTURE.md to name the files of each stage, found ${named.length}`);
    assert.deepEqual(
      named.filter((path) => !existsSync(join(repositoryRoot, path))),
      [],
      "ARCHITECTURE.md names paths that do not exist",
    );
  });

  it("its layer table covers every source file", () => {
    const units = layerRows(architecture).flatMap((row) => row.units);
    assert.ok(units.length > 20, `expected the layer table's rows, found ${units.length}`);
    assert.deepEqual(
      sourceFiles().filter((file) => unitOf(file, units) === undefined),
      [],
      "source files outside every row of ARCHITECTURE.md's layer table: add their folder to it",
    );
  });

  it("every import of src/ keeps to what the layer table allows", () => {
    const rows = layerRows(architecture);
    const units = rows.flatMap((row) => row.units);
    const allowedOf = new Map(rows.flatMap((row) => row.units.map((unit) => [unit, row.allowed] as const)));
    const violations: string[] = [];
    for (const file of sourceFiles()) {
      const from = unitOf(file, units);
      if (from === undefined) continue;
      for (const target of localImportsOf(file)) {
        const to = unitOf(target, units);
        if (to === undefined || to === from || allowedOf.get(from)?.has(to) === true) continue;
        violations.push(`${file} -> ${target} (${from} may not import ${to})`);
      }
    }
    assert.deepEqual(violations, [], "imports that ARCHITECTURE.md's layer table does not allow: change the code or the table");
  });

  it("the table reader sees a refused import and the ground floor's shorthand", () => {
    const text = [
      "## Layers",
      "| Folder | Holds | May import |",
      "|---|---|---|",
      "| `src/values`, `src/errors.ts` | ground | nothing of `src/` |",
      "| `src/mapping` | mapping | the ground floor |",
      "| `src/http/exchange` | exchange | the ground floor, `src/mapping` |",
      "## Next",
    ].join("\n");
    const rows = layerRows(text);
    assert.deepEqual(
      rows.map((row) => [row.units, [...row.allowed].sort()]),
      [
        [["src/values", "src/errors.ts"], []],
        [["src/mapping"], ["src/errors.ts", "src/values"]],
        [["src/http/exchange"], ["src/errors.ts", "src/mapping", "src/values"]],
      ],
    );
    assert.equal(unitOf("src/http/exchange/http-request.ts", ["src/http", "src/http/exchange"]), "src/http/exchange");
    assert.equal(unitOf("src/httpx/a.ts", ["src/http"]), undefined);
    assert.deepEqual(namedSourcePaths("see `src/a/b.ts`, src/c/ and src/d."), ["src/a/b.ts", "src/c", "src/d"]);
  });
});

/** The relative link targets of a Markdown text (`[text](target)`), without their `#fragment`; web links left out. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.split("#")[0]);
}

describe("the front door and the documents link only to what exists", () => {
  it("every relative link of README.md, ARCHITECTURE.md and docs/*.md names a file or folder of the repository", () => {
    const documents = [
      "README.md",
      "ARCHITECTURE.md",
      ...readdirSync(join(repositoryRoot, "docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => `docs/${name}`),
    ];
    const broken = documents.flatMap((document) =>
      relativeLinks(readFileSync(join(repositoryRoot, document), "utf8"))
        .filter((target) => !existsSync(resolve(dirname(join(repositoryRoot, document)), target)))
        .map((target) => `${document} -> ${target}`),
    );
    assert.deepEqual(broken, []);
  });

  it("README.md links ARCHITECTURE.md and every document of docs/ from its table", () => {
    const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
    const linked = new Set(relativeLinks(readme));
    const documents = readdirSync(join(repositoryRoot, "docs")).filter((name) => name.endsWith(".md"));
    assert.deepEqual(
      ["ARCHITECTURE.md", ...documents.map((name) => `docs/${name}`)].filter((document) => !linked.has(document)),
      [],
    );
  });

  it("the link reader keeps relative targets and leaves web links and fragments alone", () => {
    assert.deepEqual(relativeLinks("[a](docs/x.md#y) [b](https://e.example) [c](#top) [d](../z/) [e](mailto:x@y)"), ["docs/x.md", "../z/"]);
  });
});

/** TypeScript source reduced to its code: comments, whitespace and semicolons dropped. */
function codeOf(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/[^\n]*/g, "")
    .replace(/[\s;]+/g, "");
}

describe("the README's example is the one the package test compiles and runs", () => {
  it("README's ten lines and examples/readme/ten-lines.ts are the same code, but for the database file and the start wrapped in main()", () => {
    const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
    const block = /## Ten lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block !== undefined, "README.md has a `## Ten lines` section with a ts block");
    const example = readFileSync(join(repositoryRoot, "examples", "readme", "ten-lines.ts"), "utf8")
      .replace('filename: ":memory:"', 'filename: "data/app.sqlite"')
      .replace(/export async function main\(\): Promise<void> \{\s*(await server\.start\(\);)\s*\}/, "$1");
    assert.equal(codeOf(block), codeOf(example));
  });
});
