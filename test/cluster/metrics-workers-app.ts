// A program for cluster-metrics.test.ts: two workers behind one port, their metrics summed by the primary.
// Environment: APP_PORT (the shared port), METRICS_TOKEN. Prints `METRICS <port>` once every worker serves.
import { runWorkers } from "../../src/cluster/run-workers.js";
import { HttpController } from "../../src/http/exchange/http-controller.js";
import { HttpServer } from "../../src/http/server/http-server.js";
import { Get, Uri } from "../../src/http/routing/route-decorators.js";

class Ctx {}

@Uri("/pid")
class PidController extends HttpController<Ctx> {
  @Get("?")
  pid(_n: number): unknown {
    return { pid: process.pid };
  }
}

const token = process.env.METRICS_TOKEN ?? "";
const supervisor = await runWorkers({ workers: 2, metrics: { port: 0, token }, log: () => {} }, async () => {
  const server = new HttpServer(Ctx);
  server.port = Number(process.env.APP_PORT);
  server.addBindAddress("127.0.0.1");
  server.allowAnonymous = true;
  server.registerController(PidController);
  server.metrics = { port: 0, token, processMetrics: false };
  await server.start();
  return { stop: () => server.stop() };
});
if (supervisor !== undefined) process.stdout.write(`METRICS ${supervisor.metricsPort}\n`);
