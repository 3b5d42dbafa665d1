// `WORKERS=2 npm start` run the way a user runs it, from a clean build: a copy of the repository (its own
// directory, so this run's dist/ is never touched), dist/ removed before each start, the real `npm start`
// with a port, a data directory and a log file of its own. Every start must build, serve from both workers
// and stop on SIGTERM with exit code 0, ten times in a row: each worker used to run the build again while
// the others imported from dist/, and a worker died on a half-written module.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ask } from "../http/http-test-client.js";
import { freePorts } from "../support/free-port.js";
import { cleanUpDirectory, createOwnedDirectory } from "../support/owned-directory.js";
import { waitFor } from "./demo-load.js";

/** The repository this test was compiled from. */
const repository = fileURLToPath(new URL("../../..", import.meta.url));
/** What the build and `npm start` read; node_modules is linked, dist/ and data/ are the copy's own. */
const copied = ["package.json", "tsconfig.json", "src", "test", "examples", "scripts"];
const runs = 10;

/** `npm start` in `directory`, in a process group of its own; its output is collected. */
function npmStart(
  directory: string,
  env: Record<string, string>,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  // The argument after `--` (which the demo ignores) names the copy on the primary's command line, so that the
  // owned directory's cleanup finds the primary and its workers if this process is killed before stopping them.
  const child = spawn("npm", ["start", "--", `--started-in=${directory}`], {
    cwd: directory,
    env: { ...process.env, DATABASE_URL: "", RATE_LIMIT: "", REDIS_URL: "", OTEL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

describe("WORKERS=2 npm start from a clean build", () => {
  let copy = "";

  before(() => {
    copy = createOwnedDirectory("tenon-npm-start-");
    for (const entry of copied) {
      cpSync(join(repository, entry), join(copy, entry), {
        recursive: true,
        filter: (source) => !source.includes("/node_modules") && !source.endsWith("/examples/client"),
      });
    }
    symlinkSync(join(repository, "node_modules"), join(copy, "node_modules"), "dir");
  });

  after(() => {
    if (copy !== "") cleanUpDirectory(copy);
  });

  for (let run = 1; run <= runs; run++) {
    test(`start ${run} of ${runs} builds once, serves from both workers and stops on SIGTERM with code 0`, {
      timeout: 240_000,
    }, async () => {
      rmSync(join(copy, "dist"), { recursive: true, force: true });
      const data = join(copy, `data-${run}`);
      mkdirSync(data);
      const [port, metricsPort] = await freePorts(2);
      const started = npmStart(copy, {
        WORKERS: "2",
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        DEMO_DB_FILE: join(data, "demo.sqlite"),
        LOG_FILE: join(data, "http.log"),
      });
      const onExit = (): void => killGroup(started.child.pid);
      process.once("exit", onExit);
      try {
        await Promise.race([
          waitFor(() => /tenon: primary \d+ serves with workers \d+, \d+/.test(started.output()), "both workers serving", 180_000),
          started.exited.then((code) => {
            throw new Error(`npm start exited with code ${code} before serving. Output:\n${started.output()}`);
          }),
        ]);
        const workers = [...started.output().matchAll(/tenon: worker (\d+) serving/g)].map((match) => match[1]);
        assert.equal(new Set(workers).size, 2, started.output());
        assert.doesNotMatch(started.output(), /SyntaxError|exited with code|before serving/, started.output());
        // Fresh connections go to the workers in turn: each of them answers.
        for (let i = 0; i < 4; i++) {
          const health = await ask(port, "/api/health");
          assert.equal(health.status, 200, health.text);
          assert.deepEqual(health.json, { status: "ok" });
        }
        // As docs/scaling.md says: SIGTERM to the primary stops every process, and npm passes on its exit code 0.
        const primary = Number(/tenon: primary (\d+) serves/.exec(started.output())?.[1]);
        process.kill(primary, "SIGTERM");
        assert.equal(await started.exited, 0, started.output());
        assert.match(started.output(), /SIGTERM: stopping 2 workers/);
      } finally {
        killGroup(started.child.pid);
        process.off("exit", onExit);
      }
    });
  }
});
