// The OpenAPI document of a large application (issue 19): 500 entities, each with a generic controller of ten
// routes (5,000 routes), built on the first request and then served from one cached text.
//
//   npm run build && node bench/openapi-document.mjs [--entities 500] [--requests 200] [--rounds 5]
//
// Prints: the routes and size of the document; the time to build it (fresh application per round: the
// descriptions, every entity's schemas, the paths, the JSON text, and the copy `openApi()` answers), wall
// clock and CPU, median and worst; the time of the first request (build included) and of the cached
// requests after it, over a real socket; and the load average (other processes slow the wall clock).
import { request } from "node:http";
import { performance } from "node:perf_hooks";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const entities = option("entities", 500);
const requests = option("requests", 200);
const rounds = option("rounds", 5);

const { largeApp } = await import("../dist/test/http/openapi/large-app.js");

/** One GET on a kept-alive agent-less connection: answers the time in ms and the body's length. */
function get(port, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      let bytes = 0;
      res.on("data", (chunk) => (bytes += chunk.length));
      res.on("end", () => resolve({ ms: performance.now() - started, bytes, status: res.statusCode }));
    });
    req.on("error", reject);
    req.end();
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (ms) => ms.toFixed(1);

/** CPU time of this process in ms (user and system): unlike the wall clock, it hardly grows when other processes load the machine. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const builds = [];
const buildCpu = [];
let routes = 0;
let size = 0;
for (let round = 0; round < rounds; round++) {
  const server = largeApp(entities);
  const started = performance.now();
  const cpuStarted = cpuMs();
  const document = server.openApi();
  builds.push(performance.now() - started);
  buildCpu.push(cpuMs() - cpuStarted);
  routes = Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
  size = Buffer.byteLength(JSON.stringify(document));
}

const server = largeApp(entities);
server.port = 0;
server.addBindAddress("127.0.0.1");
server.serveOpenApi();
await server.start();
const first = await get(server.port, "/openapi.json");
const cached = [];
for (let i = 0; i < requests; i++) cached.push((await get(server.port, "/openapi.json")).ms);
await server.stop();

console.log(`OpenAPI document of ${entities} entities: ${routes} operations, ${(size / 1048576).toFixed(2)} MiB`);
console.log(
  `build (fresh application, ${rounds} rounds): median ${fixed(median(builds))} ms wall, ${fixed(median(buildCpu))} ms CPU; worst ${fixed(Math.max(...builds))} ms wall`,
);
console.log(
  `load average while measuring: ${(await import("node:os"))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(", ")}`,
);
console.log(`first request (build and send): ${fixed(first.ms)} ms, status ${first.status}, ${first.bytes} bytes`);
console.log(`cached requests (${requests}): median ${fixed(median(cached))} ms, worst ${fixed(Math.max(...cached))} ms`);
