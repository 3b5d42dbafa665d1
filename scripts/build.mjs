// `npm run build`: compiles the TypeScript (tsc: dist/src, dist/test, dist/examples, the declarations), then bundles
// the package's entry points into dist/pkg, which is what `import "tenon"` loads.
//
// Why a bundle: Node's module loader pays for every file it resolves, opens and compiles, and Tenon is some 270
// files. Loaded one by one they made a server's start-up to its first answer about 2.7 times raw node:http's; as a
// handful of chunks it is about 1.5 times (docs/benchmarks.md, "Start-up"). The bundle is the same compiled code:
// esbuild only joins the files (no other transform: target is the compiler's own, class names are checked), and splits what
// the entry points share into common chunks, so that `tenon`, `tenon/http` and the engines hold one copy of each
// class; every entry point imports `tenon`'s, which makes all of `tenon` one of those chunks (`coreFirst`).
// Dependencies (jose, the drivers) stay outside, resolved from node_modules as before.
//
// The repository's own tests reach into the compiled files (dist/src/...) beside the package's entry points, so they
// run under the `tenon-source` export condition, which resolves `tenon` to those same files (scripts/run-tests.mjs);
// the processes they start as a user would (the demo, `npm start`, the packed package) load the bundle.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;

/** The package's entry points (package.json "exports" and "bin"), as compiled by tsc. */
export const entryPoints = [
  "index.js",
  "http/index.js",
  "cluster/index.js",
  "engines/sqlite/index.js",
  "engines/postgres/index.js",
  "engines/mariadb/index.js",
  "bin/tenon.js",
];

/** `tenon`'s own entry point, which every other entry point imports. */
const core = join(root, "dist", "src", "index.js");

/**
 * The files that import `core` in the bundle: the other entry points and the engines' databases (which the `tenon`
 * command imports dynamically, so that esbuild counts them as entry points too).
 */
const coreImporters =
  /[\\/]dist[\\/]src[\\/](http[\\/]index|cluster[\\/]index|engines[\\/]\w+[\\/](index|\w+-database)|bin[\\/]tenon)\.js$/;

/**
 * Adds `import "<core>"` (nothing re-exported) to each of `coreImporters`. esbuild puts each file in the chunk of the
 * entry points that reach it; when every entry point reaches all of `tenon`, `tenon` is one chunk instead of one per
 * combination of entry points (a server loaded 13 files, now 7, for 17M fewer instructions of Node's loader).
 */
const coreFirst = {
  name: "core-first",
  setup(build) {
    build.onLoad({ filter: coreImporters }, async (args) => {
      const own = await readFile(args.path, "utf8");
      // Before tsc's sourceMappingURL comment, which esbuild reads to map the bundle back to src/.
      const at = own.includes("//# sourceMappingURL=") ? own.lastIndexOf("//# sourceMappingURL=") : own.length;
      const contents = `${own.slice(0, at)}import ${JSON.stringify(core)};\n${own.slice(at)}`;
      return { contents, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

/** Joins dist/src's compiled files into dist/pkg: one file per entry point and the chunks they share. */
export async function bundle() {
  const outdir = join(root, "dist", "pkg");
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: entryPoints.map((entry) => join("dist", "src", entry)),
    outbase: join("dist", "src"),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    packages: "external",
    // No keepNames: it wraps every named closure in a call that defines its `name`, also those made per request
    // (measured: 13k more instructions per S2 request). The names of classes are checked below instead.
    // Stack traces under --enable-source-maps lead back to the compiled files' own maps and so to src/.
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    plugins: [coreFirst],
  });
  checkClassNames(outdir);
}

/**
 * Fails when the bundle renamed a class (esbuild gives a top-level name that two files share a number, `Foo2`): a
 * class's `name` is seen in error names, log records and OpenAPI, and must be the one its source gives it.
 */
function checkClassNames(outdir) {
  const declared = /(?:^|[\s(=,;])class\s+([A-Za-z_$][\w$]*)|(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*class\b/g;
  const namesIn = (files) => {
    const names = new Set();
    for (const file of files) for (const m of readFileSync(file, "utf8").matchAll(declared)) names.add(m[1] ?? m[2]);
    return names;
  };
  const jsFiles = (dir) =>
    readdirSync(dir, { recursive: true })
      .filter((name) => String(name).endsWith(".js"))
      .map((name) => join(dir, String(name)));
  const source = namesIn(jsFiles(join(root, "dist", "src")));
  const renamed = [...namesIn(jsFiles(outdir))].filter((name) => !source.has(name));
  if (renamed.length > 0) throw new Error(`the bundle renamed classes (${renamed.join(", ")}): give them names of their own`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.json")], {
    stdio: "inherit",
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  await bundle();
}
