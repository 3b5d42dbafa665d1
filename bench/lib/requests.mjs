// What the load generator sends, per scenario: one spec, turned into a wrk Lua script or into
// an autocannon request source. The two produce the same requests.

const COUNTRIES = ["DE", "FR", "NL", "IT", "ES", "BE", "AT", "PL"];

/** The PUT body of S4 for row `id` read at `version` (email, VAT and limit as the data set has them). */
export function updateBody(id, version) {
  return JSON.stringify({
    id,
    name: `Company Renamed ${id}`,
    email: `contact${id}@example.com`,
    vatNumber: `${COUNTRIES[id % 8]}${String(id).padStart(9, "0")}`,
    creditLimit: (id % 1000) * 100,
    versionId: version,
  });
}

const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH_JSON {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%.1f,"p90Us":%.1f,"p99Us":%.1f,"meanUs":%.1f,"maxUs":%.1f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
`;

const luaString = (s) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/**
 * The wrk script of a spec. Kinds: `static` {method, path, body?}; `random-id` {prefix, lo, hi};
 * `random-route` {routes, lo, hi}; `update-cycle` {lo, hi} (ids in turn, the version each row is at).
 */
export function luaScript(spec, threads = 1) {
  switch (spec.kind) {
    case "static":
      return `wrk.method = ${luaString(spec.method)}
wrk.path = ${luaString(spec.path)}
${spec.body === undefined ? "" : `wrk.body = ${luaString(spec.body)}\nwrk.headers["Content-Type"] = "application/json"`}
${DONE}`;
    case "random-id":
    case "random-route":
      // 4096 requests formatted once per thread, then sent in turn: the generator stays cheap.
      return `local reqs = {}
local n = 4096
local i = 0
init = function(args)
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
  for k = 1, n do
    local id = math.random(${spec.lo}, ${spec.hi})
    ${
      spec.kind === "random-id"
        ? `reqs[k] = wrk.format("GET", ${luaString(spec.prefix)} .. id)`
        : `reqs[k] = wrk.format("GET", "/api/r" .. math.random(0, ${spec.routes - 1}) .. "/" .. id)`
    }
  end
end
request = function()
  i = i % n + 1
  return reqs[i]
end
${DONE}`;
    case "update-cycle":
      // Each wrk thread walks its own slice of [lo, hi] in turn and sends the version the row is at.
      // wrk calls request() once on thread 0's state to check the script and never sends that request,
      // so thread 0 answers its first call with a throw-away request.
      return `local threads, first, total = ${threads}, ${spec.lo}, ${spec.hi - spec.lo + 1}
local count = 0
setup = function(thread)
  thread:set("tid", count)
  count = count + 1
end
local lo, span, counter, discard = first, total, 0, false
local headers = { ["Content-Type"] = "application/json" }
local countries = { ${COUNTRIES.map((c) => `"${c}"`).join(", ")} }
init = function(args)
  local tid = tonumber(wrk.thread:get("tid")) or 0
  span = math.floor(total / threads)
  lo = first + tid * span
  discard = (tid == 0)
end
request = function()
  if discard then
    discard = false
    return wrk.format("PUT", "/api/companies", headers, "{}")
  end
  local id = lo + (counter % span)
  local version = 1 + math.floor(counter / span)
  counter = counter + 1
  local body = string.format('{"id":%d,"name":"Company Renamed %d","email":"contact%d@example.com","vatNumber":"%s%09d","creditLimit":%d,"versionId":%d}',
    id, id, id, countries[id % 8 + 1], id, (id % 1000) * 100, version)
  return wrk.format("PUT", "/api/companies", headers, body)
end
${DONE}`;
    default:
      throw new Error(`unknown load kind ${spec.kind}`);
  }
}

/** The same requests for autocannon: a function returning the next `{method, path, body?, headers?}`. */
export function requestSource(spec) {
  const json = { "content-type": "application/json" };
  const rand = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
  switch (spec.kind) {
    case "static": {
      const r =
        spec.body === undefined
          ? { method: spec.method, path: spec.path }
          : { method: spec.method, path: spec.path, body: spec.body, headers: json };
      return () => r;
    }
    case "random-id":
      return () => ({ method: "GET", path: `${spec.prefix}${rand(spec.lo, spec.hi)}` });
    case "random-route":
      return () => ({ method: "GET", path: `/api/r${rand(0, spec.routes - 1)}/${rand(spec.lo, spec.hi)}` });
    case "update-cycle": {
      const span = spec.hi - spec.lo + 1;
      let counter = 0;
      return () => {
        const id = spec.lo + (counter % span);
        const version = 1 + Math.floor(counter / span);
        counter += 1;
        return { method: "PUT", path: "/api/companies", body: updateBody(id, version), headers: json };
      };
    }
    default:
      throw new Error(`unknown load kind ${spec.kind}`);
  }
}
