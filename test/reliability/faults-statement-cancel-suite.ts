// Faults: a client that goes away while its request waits on a long statement gets the statement cancelled
// (PostgreSQL: a cancel request; MariaDB: KILL QUERY), and a statement longer than the database's
// statementTimeout is stopped and answered 503 with Retry-After. Real servers, real sockets. The servers are
// shared with other runs: each sleeping statement carries this run's tag (its column's name), so that the
// count of running ones is this run's only, and the sleeps are long enough that no bound here depends on load.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Database } from "tenon";
import { HttpContext, HttpController, Get, Uri } from "tenon/http";
import { ask, raw, sleep, started } from "../http/http-test-client.js";

/** What differs per engine. */
export interface CancelEngine {
  readonly name: string;
  /** Opens a pool on the shared test server with this statement timeout. */
  open(statementTimeout: number): Database;
  /** The query that sleeps `seconds` seconds, its result column named `tag` (its text identifies it in the server's list of running statements). */
  sleepSql(seconds: number, tag: string): string;
  /** How many statements with `marker` in their text are running now, read on a connection of its own. */
  running(marker: string): Promise<number>;
}

/** The pool with a long statement timeout, and the one with a short timeout. */
let patient: Database | undefined;
let impatient: Database | undefined;
/** This run's tag in the text of every sleeping statement. */
const tag = `tenon_sleep_${process.pid}_${randomBytes(4).toString("hex")}`;

/** The request context: the ORM session on first use, and the abort() the server calls when the client leaves. */
class SleepyContext {
  #orm: HttpContext | undefined;
  /** The session on the patient pool, or on the impatient one. */
  orm(short: boolean): HttpContext {
    this.#orm ??= new HttpContext((short ? impatient : patient) as Database);
    return this.#orm;
  }
  abort(): void {
    void this.#orm?.cancel();
  }
  [Symbol.asyncDispose](): Promise<void> | undefined {
    return this.#orm?.dispose();
  }
}

let sleepSql: (seconds: number, tag: string) => string = () => "";

@Uri("/sleep")
class SleepController extends HttpController<SleepyContext> {
  /** Sleeps `ms` milliseconds in the database, on the pool with the long statement timeout. */
  @Get("?")
  async sleep(ms: number): Promise<unknown> {
    await this.context.orm(false).query(sleepSql(ms / 1000, tag));
    return { slept: ms };
  }
}

@Uri("/sleep-briefly")
class ShortSleepController extends HttpController<SleepyContext> {
  /** Sleeps `ms` milliseconds in the database, on the pool whose statement timeout is 1.5 s. */
  @Get("?")
  async sleep(ms: number): Promise<unknown> {
    await this.context.orm(true).query(sleepSql(ms / 1000, tag));
    return { slept: ms };
  }
}

/** Defines the cancel and timeout tests of one engine. */
export function defineStatementCancelFaults(engine: CancelEngine): void {
  describe(`faults on ${engine.name}: statements of clients that have gone, and statements past the timeout`, () => {
    let port = 0;
    let stop: () => Promise<void> = async () => {};
    before(async () => {
      patient = engine.open(120_000);
      impatient = engine.open(1500);
      sleepSql = engine.sleepSql;
      const server = await started(SleepyContext, (s) => {
        s.allowAnonymous = true;
        s.registerController(SleepController);
        s.registerController(ShortSleepController);
      });
      port = server.port;
      stop = () => server.stop();
    });
    after(async () => {
      await stop();
      await patient?.close();
      await impatient?.close();
    });

    test("a client that disconnects while its statement runs gets the statement cancelled on the server", async () => {
      // 60 s is below the statement timeout: only the cancel can stop it early.
      const marker = engine.sleepSql(60, tag);
      const began = Date.now();
      let seen = 0;
      await raw(
        port,
        async (write) => {
          write("GET /sleep/60000 HTTP/1.1\r\nHost: x\r\n\r\n");
          // The client leaves once its statement runs on the server.
          while (seen === 0 && Date.now() - began < 30_000) {
            await sleep(50);
            seen = await engine.running(marker);
          }
        },
        0,
      );
      assert.equal(seen, 1, "the statement ran on the server");
      let running = await engine.running(marker);
      while (running > 0 && Date.now() - began < 45_000) {
        await sleep(50);
        running = await engine.running(marker);
      }
      assert.equal(running, 0, "the statement no longer runs");
      assert.ok(Date.now() - began < 45_000, `cancelled after ${Date.now() - began} ms, before it would have ended by itself`);
      const next = await ask(port, "/sleep/0");
      assert.equal(next.status, 200, "the server and the pool serve the next request");
    });

    test("a statement longer than statementTimeout is stopped and answered 503 with Retry-After", async () => {
      const began = Date.now();
      const answer = await ask(port, "/sleep-briefly/60000");
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.headers["retry-after"], "1");
      assert.deepEqual(answer.json, { status: 503, message: "Service temporarily unavailable: try again." });
      assert.ok(Date.now() - began < 45_000, `answered after ${Date.now() - began} ms, before the statement would have ended by itself`);
      assert.equal((await ask(port, "/sleep-briefly/0")).status, 200);
    });
  });
}
