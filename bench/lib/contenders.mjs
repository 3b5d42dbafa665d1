// The contenders: each a separate server process serving the same routes from the same data.
// Every server reads the BENCH_* environment (see contenders/common/env.mjs) and prints
// `LISTENING <port>` once it listens on 127.0.0.1.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT_DIR = path.resolve(BENCH_DIR, "..");
const TSC = path.join(ROOT_DIR, "node_modules", "typescript", "bin", "tsc");

function newestMtime(dir) {
  let t = 0;
  if (!fs.existsSync(dir)) return t;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) t = Math.max(t, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}

/** Compiles a TypeScript project of bench/ when its output is missing or older than its sources. */
function compile(project, srcDir, outFile) {
  const out = path.join(BENCH_DIR, outFile);
  if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= newestMtime(path.join(BENCH_DIR, srcDir))) return;
  try {
    execFileSync(process.execPath, [TSC, "-p", path.join(BENCH_DIR, project)], { cwd: BENCH_DIR, stdio: "pipe" });
  } catch (e) {
    // tsc still emits on type errors; a missing output is the real failure.
    if (!fs.existsSync(out)) throw new Error(`compiling ${project} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    process.stderr.write(`warning: ${project} compiled with type errors:\n${e.stdout ?? ""}\n`);
  }
}

/** The Tenon contender exists once the framework is built (`npm run build`: the bundle `tenon` loads) and bench/tenon-app is written. */
function tenonReady() {
  return (
    fs.existsSync(path.join(BENCH_DIR, "tenon-app", "tsconfig.json")) &&
    fs.existsSync(path.join(ROOT_DIR, "dist", "pkg", "http", "index.js"))
  );
}

/**
 * The contenders a comma-separated list names, in its order; throws for a name no contender has and, with
 * `ready`, for a contender that cannot run yet (Tenon before `npm run build`).
 */
export function namedContenders(list, { ready = false } = {}) {
  return list.split(",").map((id) => {
    const c = CONTENDERS.find((x) => x.id === id.trim());
    if (c === undefined) throw new Error(`unknown contender ${id}; known: ${CONTENDERS.map((x) => x.id).join(" ")}`);
    if (ready && c.available && !c.available()) throw new Error(`${c.label} is not ready (for Tenon: npm run build)`);
    return c;
  });
}

/** Every contender, in report order; `raw` is the baseline every ratio refers to. */
export const CONTENDERS = [
  { id: "raw", label: "raw node:http", args: ["contenders/raw/server.mjs"], s7: true },
  // raw node:http writing the two headers Tenon adds by default (Server, X-Request-Id with a constant id): what
  // node:http itself charges for those defaults, the floor under Tenon's S1 (docs/benchmarks.md).
  {
    id: "raw-headers",
    label: "raw + Tenon's headers",
    args: ["contenders/raw/server.mjs"],
    env: { BENCH_RAW_HEADERS: "tenon" },
    optIn: true,
  },
  {
    id: "tenon",
    label: "Tenon",
    args: ["tenon-app/dist/server.js"],
    s7: true,
    available: tenonReady,
    prepare() {
      // The app imports `tenon` as a user would; the package is this repository, linked in.
      const link = path.join(BENCH_DIR, "node_modules", "tenon");
      if (!fs.existsSync(link)) fs.symlinkSync(path.relative(path.dirname(link), ROOT_DIR), link, "dir");
      // A bench/node_modules shared with another checkout (a symlinked folder) would measure that checkout's build.
      if (fs.realpathSync(link) !== fs.realpathSync(ROOT_DIR))
        throw new Error(`bench/node_modules/tenon points at ${fs.realpathSync(link)}, not at this checkout (${ROOT_DIR}): link it here`);
      compile("tenon-app", "tenon-app/src", "tenon-app/dist/server.js");
    },
  },
  // The same app on each SQLite driver named (the `tenon` contender runs on the line's default: node:sqlite on
  // Node.js 24+, better-sqlite3 before), to compare the two drivers in one run.
  ...["node:sqlite", "better-sqlite3"].map((driver) => ({
    id: `tenon-${driver.replace("node:", "node-")}`,
    label: `Tenon on ${driver}`,
    args: ["tenon-app/dist/server.js"],
    env: { BENCH_SQLITE_DRIVER: driver },
    optIn: true,
    available: tenonReady,
    prepare: () => CONTENDERS.find((c) => c.id === "tenon").prepare(),
  })),
  { id: "fastify", label: "Fastify 5", args: ["contenders/fastify/server.mjs"], s7: true },
  {
    id: "nest",
    label: "NestJS + TypeORM",
    args: ["contenders/nest/dist/main.js"],
    prepare: () => compile("contenders/nest", "contenders/nest/src", "contenders/nest/dist/main.js"),
  },
  { id: "express", label: "Express 5", args: ["contenders/express/server.mjs"] },
];

/** Versions of the frameworks as installed in bench/node_modules. */
export function frameworkVersions() {
  const v = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(BENCH_DIR, "node_modules", name, "package.json"), "utf8")).version;
    } catch {
      return null;
    }
  };
  const root = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(ROOT_DIR, "node_modules", name, "package.json"), "utf8")).version;
    } catch {
      return null;
    }
  };
  return {
    fastify: v("fastify"),
    "@nestjs/core": v("@nestjs/core"),
    typeorm: v("typeorm"),
    express: v("express"),
    "better-sqlite3": root("better-sqlite3"),
    pg: root("pg"),
    tenon: root("../package.json") ?? JSON.parse(fs.readFileSync(path.join(ROOT_DIR, "package.json"), "utf8")).version,
  };
}
