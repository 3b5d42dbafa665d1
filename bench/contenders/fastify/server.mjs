// Fastify 5 with the same hand-written SQL as the baseline (no schemas: the plain way).
import Fastify from 'fastify';
import { HttpError, parseId } from '../common/company.mjs';
import { announce, env, openStore } from '../common/env.mjs';

const store = await openStore();
// S6: Fastify's own logger (pino), written to a file, the way Fastify users turn logging on.
const app = Fastify({ logger: env.log === 'file' ? { level: 'info', file: env.logFile } : false });

app.setErrorHandler((e, req, reply) => {
  if (e instanceof HttpError) reply.code(e.status).send(e.toJSON());
  else if (e.statusCode === 400) reply.code(400).send({ status: 400, message: 'The body is not valid JSON.' });
  else { req.log.error(e); reply.code(500).send({ status: 500, message: 'Internal server error.' }); }
});

app.get('/api/health', async () => ({ status: 'ok' }));
app.get('/api/companies/:id', async (req) => store.get(parseId(req.params.id)));
app.post('/api/companies/select', async (req) => store.select(req.body ?? {}));
app.put('/api/companies', async (req) => store.update(req.body));
app.post('/api/companies', async (req) => store.insert(req.body));
for (let i = 0; i < env.routes; i++) {
  app.get(`/api/r${i}/:id`, async (req) => ({ route: i, id: Number(req.params.id) }));
}

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port, async () => { await app.close(); await store.close(); });
