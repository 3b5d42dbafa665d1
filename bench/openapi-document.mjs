// The OpenAPI document of a large application (issue 19): 500 entities, each with a generic controller of ten
// routes (5,000 routes), built on the first request and then served from one cached buffer.
//
//   npm run build && node bench/openapi-document.mjs [--entities 500] [--requests 200] [--rounds 5]
//
// Prints: the routes and size of the document; the first request of a fresh application (the descriptions,
// every entity's schemas, the paths, the JSON text, and sending it over a socket), median and worst; the
// time of `openApi()` (the same build plus the parsed copy it answers), wall clock and CPU; the cached
// requests after the first; and the load average (other processes slow the wall clock).
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

const copies = [];
const copyCpu = [];
const firsts = [];
let routes = 0;
let size = 0;
for (let round = 0; round < rounds; round++) {
  // The served path: a fresh application's first request builds the document and sends it.
  const served = largeApp(entities);
  served.port = 0;
  served.addBindAddress("127.0.0.1");
  served.serveOpenApi();
  await served.start();
  firsts.push((await get(served.port, "/openapi.json")).ms);
  await served.stop();
  // openApi(): the build plus the copy it answers (a JSON.parse of the text).
  const server = largeApp(entities);
  const started = performance.now();
  const cpuStarted = cpuMs();
  const document = server.openApi();
  copies.push(performance.now() - started);
  copyCpu.push(cpuMs() - cpuStarted);
  routes = Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
  size = Buffer.byteLength(JSON.stringify(document));
}

const server = largeApp(entities);
server.port = 0;
server.addBindAddress("127.0.0.1");
server.serveOpenApi();
await server.start();
await get(server.port, "/openapi.json");
const cached = [];
for (let i = 0; i < requests; i++) cached.push((await get(server.port, "/openapi.json")).ms);
await server.stop();

console.log(`OpenAPI document of ${entities} entities: ${routes} operations, ${(size / 1048576).toFixed(2)} MiB`);
console.log(
  `first request of a fresh application (build and send, ${rounds} rounds): median ${fixed(median(firsts))} ms, worst ${fixed(Math.max(...firsts))} ms`,
);
console.log(`openApi() (build and a parsed copy): median ${fixed(median(copies))} ms wall, ${fixed(median(copyCpu))} ms CPU`);
console.log(`cached requests (${requests}): median ${fixed(median(cached))} ms, worst ${fixed(Math.max(...cached))} ms`);
console.log(
  `load average while measuring: ${(await import("node:os"))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(", ")}`,
);
