// What every contender reads from its environment (set by bench/compare-contenders.mjs), and the request log of S6.
import fs from 'node:fs';
import { openSqliteStore } from './store-sqlite.mjs';

/** The settings of one contender process. */
export const env = {
  db: process.env.BENCH_DB ?? 'sqlite',
  sqlitePath: process.env.BENCH_SQLITE_PATH ?? '',
  pgUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  pgSchema: process.env.BENCH_PG_SCHEMA ?? 'tenon_bench',
  log: process.env.BENCH_LOG ?? '', // '' | 'file' | 'slow'
  logFile: process.env.BENCH_LOG_FILE ?? '',
  routes: Number(process.env.BENCH_ROUTES ?? 0), // S7: extra routes /api/r<i>/:id
};

/** Opens the store the environment names (SQLite: synchronous; PostgreSQL: Promises). */
export async function openStore() {
  if (env.db === 'postgres') {
    const { openPgStore } = await import('./store-pg.mjs');
    return openPgStore(env.pgUrl, env.pgSchema);
  }
  return openSqliteStore(env.sqlitePath);
}

/**
 * A JSON-lines request log to a file, written through one buffered stream: returns
 * `log(method, url, status, headers, remoteIp, startNs)` or null when logging is off.
 */
export function openRequestLog() {
  if (env.log !== 'file') return null;
  const out = fs.createWriteStream(env.logFile, { flags: 'a' });
  return (method, url, status, host, remoteIp, length, startNs) => {
    out.write(`${JSON.stringify({ time: new Date().toISOString(), host, uri: url, method, statusCode: status,
      contentLength: length, remoteIp, durationUs: Number((process.hrtime.bigint() - startNs) / 1000n) })}\n`);
  };
}

/** Announces the port to the harness (first stdout line) and wires SIGTERM to `close`. */
export function announce(port, close) {
  process.stdout.write(`LISTENING ${port}\n`);
  const stop = async () => { try { await close(); } finally { process.exit(0); } };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
