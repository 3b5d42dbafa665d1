// The server of bench/streaming.mjs: the generic entity controller over the bench's Companies table, whose
// select streams NDJSON and CSV and whose bulk route imports NDJSON (docs/crud.md). Settings come from the
// BENCH_* environment, as for server.ts.
import { type HttpContext, HttpEntityController, type HttpEntityReader, HttpServer } from "tenon/http";
import { Company } from "./company.js";
import { BenchContext, openDatabase } from "./context.js";

/** /api/companies: every generic route of Company. */
class StreamingCompaniesController extends HttpEntityController<BenchContext, Company> {
  protected readonly entityClass = Company;
  protected get httpContext(): HttpContext {
    return this.context.http;
  }
  /** BENCH_STREAM_BATCH sets the rows read and sent at a time (default the reader's, 500). */
  protected override createReader(): HttpEntityReader<Company> {
    const reader = super.createReader();
    if (process.env.BENCH_STREAM_BATCH) reader.streamBatchSize = Number(process.env.BENCH_STREAM_BATCH);
    return reader;
  }
}

const database = await openDatabase();
const server = new HttpServer(BenchContext);
server.baseUri = "/api";
server.port = 0;
server.addBindAddress("127.0.0.1");
server.allowAnonymous = true;
// The import of 10^6 lines is about 200 MB: no ceiling.
server.maxStreamedContentLength = 0;
server.registerController(StreamingCompaniesController, "/companies");
await server.start();
process.stdout.write(`LISTENING ${server.port}\n`);

const stop = async (): Promise<void> => {
  await server.stop();
  await database.close();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
