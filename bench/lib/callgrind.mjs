// A server under valgrind's callgrind, counted only while `counted` loads it (instrumentation switched on
// with callgrind_control after `warm`, and its counters zeroed after `settle`): the instructions of user space,
// summed over every thread's output file.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Starts `node <args>` under callgrind in `cwd` with `env`, waits for its `LISTENING <port>` line, runs
 * `warm(port)` uncounted, `settle(port)` (when given) instrumented but thrown away, and `counted(port)` counted,
 * stops it, and answers `{ warmed, counted, instructions }` (what `warm` and `counted` answered, and the
 * instructions counted). What the first requests after switching instrumentation on cost more than the
 * later ones (a one-off, whatever the count) falls in `settle`, outside the count. `outFile` is the callgrind output's path
 * (removed afterwards unless `keep`, for `callgrind_annotate`); `stderr` "pipe" or "ignore".
 */
export async function countUnderCallgrind({
  args,
  cwd,
  env,
  outFile,
  stderr = "ignore",
  label = "the server",
  warm,
  settle,
  counted,
  keep = false,
}) {
  const server = spawn(
    "valgrind",
    ["--tool=callgrind", "--smc-check=all-non-file", "--instr-atstart=no", `--callgrind-out-file=${outFile}`, process.execPath, ...args],
    { cwd, stdio: ["ignore", "pipe", stderr], env },
  );
  let errors = "";
  server.stderr?.on("data", (d) => {
    errors = (errors + d).slice(-4000);
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", (code) => reject(new Error(`${label} exited (${code}) before listening\n${errors}`)));
  });
  const exited = new Promise((resolve) => server.once("exit", resolve));
  let warmed;
  let result;
  try {
    warmed = await warm(port);
    execFileSync("callgrind_control", ["-i", "on", String(server.pid)], { stdio: "ignore" });
    if (settle !== undefined) {
      await settle(port);
      execFileSync("callgrind_control", ["-z", String(server.pid)], { stdio: "ignore" });
    }
    result = await counted(port);
    execFileSync("callgrind_control", ["-i", "off", String(server.pid)], { stdio: "ignore" });
  } catch (error) {
    server.kill("SIGKILL");
    await exited;
    throw new Error(`${label}: ${error.message}\n${errors}`, { cause: error });
  }
  server.kill("SIGTERM");
  await exited;
  const dir = path.dirname(outFile);
  let instructions = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(outFile)))) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    if (!keep) fs.rmSync(path.join(dir, f));
    instructions += Number(/^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return { warmed, counted: result, instructions };
}
