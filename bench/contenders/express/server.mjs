// Express 5 with the same hand-written SQL as the baseline.
import express from 'express';
import { HttpError, parseId } from '../common/company.mjs';
import { announce, env, openRequestLog, openStore } from '../common/env.mjs';

const store = await openStore();
const log = openRequestLog();
const app = express();
app.disable('x-powered-by');
app.disable('etag');
if (log !== null) {
  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => log(req.method, req.originalUrl, res.statusCode, req.headers.host, req.socket.remoteAddress, res.getHeader('content-length'), start));
    next();
  });
}
app.use(express.json());

app.get('/api/health', (req, res) => { res.json({ status: 'ok' }); });
app.get('/api/companies/:id', async (req, res) => { res.json(await store.get(parseId(req.params.id))); });
app.post('/api/companies/select', async (req, res) => { res.json(await store.select(req.body ?? {})); });
app.put('/api/companies', async (req, res) => { res.json(await store.update(req.body)); });
app.post('/api/companies', async (req, res) => { res.json(await store.insert(req.body)); });

app.use((e, req, res, next) => {
  if (e instanceof HttpError) res.status(e.status).json(e);
  else if (e.type === 'entity.parse.failed') res.status(400).json({ status: 400, message: 'The body is not valid JSON.' });
  else { console.error(e); res.status(500).json({ status: 500, message: 'Internal server error.' }); }
});

const server = app.listen(0, '127.0.0.1', () => announce(server.address().port, async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await store.close();
}));
