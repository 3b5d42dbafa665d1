// One contender server as a child process: start-up time to the first answered request, peak RSS
// (VmHWM from /proc), and a clean stop.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";

const live = new Set();
const killAll = () => {
  for (const c of live) {
    try {
      c.kill("SIGKILL");
    } catch {
      /* gone */
    }
  }
};
process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });

function getOnce(port, path) {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", () => resolve(0));
    req.setTimeout(2000, () => {
      req.destroy();
      resolve(0);
    });
  });
}

/** Peak resident set size of a process in MiB (VmHWM), or null where /proc has none. */
export function peakRssMiB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The resident set size of a process now, in MiB (VmRSS), or null where /proc has none. */
export function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * CPU time a process has used so far, in nanoseconds: the run time of each of its threads (user and kernel,
 * from /proc/<pid>/task/<tid>/schedstat), or null where /proc has none. Read before and after a load, it
 * gives the server's CPU per request, which does not count the time the server waits for the load generator.
 */
export function cpuNs(pid) {
  try {
    let total = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        /* the thread ended between the listing and the read */
      }
    }
    return total;
  } catch {
    return null;
  }
}

/**
 * Starts `node <args>` in `cwd` with `env`, waits for its `LISTENING <port>` line and then for the
 * first 200 on `readyPath`. Resolves `{port, pid, startupMs, stop()}`.
 */
export async function startServer({ args, cwd, env, readyPath = "/api/health", timeoutMs = 60000, nodeArgs = [] }) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd,
    env: { ...process.env, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`no LISTENING line within ${timeoutMs} ms from ${args.join(" ")}\n${stderr}`)),
      timeoutMs,
    );
    child.stdout.on("data", (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
        out = "";
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited (${code ?? signal}) before listening\n${stderr}`));
    });
  });
  child.stdout.resume();
  for (;;) {
    if ((await getOnce(port, readyPath)) === 200) break;
    if (performance.now() - t0 > timeoutMs) throw new Error(`no 200 on ${readyPath} within ${timeoutMs} ms\n${stderr}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const startupMs = performance.now() - t0;
  return {
    port,
    pid: child.pid,
    startupMs,
    stderr: () => stderr,
    async stop() {
      if (!live.has(child)) return exited;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      const r = await exited;
      clearTimeout(timer);
      return r;
    },
  };
}
