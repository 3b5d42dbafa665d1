// The fallback load generator, run as its own process: `node autocannon-runner.mjs '<json>'` with
// {url, connections, duration, spec}; prints one `BENCH_JSON {...}` line in wrk's units.
import autocannon from "autocannon";
import { requestSource } from "./requests.mjs";

const { url, connections, duration, spec } = JSON.parse(process.argv[2]);
const next = requestSource(spec);
const result = await autocannon({
  url,
  connections,
  duration,
  pipelining: 1,
  timeout: 10,
  requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
});
const ms = (v) => Math.round(v * 1000 * 10) / 10;
process.stdout.write(
  `BENCH_JSON ${JSON.stringify({
    requests: result.requests.total,
    durationUs: Math.round(result.duration * 1e6),
    connect: 0,
    read: result.errors,
    write: 0,
    status: result.non2xx,
    timeout: result.timeouts,
    p50Us: ms(result.latency.p50),
    p90Us: ms(result.latency.p90),
    p99Us: ms(result.latency.p99),
    meanUs: ms(result.latency.average),
    maxUs: ms(result.latency.max),
  })}\n`,
);
