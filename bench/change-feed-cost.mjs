// The write cost of the change feed's outbox (docs/changes.md), in instructions per request under callgrind:
// S4 (PUT with version check) and S5 (POST insert) of Tenon's contender, with its Company as it is (no change
// feed: what every entity without @ChangeFeed pays) and with BENCH_CHANGE_FEED=1 (the same table through a
// subclass with @ChangeFeed: each write also serializes the row, raises the counter and inserts its record in the
// same transaction). Prints each figure and the ratio on/off.
//   node bench/change-feed-cost.mjs [--scenarios S4,S5] [--warmup 40] [--duration 30]
// Needs valgrind and wrk (or autocannon), and `npm run build` first.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR } from "./lib/contenders.mjs";

const { values: o } = parseArgs({
  options: {
    scenarios: { type: "string", default: "S4,S5" },
    warmup: { type: "string", default: "40" },
    duration: { type: "string", default: "30" },
  },
});

/** Instructions per request of Tenon in `scenario`, with the change feed on or off. */
function measure(scenario, feed) {
  const result = spawnSync(
    process.execPath,
    [
      path.join(BENCH_DIR, "instructions-per-request.mjs"),
      "--scenario",
      scenario,
      "--contenders",
      "tenon",
      "--warmup",
      o.warmup,
      "--duration",
      o.duration,
    ],
    { cwd: BENCH_DIR, encoding: "utf8", env: { ...process.env, BENCH_CHANGE_FEED: feed ? "1" : "" } },
  );
  const match = /: ([\d,]+) instructions per request \((\d+) requests counted/.exec(result.stdout ?? "");
  if (match === null) throw new Error(`no figure for ${scenario} (feed ${feed ? "on" : "off"}):\n${result.stdout}\n${result.stderr}`);
  return { perRequest: Number(match[1].replaceAll(",", "")), requests: Number(match[2]) };
}

for (const scenario of o.scenarios.split(",")) {
  const off = measure(scenario, false);
  const on = measure(scenario, true);
  console.log(
    `${scenario}: feed off ${off.perRequest.toLocaleString("en")} instructions per request (${off.requests} requests), ` +
      `feed on ${on.perRequest.toLocaleString("en")} (${on.requests}); on/off ${(on.perRequest / off.perRequest).toFixed(2)}`,
  );
}
