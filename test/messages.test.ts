import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { cell, messageCatalog, messageSources, repositoryRoot } from "./messages-catalog.js";

/** Every TypeScript source under src/, by path relative to the repository root. */
function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(repositoryRoot, "src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(repositoryRoot, path), readFileSync(path, "utf8"));
  }
  return files;
}

describe("every user-visible text has one home, is used, and is documented", () => {
  it("text modules follow one naming scheme: src/**/<layer>-messages.ts exporting <Layer>Messages", async () => {
    const files = sources();
    const all = [...files.keys()];
    assert.deepEqual(
      all.filter((path) => /-texts\.ts$/i.test(path)),
      [],
      "a text module is named ...-messages.ts",
    );
    assert.deepEqual(
      all.filter((path) => /export const \w+Texts\b/.test(files.get(path) ?? "")),
      [],
      "a text object is named ...Messages",
    );
    const catalog = await messageCatalog();
    assert.deepEqual(
      messageSources().filter((source) => !catalog.some((module) => module.source === source)),
      [],
      "every -messages.ts module exports a ...Messages object",
    );
  });

  it("every entry of every messages object is used by a source file other than its own module", async () => {
    const files = sources();
    const unused: string[] = [];
    for (const module of await messageCatalog()) {
      for (const entry of module.entries) {
        const pattern = new RegExp(`\\b${module.exportName}\\.${entry.key}\\b`);
        const used = [...files].some(([path, text]) => path !== module.source && pattern.test(text));
        if (!used) unused.push(entry.name);
      }
    }
    assert.deepEqual(unused, []);
  });

  it("docs/errors.md lists every entry with its current text, and nothing that no longer exists", async () => {
    const doc = readFileSync(join(repositoryRoot, "docs", "errors.md"), "utf8");
    const catalog = await messageCatalog();
    const missing = catalog
      .flatMap((module) => module.entries)
      .filter((entry) => !doc.includes(`| \`${entry.name}\` | ${cell(entry.text)} |`))
      .map((entry) => entry.name);
    assert.deepEqual(missing, [], "run `npm run build && node scripts/errors-doc.mjs` after changing a text");
    const known = new Set(catalog.flatMap((module) => module.entries.map((entry) => entry.name)));
    const stale = [...doc.matchAll(/^\| `(\w+Messages\.\w+)` \|/gm)].map((m) => m[1]).filter((name) => !known.has(name));
    assert.deepEqual(stale, []);
  });

  it("README links the list of messages", () => {
    assert.match(readFileSync(join(repositoryRoot, "README.md"), "utf8"), /\]\(docs\/errors\.md\)/);
  });
});
