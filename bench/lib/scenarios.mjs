// The scenarios of issue 8. Each names its load (see requests.mjs), its contenders, its database
// and the environment its servers get.
import { updateBody } from "./requests.mjs";

const MAIN = ["raw", "tenon", "fastify", "nest", "express"];
const ROUTING = ["raw", "tenon", "fastify"];
const SERIES = ["raw", "tenon"];

/** The S3 filter body with a page of `limit`. */
export const selectBody = (limit) =>
  JSON.stringify({
    where: [{ columnName: "name", condition: "LIKE", value: "Comp%" }],
    orderBy: [{ columnName: "name", direction: "ASC" }],
    start: 0,
    limit,
  });

const INSERT_BODY = JSON.stringify({ name: "New Company", email: "new@example.com", vatNumber: "FR12345678901", creditLimit: 5000 });

/** All scenarios for a data set of `rows` rows, in run order. */
export function allScenarios(rows) {
  const byId = { kind: "random-id", prefix: "/api/companies/", lo: 1, hi: rows };
  const half = Math.floor(rows / 2);
  // S4: warm-up renames the upper half, the measurement the lower half, so the load always knows
  // the version each row is at (every server start gets a fresh copy of the data).
  const update = { spec: { kind: "update-cycle", lo: 1, hi: half }, warmSpec: { kind: "update-cycle", lo: half + 1, hi: rows } };
  const s = [
    { id: "S1", title: "GET constant JSON", contenders: MAIN, spec: { kind: "static", method: "GET", path: "/api/health" } },
    { id: "S2", title: "GET one company by id", contenders: MAIN, spec: byId },
    {
      id: "S3",
      title: "POST select: LIKE + order + page of 100 + count",
      contenders: MAIN,
      spec: { kind: "static", method: "POST", path: "/api/companies/select", body: selectBody(100) },
    },
    { id: "S4", title: "PUT with version check (update + reload)", contenders: MAIN, write: true, ...update },
    {
      id: "S5",
      title: "POST insert: validation + audit columns + sequence",
      contenders: MAIN,
      write: true,
      spec: { kind: "static", method: "POST", path: "/api/companies", body: INSERT_BODY },
    },
    {
      id: "S6",
      title: "S2 with request logging (JSON lines to a file)",
      contenders: MAIN,
      spec: byId,
      env: { BENCH_LOG: "file" },
      relatesTo: "S2",
    },
    {
      id: "S6-slow",
      title: "S2 with a log writer taking 50 ms per entry",
      contenders: SERIES,
      spec: byId,
      env: { BENCH_LOG: "slow" },
      envFor: { raw: { BENCH_LOG: "" } },
      relatesTo: "S2",
    },
    ...[10, 1000, 10000].map((n) => ({
      id: `S7-${n}`,
      title: `route resolution, ${n} extra routes`,
      contenders: ROUTING,
      spec: { kind: "random-route", routes: n, lo: 1, hi: 1000 },
      env: { BENCH_ROUTES: String(n) },
    })),
    // The same comparisons as S6/S2 and S7 flatness, but with both sides measured in every round, the same
    // contender alternating between them: on a shared machine whose speed drifts over minutes, a ratio of two
    // runs a few seconds apart is steadier than one of two scenarios measured ten minutes apart.
    {
      id: "S6-paired",
      title: "S6 / S2 (logging to a file), alternating in each round",
      contenders: SERIES,
      paired: true,
      variants: [
        { label: "S2", spec: byId, env: {} },
        { label: "S6", spec: byId, env: { BENCH_LOG: "file" } },
      ],
    },
    {
      id: "S6-slow-paired",
      title: "S6-slow / S2 (50 ms writer), alternating in each round",
      contenders: ["tenon"],
      paired: true,
      variants: [
        { label: "S2", spec: byId, env: {} },
        { label: "S6-slow", spec: byId, env: { BENCH_LOG: "slow" } },
      ],
    },
    {
      id: "S7-paired",
      title: "S7 10,000 / 10 routes, alternating in each round",
      contenders: ROUTING,
      paired: true,
      variants: [10, 10000].map((n) => ({
        label: `S7-${n}`,
        spec: { kind: "random-route", routes: n, lo: 1, hi: 1000 },
        env: { BENCH_ROUTES: String(n) },
      })),
    },
    { id: "PG-S2", title: "PostgreSQL: GET one company by id", contenders: MAIN, db: "postgres", spec: byId },
    { id: "PG-S4", title: "PostgreSQL: PUT with version check", contenders: MAIN, db: "postgres", write: true, ...update },
    // How S3's time grows: 8 connections, so that a 10^6-row count still answers within a run.
    ...[10, 100, 1000].map((n) => ({
      id: `S3-page${n}`,
      title: `S3 with a page of ${n} (8 connections)`,
      contenders: SERIES,
      connections: 8,
      spec: { kind: "static", method: "POST", path: "/api/companies/select", body: selectBody(n) },
    })),
    ...[1000, 100000, 1000000].map((n) => ({
      id: `S3-rows${n}`,
      title: `S3 on ${n.toLocaleString("en")} rows (8 connections)`,
      contenders: SERIES,
      connections: 8,
      rows: n,
      spec: { kind: "static", method: "POST", path: "/api/companies/select", body: selectBody(100) },
    })),
    { id: "RSS", title: "S2 under 256 connections (peak RSS)", contenders: MAIN, spec: byId, connections: 256 },
  ];
  return s;
}

/** Keeps the scenarios a `--scenario` list names: an exact id, or a prefix before '-' (S7 = S7-*, PG = PG-*). */
export function selectScenarios(all, wanted) {
  if (wanted.length === 0) return all;
  const keep = all.filter((s) =>
    wanted.some((w) => {
      const x = w.toUpperCase();
      const id = s.id.toUpperCase();
      return id === x || id.startsWith(`${x}-`);
    }),
  );
  if (keep.length === 0) throw new Error(`no scenario matches ${wanted.join(",")}; known: ${all.map((s) => s.id).join(" ")}`);
  return keep;
}

export { updateBody };
