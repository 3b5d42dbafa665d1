// A server under valgrind's callgrind, counted only while `counted` loads it (instrumentation switched on
// with callgrind_control after `warm`): the instructions of user space, summed over every thread's output file.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Starts `node <args>` under callgrind in `cwd` with `env`, waits for its `LISTENING <port>` line, runs
 * `warm(port)` uncounted and `counted(port)` counted, stops it, and answers `{ warmed, counted, instructions }`
 * (what the two functions answered, and the instructions counted). `outFile` is the callgrind output's path
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
  counted,
  keep = false,
}) {
  const server = spawn(
    "valgrind",
    ["--tool=callgrind", "--smc-check=all-non-file", "--instr-atstart=no", `--callgrind-out-file=${outFile}`, process.execPath, ...args],
    { cwd, stdio: ["ignore", "pipe", stderr], env },
  );
  const port = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", (code) => reject(new Error(`${label} exited (${code}) before listening`)));
  });
  const warmed = await warm(port);
  execFileSync("callgrind_control", ["-i", "on", String(server.pid)], { stdio: "ignore" });
  const result = await counted(port);
  execFileSync("callgrind_control", ["-i", "off", String(server.pid)], { stdio: "ignore" });
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  const dir = path.dirname(outFile);
  let instructions = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(outFile)))) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    if (!keep) fs.rmSync(path.join(dir, f));
    instructions += Number(/^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return { warmed, counted: result, instructions };
}
