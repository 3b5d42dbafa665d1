// Faults: a client that goes away while its request waits on a long statement gets the statement cancelled
// (PostgreSQL: a cancel request; MariaDB: KILL QUERY), and a statement longer than the database's
// statementTimeout is stopped and answered 503 with Retry-After. Real servers, real sockets.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Database } from "tenon";
import { HttpContext, HttpController, Get, Uri } from "tenon/http";
import { ask, raw, sleep, started } from "../http/http-test-client.js";

/** What differs per engine. */
export interface CancelEngine {
  readonly name: string;
  /** Opens a pool on the shared test server with this statement timeout. */
  open(statementTimeout: number): Database;
  /** The query that sleeps `seconds` seconds (its text identifies it in the server's list of running statements). */
  sleepSql(seconds: number): string;
  /** How many statements with `marker` in their text are running now, read on a connection of its own. */
  running(marker: string): Promise<number>;
}

let database: Database | undefined;

/** The request context: the ORM session on first use, and the abort() the server calls when the client leaves. */
class SleepyContext {
  #orm: HttpContext | undefined;
  get orm(): HttpContext {
    this.#orm ??= new HttpContext(database as Database);
    return this.#orm;
  }
  abort(): void {
    void this.#orm?.cancel();
  }
  [Symbol.asyncDispose](): Promise<void> | undefined {
    return this.#orm?.dispose();
  }
}

let sleepSql: (seconds: number) => string = () => "";

@Uri("/sleep")
class SleepController extends HttpController<SleepyContext> {
  /** Sleeps `ms` milliseconds in the database. */
  @Get("?")
  async sleep(ms: number): Promise<unknown> {
    await this.context.orm.query(sleepSql(ms / 1000));
    return { slept: ms };
  }
}

/** Defines the cancel and timeout tests of one engine. */
export function defineStatementCancelFaults(engine: CancelEngine): void {
  describe(`faults on ${engine.name}: statements of clients that have gone, and statements past the timeout`, () => {
    let port = 0;
    let stop: () => Promise<void> = async () => {};
    before(async () => {
      database = engine.open(1500);
      sleepSql = engine.sleepSql;
      const server = await started(SleepyContext, (s) => {
        s.allowAnonymous = true;
        s.registerController(SleepController);
      });
      port = server.port;
      stop = () => server.stop();
    });
    after(async () => {
      await stop();
      await database?.close();
    });

    test("a client that disconnects while its statement runs gets the statement cancelled on the server", async () => {
      // 1.2 s is below the statement timeout: only the cancel can stop it early.
      const marker = engine.sleepSql(1.2);
      const began = Date.now();
      await raw(
        port,
        async (write) => {
          write("GET /sleep/1200 HTTP/1.1\r\nHost: x\r\n\r\n");
          await sleep(300);
        },
        0,
      );
      let running = await engine.running(marker);
      while (running > 0 && Date.now() - began < 1100) {
        await sleep(25);
        running = await engine.running(marker);
      }
      assert.equal(running, 0, "the statement no longer runs");
      assert.ok(Date.now() - began < 1100, `cancelled after ${Date.now() - began} ms, before it would have ended by itself`);
      const next = await ask(port, "/sleep/0");
      assert.equal(next.status, 200, "the server and the pool serve the next request");
    });

    test("a statement longer than statementTimeout is stopped and answered 503 with Retry-After", async () => {
      const began = Date.now();
      const answer = await ask(port, "/sleep/5000");
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.headers["retry-after"], "1");
      assert.deepEqual(answer.json, { status: 503, message: "Service temporarily unavailable: try again." });
      assert.ok(Date.now() - began < 4000, `answered after ${Date.now() - began} ms`);
      assert.equal((await ask(port, "/sleep/0")).status, 200);
    });
  });
}
