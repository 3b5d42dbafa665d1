// Bulk writes against the same number of single requests, through the demo: N companies inserted by N POSTs
// and by one POST /companies/bulk, then updated by N PUTs and by one bulk, then deleted by N DELETEs and by one
// bulk; and the lines of an order updated through PUT /orders (the batched detail UPDATE).
//   npm run build && node bench/bulk-writes.mjs [--items 200] [--rounds 3]
// DATABASE_URL=postgres://... or mariadb://... runs it on that database; its demo tables are dropped and
// recreated (use a database of its own). Default: a fresh SQLite file in a temporary directory.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: o } = parseArgs({ options: { items: { type: "string", default: "200" }, rounds: { type: "string", default: "3" } } });
const items = Number(o.items);
const directory = mkdtempSync(join(tmpdir(), "tenon-bulk-bench-"));
const { openDemoDatabase } = await import("../dist/examples/demo/database.js");
const { createDemoServer } = await import("../dist/examples/demo/app.js");
const database = await openDemoDatabase(process.env.DATABASE_URL, join(directory, "bench.sqlite"));
const server = await createDemoServer({ database, port: 0, reset: true, logFile: undefined });
await server.start();
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function call(method, path, body, token) {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers = { "Content-Type": "application/json" };
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    const request = http.request({ host: "127.0.0.1", port: server.port, path: `/api${path}`, method, headers, agent }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        const answer = Buffer.concat(chunks).toString();
        if (response.statusCode !== 200) reject(new Error(`${method} ${path}: ${response.statusCode} ${answer}`));
        else resolve(JSON.parse(answer));
      });
    });
    request.on("error", reject);
    request.end(text);
  });
}

const { token } = await call("POST", "/logon", { username: "editor", password: "editor" });
const seededCompany = (await call("GET", "/companies", undefined, token)).data[0].id;
const timed = async (work) => {
  const start = performance.now();
  const result = await work();
  return { ms: performance.now() - start, result };
};
const names = (round, kind) => Array.from({ length: items }, (_, i) => ({ name: `${kind} ${round}-${i}`, creditLimit: "100.00" }));
const rows = [];
for (let round = 1; round <= Number(o.rounds); round++) {
  const single = await timed(async () => {
    const out = [];
    for (const body of names(round, "single")) out.push(await call("POST", "/companies", body, token));
    return out;
  });
  const bulk = await timed(() => call("POST", "/companies/bulk", { insert: names(round, "bulk") }, token));
  const singleUpdate = await timed(async () => {
    const out = [];
    for (const company of single.result) out.push(await call("PUT", "/companies", { ...company, creditLimit: "200.00" }, token));
    return out;
  });
  const bulkUpdate = await timed(() =>
    call("POST", "/companies/bulk", { update: bulk.result.inserted.map((company) => ({ ...company, creditLimit: "200.00" })) }, token),
  );
  const singleDelete = await timed(async () => {
    for (const company of singleUpdate.result) await call("DELETE", `/companies/${company.id}/${company.versionId}`, undefined, token);
  });
  const bulkDelete = await timed(() =>
    call(
      "POST",
      "/companies/bulk",
      { delete: bulkUpdate.result.updated.map((company) => ({ id: company.id, versionId: company.versionId })) },
      token,
    ),
  );
  const lines = Array.from({ length: items }, (_, i) => ({ product: `P${i}`, quantity: 1, price: "1.00" }));
  const order = await call("POST", "/orders", { number: `SO-BENCH-${round}`, companyId: seededCompany, lines }, token);
  const linesUpdate = await timed(() =>
    call("PUT", "/orders", { ...order, lines: order.lines.map((line) => ({ ...line, quantity: 2 })) }, token),
  );
  rows.push([round, single.ms, bulk.ms, singleUpdate.ms, bulkUpdate.ms, singleDelete.ms, bulkDelete.ms, linesUpdate.ms]);
}
console.log(`${database.dialect.name}, ${items} items, ms (one client, keep-alive):`);
console.log("round | N inserts | bulk insert | N updates | bulk update | N deletes | bulk delete | PUT order, N lines changed");
for (const row of rows) console.log(row.map((value, i) => (i === 0 ? String(value) : value.toFixed(0))).join(" | "));
await server.stop();
await database.close();
agent.destroy();
rmSync(directory, { recursive: true, force: true });
