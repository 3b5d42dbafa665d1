// Instructions per request of the logging path alone, without a server: building the request and response
// records of an S2-like request (`buildLogRequest`, `buildLogResponse`) and writing their JSON lines
// (`requestLine`, `responseLine`, what the JSON-lines writer does), and, as a second figure, their `toJson()`
// (what a writer of its own calls). Each figure runs the loop under callgrind twice, with 2,000 and 22,000
// iterations, and divides the difference by 20,000, so the start-up of Node is not counted.
//   node bench/log-records.mjs [lines|json]   (both when not named; needs valgrind; `npm run build` first)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dist = new URL("../dist/src/http/logging/", import.meta.url);
const { buildLogRequest, buildLogResponse } = await import(new URL("http-log-capture.js", dist).href);
const { requestLine, responseLine } = await import(new URL("json-lines.js", dist).href);
const { HttpLogParameters } = await import(new URL("http-log-parameters.js", dist).href);

const request = {
  host: "127.0.0.1:8080",
  uri: "/api/companies/42",
  sentMethod: "GET",
  remoteIp: "127.0.0.1",
  clientIp: "127.0.0.1",
  user: { username: "editor", areas: ["read", "write"], tenant: "north" },
  contentType: "",
  body: new Uint8Array(0),
  params: [],
  headers: [
    ["Host", "127.0.0.1:8080"],
    ["User-Agent", "wrk"],
    ["Accept", "application/json"],
    ["Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"],
    ["Connection", "keep-alive"],
  ],
  requestId: "6f1c2b8e-3a41-4c1b-9d0a-0e6f3c2b8a11",
  slowRequest: undefined,
};
const response = {
  statusCode: 200,
  content: JSON.stringify({
    id: 42,
    name: "Company 42",
    email: "c42@example.com",
    vatNumber: "US42",
    creditLimit: "4200.00",
    versionId: 0,
  }),
  contentType: "application/json; charset=utf-8",
  contentEncoding: "",
};
const parameters = new HttpLogParameters();

/** One request's logging: both records built and written as lines (or as `toJson()` objects). */
function once(json) {
  const logged = buildLogRequest(request, parameters, undefined);
  const answered = buildLogResponse(request, response, parameters, undefined);
  if (json) return Object.keys(logged.toJson()).length + Object.keys(answered.toJson()).length;
  return requestLine(logged).length + responseLine(answered).length;
}

const [mode, count] = process.argv.slice(2);
if (mode === "--loop") {
  const json = process.argv[4] === "json";
  let sink = 0;
  for (let i = 0; i < Number(count); i++) sink += once(json);
  if (sink === 0) console.log("nothing written");
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tenon-log-records-"));
  const script = fileURLToPath(import.meta.url);
  const instructions = (n, kind) => {
    const out = path.join(dir, `callgrind-${kind}-${n}.out`);
    execFileSync("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, process.execPath, script, "--loop", String(n), kind], {
      stdio: "ignore",
    });
    let total = 0;
    for (const f of fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(out)))) {
      total += Number(/^totals: (\d+)/m.exec(fs.readFileSync(path.join(dir, f), "utf8"))?.[1] ?? 0);
    }
    return total;
  };
  for (const kind of mode === undefined ? ["lines", "json"] : [mode]) {
    const perRequest = (instructions(22000, kind) - instructions(2000, kind)) / 20000;
    console.log(
      `logging ${kind === "lines" ? "as JSON lines" : "with toJson()"}: ${Math.round(perRequest).toLocaleString("en")} instructions per request`,
    );
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
