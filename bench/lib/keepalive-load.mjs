// A load generator with no dependency, run as its own process for bench/scaling.mjs:
// `node keepalive-load.mjs '<json>'` with {port, connections, seconds, requests: [{method, path, headers, body}]}
// sends the requests in turn on `connections` keep-alive connections for `seconds` and prints one
// `BENCH_JSON {...}` line: requests answered, answers per status, requests without an answer.
// It costs about as much CPU per request as a small server: on a machine with few cores it competes with the
// servers it measures, which bench/scaling.mjs reports beside its figures.
import { Agent, request } from "node:http";

const { port, connections, seconds, requests } = JSON.parse(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const statuses = {};
let answered = 0;
let failed = 0;
let next = 0;
let running = true;
const began = performance.now();

function one(spec) {
  return new Promise((resolve) => {
    const headers = { ...spec.headers };
    if (spec.body !== undefined) headers["Content-Type"] = "application/json";
    const req = request({ host: "127.0.0.1", port, path: spec.path, method: spec.method, headers, agent }, (res) => {
      res.resume();
      res.on("end", () => {
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        answered++;
        resolve();
      });
    });
    req.on("error", () => {
      failed++;
      resolve();
    });
    req.end(typeof spec.body === "function" ? undefined : spec.body);
  });
}

async function client() {
  while (running) {
    const spec = requests[next++ % requests.length];
    const body = spec.bodyTemplate === undefined ? spec.body : spec.bodyTemplate.replace("{n}", String(next));
    await one({ ...spec, body });
  }
}

setTimeout(() => (running = false), seconds * 1000);
await Promise.all(Array.from({ length: connections }, client));
agent.destroy();
const durationMs = performance.now() - began;
process.stdout.write(`BENCH_JSON ${JSON.stringify({ answered, failed, statuses, durationMs })}\n`);
