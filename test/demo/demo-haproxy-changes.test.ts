// The change stream through the HAProxy example (examples/haproxy/haproxy.cfg) in front of two demo processes on
// PostgreSQL: a subscriber of companies, connected through HAProxy, is cut whenever the process serving it stops
// (SIGTERM ends its streams at once) and resumes with Last-Event-ID through HAProxy on the other one, while a
// client inserts companies through HAProxy. It receives every insert once, in commit order.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ask, sleep } from "../http/http-test-client.js";
import { reportUnreachable } from "../orm/engine-availability.js";
import { postgresUnreachable } from "../orm/harness-postgres.js";
import { ResumingSubscriber } from "../support/resuming-subscriber.js";
import { type DemoDatabase, postgresDemoEngine } from "./demo-engines.js";
import { waitFor } from "./demo-load.js";
import { startDemo, type DemoProcess } from "./demo-process.js";
import { freePort } from "./free-port.js";
import { bothServersUp, haproxyExample, startHaproxy, statsSection, type HaproxyProcess } from "./haproxy-process.js";

function defineSuite(): void {
  describe("the change stream through HAProxy in front of two demo processes", () => {
    let db: DemoDatabase;
    const ports: number[] = [];
    const demos: DemoProcess[] = [];
    let haproxy: HaproxyProcess;
    let front = 0;
    let statsPort = 0;
    let env: Record<string, string> = {};
    const directory = mkdtempSync(join(tmpdir(), "tenon-haproxy-changes-"));
    const startOne = (index: number, reset: boolean): Promise<DemoProcess> =>
      startDemo({ ...env, PORT: String(ports[index]), DEMO_RESET: reset ? "1" : "" });

    before(async () => {
      db = await postgresDemoEngine.open();
      env = { ...db.env, DRAIN_DELAY_MS: "1000", JWT_SECRET: "one-secret-for-both-processes-of-this-test" };
      ports.push(await freePort(), await freePort());
      demos.push(await startOne(0, true));
      demos.push(await startOne(1, false));
      front = await freePort();
      statsPort = await freePort();
      const config = join(directory, "haproxy.cfg");
      // The example as it is, plus a statistics page: each stop waits until HAProxy reports both servers up.
      writeFileSync(config, readFileSync(haproxyExample, "utf8") + statsSection(statsPort));
      haproxy = await startHaproxy(
        config,
        { TENON_FRONT: `127.0.0.1:${front}`, TENON_1: `127.0.0.1:${ports[0]}`, TENON_2: `127.0.0.1:${ports[1]}` },
        front,
        "/api/live",
      );
    });
    after(async () => {
      await haproxy?.stop();
      for (const demo of demos) await demo.stop("SIGKILL");
      await db?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    test("a subscriber cut by each process's stop resumes on the other and receives every insert once, in order", async () => {
      const logon = await ask(front, "/api/logon", { method: "POST", body: JSON.stringify({ username: "editor", password: "editor" }) });
      assert.equal(logon.status, 200, logon.text);
      const auth = { Authorization: `Bearer ${(logon.json as { token: string }).token}` };
      // It never leaves on purpose: every reconnection is a stop's doing.
      const subscriber = new ResumingSubscriber(front, "/api/companies/changes", auth, [1_000_000, 1_000_001]);
      await subscriber.opened;
      const inserted: number[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const answer = await ask(front, "/api/companies", {
            method: "POST",
            headers: auth,
            body: JSON.stringify({ name: `Through HAProxy ${i}`, creditLimit: "1.00" }),
          });
          assert.equal(answer.status, 200, answer.text);
          inserted.push((answer.json as { id: number }).id);
          await sleep(20);
        }
      })();
      try {
        for (const index of [0, 1, 0]) {
          const seen = subscriber.events.length;
          await waitFor(() => subscriber.events.length >= seen + 5, "events flowing", 60_000);
          await bothServersUp(statsPort);
          assert.equal(await demos[index].stop("SIGTERM"), 0, demos[index].output());
          demos[index] = await startOne(index, false);
        }
        const seen = subscriber.events.length;
        await waitFor(() => subscriber.events.length >= seen + 5, "events flowing", 60_000);
      } finally {
        writing = false;
        await writer;
      }
      await waitFor(() => subscriber.events.length >= inserted.length, "every insert streamed", 60_000);
      await sleep(300);
      await subscriber.stop();
      const ids = subscriber.events.map((event) => event.id);
      assert.equal(new Set(ids).size, ids.length, "no event twice");
      assert.deepEqual(
        subscriber.events.map((event) => [event.record.action, event.record.key]),
        inserted.map((id) => ["insert", id]),
      );
      // Whichever process served it, the stream was cut at least once, and resumed through HAProxy.
      assert.ok(subscriber.connections >= 2, `resumed after a stop (${subscriber.connections} connections)`);
    });
  });
}

const reason = await postgresUnreachable();
if (reason === undefined) defineSuite();
else reportUnreachable("PostgreSQL", reason, "HAProxy change stream suite");
