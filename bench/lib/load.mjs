// The load generator, always a separate process: wrk (Debian's package) when present, else autocannon.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { luaScript } from "./requests.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

/** `{name, version}` of the load generator to use ('wrk' or 'autocannon'), honouring a preference. */
export function pickLoader(preference) {
  if (preference !== "autocannon") {
    try {
      const v = execFileSync("wrk", ["-v"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).split("\n")[0];
      return { name: "wrk", version: v.replace(/\s*Copyright.*/, "").trim() };
    } catch (e) {
      const text = `${e.stdout ?? ""}${e.stderr ?? ""}`; // `wrk -v` exits 1 after printing its version
      if (/wrk/.test(text))
        return {
          name: "wrk",
          version: text
            .split("\n")[0]
            .replace(/\s*Copyright.*/, "")
            .trim(),
        };
      if (preference === "wrk") throw new Error("wrk was asked for and is not installed");
    }
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(here, "..", "node_modules", "autocannon", "package.json"), "utf8"));
  return { name: "autocannon", version: `autocannon ${pkg.version}` };
}

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      const m = /BENCH_JSON (\{.*\})/.exec(out);
      if (m) resolve(JSON.parse(m[1]));
      else reject(new Error(`${cmd} exited ${code} without a result:\n${out}\n${err}`));
    });
  });
}

/**
 * Runs one load of `seconds` with `connections` against 127.0.0.1:`port`. Resolves
 * `{rps, requests, errors, p50Ms, p90Ms, p99Ms, meanMs, maxMs}`.
 */
export async function runLoad({ loader, port, spec, connections, seconds, threads = 1, scriptDir }) {
  let r;
  if (loader.name === "wrk") {
    const script = path.join(scriptDir, `load-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
    fs.writeFileSync(script, luaScript(spec, threads));
    try {
      r = await run("wrk", [
        "-t",
        String(threads),
        "-c",
        String(connections),
        "-d",
        `${seconds}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        `http://127.0.0.1:${port}`,
      ]);
    } finally {
      fs.rmSync(script, { force: true });
    }
  } else {
    r = await run(process.execPath, [
      path.join(here, "autocannon-runner.mjs"),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, connections, duration: seconds, spec }),
    ]);
  }
  const ms = (us) => Math.round(us) / 1000;
  return {
    rps: r.requests / (r.durationUs / 1e6),
    requests: r.requests,
    errors: r.connect + r.read + r.write + r.status + r.timeout,
    non2xx: r.status,
    p50Ms: ms(r.p50Us),
    p90Ms: ms(r.p90Us),
    p99Ms: ms(r.p99Us),
    meanMs: ms(r.meanUs),
    maxMs: ms(r.maxUs),
  };
}
