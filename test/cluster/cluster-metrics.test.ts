import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { freePort } from "../support/free-port.js";
import { ask } from "../http/http-test-client.js";
import { parseExposition, samplesOf, sampleValue } from "../http/operations/exposition.js";

const app = fileURLToPath(new URL("./metrics-workers-app.js", import.meta.url));
const token = "cluster-token-0123456789";

test("with several workers, the primary serves the sum of every worker's metrics", { timeout: 60000 }, async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [app], {
    env: { ...process.env, APP_PORT: String(port), METRICS_TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let output = "";
    child.stdout.setEncoding("utf8");
    const metricsPort = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (chunk: string) => {
        output += chunk;
        const match = /METRICS (\d+)/.exec(output);
        if (match !== null) resolve(Number(match[1]));
      });
      child.once("exit", (code) => reject(new Error(`the program exited with ${code}: ${output}`)));
    });
    const pids = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const answer = await ask(port, `/pid/${i}`);
      assert.equal(answer.status, 200);
      pids.add((answer.json as { pid: number }).pid);
    }
    assert.equal(pids.size, 2, "both workers served");
    assert.equal((await ask(metricsPort, "/metrics")).status, 401);
    const answer = await ask(metricsPort, "/metrics", { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200, answer.text);
    const metrics = parseExposition(answer.text);
    assert.equal(sampleValue(metrics, "tenon_http_request_duration_seconds_count", { method: "GET", route: "/pid/?", status: "200" }), 40);
    assert.equal(samplesOf(metrics, "tenon_http_requests_in_flight").length, 1, "one summed series, not one per worker");
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "exit");
  }
  assert.equal(child.exitCode, 0);
});
