// The catalogue of every user-visible text of Tenon: each `...Messages` object of a `src/**/*-messages.ts`
// module, each entry rendered with its parameters as `<name>`. test/messages.test.ts checks it against the
// sources and docs/errors.md; scripts/errors-doc.mjs writes docs/errors.md from it.
import { readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root (this file runs from dist/test/). */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** One entry of a messages object. */
export interface MessageEntry {
  /** `HttpMessages.unauthorized`. */
  readonly name: string;
  /** The entry's key. */
  readonly key: string;
  /** The text, with each parameter shown as `<name>`. */
  readonly text: string;
}

/** One messages object and the module that holds it. */
export interface MessageModule {
  /** `src/http/exchange/http-messages.ts`. */
  readonly source: string;
  /** `HttpMessages`. */
  readonly exportName: string;
  /** Its entries, in declaration order. */
  readonly entries: readonly MessageEntry[];
}

/** The parameter names of an arrow function's source: `(method, path) => ...` gives ["method", "path"]. */
function parameterNames(fn: (...args: never[]) => unknown): string[] {
  const match = /^\s*(?:\(([^)]*)\)|([\w$]+))\s*=>/.exec(fn.toString());
  const list = match?.[1] ?? match?.[2] ?? "";
  return list
    .split(",")
    .map((p) => p.trim().replace(/\s*=.*$/, ""))
    .filter((p) => p !== "");
}

/**
 * A stand-in for a parameter that reads as `<name>` however a text uses it: in a template, as a property
 * (`<error.message>`), through a method call (`<workers>` for `workers.join(", ")`) or through JSON.stringify.
 */
function placeholder(label: string): unknown {
  const shown = (): string => `<${label}>`;
  return new Proxy(() => undefined, {
    get(_target, property) {
      if (property === Symbol.toPrimitive || property === "toString" || property === "valueOf" || property === "toJSON") return shown;
      if (typeof property === "symbol") return undefined;
      return placeholder(`${label}.${property}`);
    },
    apply: () => `<${label.replace(/\.[^.]*$/, "")}>`,
  });
}

/** The text of an entry: a string as it is, a function called with a stand-in for each parameter. */
function render(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "function") {
    const names = parameterNames(value as (...args: never[]) => unknown);
    return String((value as (...args: unknown[]) => unknown)(...names.map(placeholder)));
  }
  return String(value);
}

/** The `*-messages.ts` files under src/, relative to the repository root. */
export function messageSources(): string[] {
  return readdirSync(join(repositoryRoot, "src"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith("-messages.ts"))
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)))
    .sort();
}

/** Every messages object of src/, loaded from the compiled output. */
export async function messageCatalog(): Promise<MessageModule[]> {
  const modules: MessageModule[] = [];
  for (const source of messageSources()) {
    const compiled = join(repositoryRoot, "dist", source.replace(/\.ts$/, ".js"));
    const loaded = (await import(pathToFileURL(compiled).href)) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(loaded)) {
      if (!exportName.endsWith("Messages") || typeof value !== "object" || value === null) continue;
      const entries = Object.entries(value).map(([key, entry]) => ({ name: `${exportName}.${key}`, key, text: render(entry) }));
      modules.push({ source, exportName, entries });
    }
  }
  return modules;
}

/** A Markdown table cell: pipes escaped, line breaks as spaces. */
export function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** docs/errors.md as the catalogue makes it. */
export function errorsDoc(modules: readonly MessageModule[]): string {
  const lines = [
    "# Error messages",
    "",
    "Every sentence that Tenon writes for a user (an error's message, an error body's `message`, a log action) comes",
    "from one messages object per layer; this page lists them all, each with its parameters shown as `<name>`.",
    "The typed errors of `src/errors.ts` (`EntityNotFoundError`, `ConcurrentUpdateError`, `ContextDisposedError`,",
    "`ReadOnlyEntityError` ...) carry their own texts, and the engines' driver errors are passed on as the engine",
    "phrased them. Decide on an error's type (and its fields), never on its text: texts may be reworded.",
    "",
    "This page is generated: `npm run build && node scripts/errors-doc.mjs`. `test/messages.test.ts` fails when an",
    "entry is missing here, is worded differently, or is no longer used by the sources.",
    "",
  ];
  for (const module of modules) {
    lines.push(`## ${module.exportName} (\`${module.source}\`)`, "", "| Entry | Text |", "|---|---|");
    for (const entry of module.entries) lines.push(`| \`${entry.name}\` | ${cell(entry.text)} |`);
    lines.push("");
  }
  return lines.join("\n");
}
