// NDJSON imports through `POST {base}/bulk` (Content-Type: application/x-ndjson), written once and run per
// engine: the body is read as it arrives and written in batches, all or nothing; bad lines are reported by
// number and member and nothing is written; an Idempotency-Key makes a retried upload write nothing twice.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { HttpError, type HttpEntityWriter } from "tenon/http";
import { ask } from "../../http-test-client.js";
import { upload } from "./stream-client.js";
import { type Item, type StreamingDatabase, type StreamingEngine, startStreamingServer, streamHooks } from "./streaming-fixtures.js";

interface Report {
  status: number;
  message: string;
  lines: { line: number; member?: string; message: string }[];
}

function ndjson(items: readonly unknown[]): string {
  return items.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join("\n") + "\n";
}

/** Defines the import tests of one engine. */
export function defineImportSuite(engine: StreamingEngine): void {
  describe(`NDJSON imports on ${engine.name}`, () => {
    let db: StreamingDatabase;
    let port = 0;
    let stop: () => Promise<void> = async () => {};
    let smallPort = 0;
    let stopSmall: () => Promise<void> = async () => {};

    before(async () => {
      db = await engine.open();
      ({ port, stop } = await startStreamingServer(db.database));
      // A second server over the same database whose streamed bodies may be at most 64 KiB.
      ({ port: smallPort, stop: stopSmall } = await startStreamingServer(db.database, (server) => {
        server.maxStreamedContentLength = 65536;
      }));
    });
    after(async () => {
      await stopSmall();
      await stop();
      await db.close();
    });

    test("an import inserts every line in batches, for the caller's tenant, and answers how many", async () => {
      streamHooks.writer = (writer: HttpEntityWriter<Item>) => {
        writer.importBatchSize = 400;
      };
      try {
        const lines = Array.from({ length: 2500 }, (_, i) => ({
          name: `imported ${i}`,
          amount: `${i}.25`,
          weight: i / 4,
          active: i % 2 === 0,
          madeAt: "2026-03-04T05:06:07.089Z",
          tenantId: "someone else",
        }));
        // CRLF line ends and blank lines are fine.
        const body = ndjson(lines).replaceAll("\n", "\r\n").replace("\r\n", "\r\n\r\n   \r\n");
        const answer = await upload(port, "/items/bulk", body, { "x-tenant": "import" });
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual(JSON.parse(answer.text), { imported: 2500 });
        assert.equal(await db.count("TenantID = 'import'"), 2500, "every line is a row of the caller's tenant");
        const read = await ask(port, "/items/select", {
          method: "POST",
          headers: { "content-type": "application/json", "x-tenant": "import" },
          body: JSON.stringify({ where: [{ columnName: "name", condition: "=", value: "imported 1234" }] }),
        });
        const row = (read.json as { data: Record<string, unknown>[] }).data[0];
        assert.deepEqual(
          { name: row.name, amount: row.amount, weight: row.weight, active: row.active, madeAt: row.madeAt, versionId: row.versionId },
          { name: "imported 1234", amount: "1234.25", weight: 308.5, active: true, madeAt: "2026-03-04T05:06:07.089Z", versionId: 0 },
        );
      } finally {
        streamHooks.writer = undefined;
      }
    });

    test("a body far above maxRequestContentLength is imported, also chunked and after 100 Continue", async () => {
      const note = "n".repeat(900);
      const lines = Array.from({ length: 3000 }, (_, i) => ({ name: `large ${i}`, note }));
      const body = ndjson(lines);
      assert.ok(Buffer.byteLength(body) > 2 * 1048576, "the body is larger than the buffered ceiling of 1 MiB");
      const plain = await upload(port, "/items/bulk", body, { "x-tenant": "large" }, { expectContinue: true });
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.continued, true, "the server invited the body");
      const chunked = await upload(port, "/items/bulk", body, { "x-tenant": "large-chunked" }, { chunkBytes: 10_000 });
      assert.equal(chunked.status, 200, chunked.text);
      assert.equal(await db.count("TenantID = 'large'"), 3000);
      assert.equal(await db.count("TenantID = 'large-chunked'"), 3000);
    });

    test("a file with bad lines is answered with each bad line's number, member and message, and writes nothing", async () => {
      const before = await db.count();
      const body = ndjson([
        { name: "fine 1" },
        { name: "fine 2" },
        '{"name": "broken"',
        { name: "fine 4" },
        { name: "bad amount", amount: "lots" },
        "[1, 2]",
        { name: "bad flag", active: "yes" },
      ]);
      const answer = await upload(port, "/items/bulk", body, { "x-tenant": "bad" });
      assert.equal(answer.status, 400, answer.text);
      const report = JSON.parse(answer.text) as Report;
      assert.equal(report.status, 400);
      assert.equal(report.message, "4 lines of the import were refused; nothing was written.");
      assert.deepEqual(
        report.lines.map(({ line, member }) => (member === undefined ? { line } : { line, member })),
        [{ line: 3 }, { line: 5, member: "amount" }, { line: 6 }, { line: 7, member: "active" }],
      );
      assert.equal(report.lines[0].message, "Line 3 of the NDJSON body is not valid JSON.");
      assert.match(report.lines[1].message, /amount/);
      assert.equal(await db.count(), before, "nothing was written");
    });

    test("lines refused when written (validation, an event's refusal) are reported with their numbers across batches, and nothing is written", async () => {
      streamHooks.writer = (writer: HttpEntityWriter<Item>) => {
        writer.importBatchSize = 10;
        writer.onBeforeInsert = (item) => {
          if (item.name === "refused by the event") throw new HttpError(409, "This name is taken by policy.");
        };
      };
      try {
        const before = await db.count();
        const lines: unknown[] = Array.from({ length: 40 }, (_, i) => ({ name: `valid ${i}` }));
        lines[24] = { name: "", amount: "2000000" };
        const invalid = await upload(port, "/items/bulk", ndjson(lines), { "x-tenant": "late" });
        assert.equal(invalid.status, 422, invalid.text);
        const report = JSON.parse(invalid.text) as Report;
        assert.deepEqual(
          report.lines.map(({ line, member }) => ({ line, member })),
          [
            { line: 25, member: "name" },
            { line: 25, member: "amount" },
          ],
        );
        lines[24] = { name: "refused by the event" };
        const refused = await upload(port, "/items/bulk", ndjson(lines), { "x-tenant": "late" });
        assert.equal(refused.status, 409, refused.text);
        assert.deepEqual((JSON.parse(refused.text) as Report).lines, [{ line: 25, message: "This name is taken by policy." }]);
        assert.equal(await db.count(), before, "the 20 rows of the batches before line 25 were rolled back");
      } finally {
        streamHooks.writer = undefined;
      }
    });

    test("a malformed line is a 400 that names it", async () => {
      const answer = await upload(port, "/items/bulk", '{"name": "one"}\n{"name": "two"\n', { "x-tenant": "malformed" });
      assert.equal(answer.status, 400);
      assert.deepEqual(JSON.parse(answer.text), {
        status: 400,
        message: "1 line of the import was refused; nothing was written.",
        lines: [{ line: 2, message: "Line 2 of the NDJSON body is not valid JSON." }],
      });
      const notUtf8 = await upload(port, "/items/bulk", Buffer.from([0x7b, 0x7d, 0x0a, 0xff, 0xfe, 0x0a]), { "x-tenant": "malformed" });
      assert.equal(notUtf8.status, 400);
      assert.deepEqual((JSON.parse(notUtf8.text) as Report).lines, [{ line: 2, message: "Line 2 of the NDJSON body is not UTF-8 text." }]);
      assert.equal(await db.count("TenantID = 'malformed'"), 0);
    });

    test("a retried upload with the same Idempotency-Key writes nothing twice; the key with another body is a 422", async () => {
      const body = ndjson(Array.from({ length: 300 }, (_, i) => ({ name: `once ${i}` })));
      const headers = { "x-tenant": "once", "idempotency-key": `import-${Date.now()}` };
      const first = await upload(port, "/items/bulk", body, headers, { chunkBytes: 4096 });
      assert.equal(first.status, 200, first.text);
      const again = await upload(port, "/items/bulk", body, headers);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.text, first.text, "the first answer, again");
      assert.equal(await db.count("TenantID = 'once'"), 300, "written once");
      const other = await upload(port, "/items/bulk", ndjson([{ name: "something else" }]), headers);
      assert.equal(other.status, 422, other.text);
      assert.equal(await db.count("TenantID = 'once'"), 300);
      const refused = await upload(port, "/items/bulk", ndjson([{ name: "" }]), { ...headers, "idempotency-key": `refused-${Date.now()}` });
      assert.equal(refused.status, 422);
      const fixed = await upload(port, "/items/bulk", ndjson([{ name: "fixed" }]), {
        ...headers,
        "idempotency-key": `refused-${Date.now()}`,
      });
      assert.equal(fixed.status, 200, "a refused import leaves its key free");
    });

    test("a body above maxStreamedContentLength is a 413 and writes nothing, declared or chunked", async () => {
      const body = ndjson(Array.from({ length: 200 }, (_, i) => ({ name: `too many ${i}`, note: "z".repeat(500) })));
      assert.ok(Buffer.byteLength(body) > 65536);
      const declared = await upload(smallPort, "/items/bulk", body, { "x-tenant": "ceiling" });
      assert.equal(declared.status, 413);
      assert.deepEqual(JSON.parse(declared.text), {
        status: 413,
        message: "The request body is larger than the 65536 bytes this server accepts.",
      });
      const chunked = await upload(smallPort, "/items/bulk", body, { "x-tenant": "ceiling" }, { chunkBytes: 8192 });
      assert.equal(chunked.status, 413);
      assert.equal(await db.count("TenantID = 'ceiling'"), 0);
      const small = await upload(smallPort, "/items/bulk", ndjson([{ name: "fits" }]), { "x-tenant": "ceiling" });
      assert.equal(small.status, 200);
    });

    test("an import without a tenant is refused with 403 and a JSON bulk body is still read as before", async () => {
      const anonymous = await upload(port, "/items/bulk", ndjson([{ name: "nobody's" }]), {});
      assert.equal(anonymous.status, 403);
      const json = await ask(port, "/items/bulk", {
        method: "POST",
        headers: { "content-type": "application/json", "x-tenant": "json" },
        body: JSON.stringify({ insert: [{ name: "plain bulk" }] }),
      });
      assert.equal(json.status, 200, json.text);
      assert.equal((json.json as { inserted: unknown[] }).inserted.length, 1);
    });
  });
}
