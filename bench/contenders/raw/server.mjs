// The baseline: node:http with a hand-written router and hand-written prepared statements.
import http from 'node:http';
import { HttpError, parseId } from '../common/company.mjs';
import { announce, env, openRequestLog, openStore } from '../common/env.mjs';

const store = await openStore();
const log = openRequestLog();
const HEALTH = JSON.stringify({ status: 'ok' });

// BENCH_RAW_HEADERS=tenon adds the two headers Tenon sends by default (Server, and X-Request-Id with a constant
// id, so that only node:http's handling of the headers is added): what those defaults cost the platform itself.
const TENON_HEADERS = process.env.BENCH_RAW_HEADERS === 'tenon';
const REQUEST_ID = '3f0c5a8e-1b2d-4c3e-9f1a-2b3c4d5e6f70';

function send(res, status, body) {
  if (TENON_HEADERS) {
    res.writeHead(status, ['server', 'tenon', 'x-request-id', REQUEST_ID, 'content-type', 'application/json; charset=utf-8',
      'content-length', Buffer.byteLength(body)]);
  } else {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  }
  res.end(body);
}

function fail(res, e) {
  if (e instanceof HttpError) send(res, e.status, JSON.stringify(e));
  else if (e instanceof SyntaxError) send(res, 400, JSON.stringify({ status: 400, message: 'The body is not valid JSON.' }));
  else { console.error(e); send(res, 500, JSON.stringify({ status: 500, message: 'Internal server error.' })); }
}

/** Runs `work` (a value or a Promise, depending on the engine) and answers its result as JSON. */
function answer(res, work) {
  try {
    const v = work();
    if (v instanceof Promise) v.then((r) => send(res, 200, JSON.stringify(r)), (e) => fail(res, e));
    else send(res, 200, JSON.stringify(v));
  } catch (e) { fail(res, e); }
}

function readJson(req, then) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try { body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch (e) { then(null, e); return; }
    then(body, null);
  });
}

// S7: a table of extra routes /api/r<i>/<id>, resolved by one Map lookup on the segment.
const extra = new Map();
for (let i = 0; i < env.routes; i++) extra.set(`r${i}`, i);

function handle(req, res) {
  const url = req.url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).toLowerCase();
  const method = req.method;
  if (path === '/api/health' && method === 'GET') { send(res, 200, HEALTH); return; }
  if (path.startsWith('/api/companies')) {
    const rest = path.slice(14);
    if (rest === '' || rest === '/') {
      if (method === 'PUT') { readJson(req, (b, e) => (e ? fail(res, e) : answer(res, () => store.update(b)))); return; }
      if (method === 'POST') { readJson(req, (b, e) => (e ? fail(res, e) : answer(res, () => store.insert(b)))); return; }
    } else if (rest === '/select') {
      if (method === 'POST') { readJson(req, (b, e) => (e ? fail(res, e) : answer(res, () => store.select(b)))); return; }
    } else if (method === 'GET' && rest.lastIndexOf('/') === 0) {
      answer(res, () => store.get(parseId(decodeURIComponent(rest.slice(1)))));
      return;
    }
  } else if (extra.size > 0 && path.startsWith('/api/r')) {
    const parts = path.split('/'); // '', 'api', 'r<i>', '<id>'
    const route = parts.length === 4 && method === 'GET' ? extra.get(parts[2]) : undefined;
    if (route !== undefined) { send(res, 200, JSON.stringify({ route, id: Number(parts[3]) })); return; }
  }
  send(res, 404, JSON.stringify({ status: 404, message: `Command ${path} not found.` }));
}

const server = http.createServer(log === null ? handle : (req, res) => {
  const start = process.hrtime.bigint();
  res.on('finish', () => log(req.method, req.url, res.statusCode, req.headers.host, req.socket.remoteAddress, res.getHeader('content-length'), start));
  handle(req, res);
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => announce(server.address().port, async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await store.close();
}));
