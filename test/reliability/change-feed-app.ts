// The application the change feed's proof runs (test/reliability/change-feed-proof-suite.ts): items of two tenants
// with a change feed, served by WORKERS processes (runWorkers) on DATABASE_URL or DEMO_DB_FILE, with
//   POST /api/items, PUT /api/items, DELETE /api/items/{id}   the generic writer,
//   GET /api/items/changes                                    the change stream (area "read"),
//   POST /api/tx {inserts, updates, holdMs, rollback}          several writes in one transaction, held open
//                                                              for holdMs, then committed or rolled back,
// and ChangeWebhooks in every worker for two subscriptions: "steady" (every change, to HOOK_STEADY_URL) and
// "failing" (tenant beta's, to HOOK_FAILING_URL, 3 attempts). X-User: name;tenant;area,area authenticates.
import { setTimeout as sleep } from "node:timers/promises";
import { ChangeWebhooks, type Database, Schema } from "tenon";
import { runWorkers } from "tenon/cluster";
import {
  Area,
  HttpAuthentication,
  HttpContext,
  HttpController,
  HttpEntityController,
  HttpServer,
  HttpUser,
  Post,
  type HttpRequest,
} from "tenon/http";
import { openProofDatabase, ProofItem, proofSubscriptions } from "./change-feed-model.js";

let database: Database;

class ProofContext implements AsyncDisposable {
  readonly orm = new HttpContext(database);
  attachRequest(request: HttpRequest): void {
    const [name = "", tenant = ""] = (request.header("x-user") ?? "").split(";");
    this.orm.onGetCurrentUser = () => name;
    this.orm.onGetCurrentTenant = () => (tenant === "" ? undefined : tenant);
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.orm.dispose();
  }
}

class HeaderAuthentication extends HttpAuthentication<ProofContext> {
  check(request: HttpRequest): void {
    const header = request.header("x-user");
    if (header === undefined) return;
    const [name, tenant = "", areas = ""] = header.split(";");
    request.user = new HttpUser(name, areas === "" ? [] : areas.split(","), tenant);
  }
}

class Items extends HttpEntityController<ProofContext, ProofItem> {
  protected readonly entityClass = ProofItem;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  @Area("read") override selectAll() {
    return super.selectAll();
  }
}

class RolledBack extends Error {}

/** What POST /api/tx writes. */
interface TransactionBody {
  readonly inserts: readonly string[];
  readonly updates: readonly { readonly id: number; readonly name: string }[];
  readonly holdMs: number;
  readonly rollback: boolean;
}

class Transactions extends HttpController<ProofContext> {
  /** Writes the body's inserts and updates in one transaction, holds it open, then commits or rolls back. */
  @Post()
  async run(): Promise<unknown> {
    const body = this.request.jsonContent as TransactionBody;
    const orm = this.context.orm;
    const inserted: { id: number; versionId: number }[] = [];
    const updated: { id: number; versionId: number }[] = [];
    try {
      await orm.transaction(async () => {
        for (const name of body.inserts) {
          const item = Object.assign(new ProofItem(), { name });
          await orm.insert(item);
          inserted.push({ id: item.id, versionId: item.versionId });
        }
        for (const change of body.updates) {
          const item = await orm.get(ProofItem, change.id);
          item.name = change.name;
          await orm.update(item);
          updated.push({ id: item.id, versionId: item.versionId });
        }
        if (body.holdMs > 0) await sleep(body.holdMs);
        if (body.rollback) throw new RolledBack();
      });
    } catch (error) {
      if (error instanceof RolledBack) return { rolledBack: true, inserted, updated };
      throw error;
    }
    return { rolledBack: false, inserted, updated };
  }
}

const workers = Number(process.env.WORKERS ?? 4);
await runWorkers(
  {
    workers,
    restartDelay: 100,
    async prepare() {
      const prepared = await openProofDatabase(process.env);
      try {
        await Schema.apply(prepared, [ProofItem], {
          changeFeed: true,
          webhooks: true,
          galera: process.env.GALERA === "1",
        });
      } finally {
        await prepared.close();
      }
    },
  },
  async () => {
    database = await openProofDatabase(process.env);
    const server = new HttpServer(ProofContext);
    server.baseUri = "/api";
    server.port = Number(process.env.PORT ?? 0);
    server.addBindAddress("127.0.0.1");
    server.registerAuthentication(HeaderAuthentication);
    server.registerController(Items, "/items");
    server.registerController(Transactions, "/tx");
    await server.start();
    const webhooks = new ChangeWebhooks(database, {
      feeds: [ProofItem],
      subscriptions: proofSubscriptions(process.env),
      leaseMs: Number(process.env.LEASE_MS ?? 3_000),
      pollMs: 250,
      onError: (error) => console.error(`webhooks: ${error.message}`),
    });
    await webhooks.start();
    console.log(`proof listening on http://127.0.0.1:${server.port}/api (process ${process.pid}, owner ${webhooks.owner})`);
    return {
      async stop() {
        await webhooks.stop();
        await server.stop();
        await database.close();
      },
    };
  },
);
