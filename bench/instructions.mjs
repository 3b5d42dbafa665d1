// Instructions per request: a contender's server runs under valgrind's callgrind, is warmed by wrk, and then
// counted while wrk loads it again. Callgrind counts instructions executed in user space (JavaScript, Node,
// V8 and its helper threads, SQLite), not time: the count is about the same whatever the rest of the machine
// does, where requests per second on a shared VM drift by tens of percent. The kernel is not counted.
//   node bench/instructions.mjs [--scenario S2] [--contenders raw,tenon] [--warmup 40] [--duration 30]
// Scenarios: S1, S2, S6 (S2 with logging to a file), S7-10, S7-10000. The server runs about 50x slower
// under valgrind, so the warm-up is long; 10 connections. Needs valgrind (Debian's package) and wrk.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, CONTENDERS } from './lib/contenders.mjs';
import { sqliteDataset } from './lib/dataset.mjs';
import { luaScript } from './lib/requests.mjs';

const { values: o } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'S2' }, contenders: { type: 'string', default: 'raw,tenon' },
    warmup: { type: 'string', default: '40' }, duration: { type: 'string', default: '30' }, connections: { type: 'string', default: '10' },
  },
});
const rows = 10000;
const byId = { kind: 'random-id', prefix: '/api/companies/', lo: 1, hi: rows };
const route = (n) => ({ spec: { kind: 'random-route', routes: n, lo: 1, hi: 1000 }, env: { BENCH_ROUTES: String(n) } });
const SCENARIOS = {
  S1: { spec: { kind: 'static', method: 'GET', path: '/api/health' } },
  S2: { spec: byId },
  S6: { spec: byId, env: { BENCH_LOG: 'file' } },
  'S7-10': route(10),
  'S7-10000': route(10000),
};
const scenario = SCENARIOS[o.scenario];
if (scenario === undefined) throw new Error(`unknown scenario ${o.scenario}; known: ${Object.keys(SCENARIOS).join(' ')}`);

const TMP = path.join(BENCH_DIR, 'results', 'tmp');
fs.mkdirSync(TMP, { recursive: true });
const data = sqliteDataset(TMP, rows);
const script = path.join(TMP, `instructions-${process.pid}.lua`);
fs.writeFileSync(script, luaScript(scenario.spec));

const run = (cmd, args) => new Promise((resolve, reject) => {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.on('error', reject);
  child.on('exit', () => resolve(out));
});
const wrk = async (port, seconds) => {
  const out = await run('wrk', ['-t', '1', '-c', o.connections, '-d', `${seconds}s`, '--timeout', '10s', '-s', script, `http://127.0.0.1:${port}`]);
  return JSON.parse(/BENCH_JSON (\{.*\})/.exec(out)[1]).requests;
};

for (const id of o.contenders.split(',')) {
  const contender = CONTENDERS.find((c) => c.id === id);
  if (contender === undefined) throw new Error(`unknown contender ${id}`);
  contender.prepare?.();
  const outFile = path.join(TMP, `callgrind-${id}-${process.pid}.out`);
  const server = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath, ...contender.args], {
    cwd: BENCH_DIR, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', BENCH_DB: 'sqlite', BENCH_SQLITE_PATH: data, BENCH_LOG: '', BENCH_LOG_FILE: path.join(TMP, `instructions-${id}.log`), BENCH_ROUTES: '0', ...scenario.env },
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => { out += d; const m = /LISTENING (\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    server.on('exit', (code) => reject(new Error(`${id} exited (${code}) before listening`)));
  });
  const warmed = await wrk(port, Number(o.warmup));
  execFileSync('callgrind_control', ['-i', 'on', String(server.pid)], { stdio: 'ignore' });
  const requests = await wrk(port, Number(o.duration));
  execFileSync('callgrind_control', ['-i', 'off', String(server.pid)], { stdio: 'ignore' });
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  const totals = fs.readdirSync(TMP).filter((f) => f.startsWith(path.basename(outFile))).map((f) => {
    const text = fs.readFileSync(path.join(TMP, f), 'utf8');
    fs.rmSync(path.join(TMP, f));
    return Number(/^totals: (\d+)/m.exec(text)?.[1] ?? /^summary: (\d+)/m.exec(text)?.[1] ?? 0);
  });
  const instructions = totals.reduce((a, b) => a + b, 0);
  console.log(`${o.scenario} ${contender.label}: ${Math.round(instructions / requests).toLocaleString('en')} instructions per request (${requests} requests counted after ${warmed} of warm-up)`);
}
fs.rmSync(script, { force: true });
