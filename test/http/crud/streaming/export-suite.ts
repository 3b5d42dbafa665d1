// Streamed exports of `POST {base}/select` (NDJSON and CSV), written once and run per engine: the contents
// equal the JSON select's, CSV survives an independent RFC 4180 reading, a slow reader holds the server back,
// a client that leaves stops the statement, and a failure after the first byte is visible to the client.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { HttpEntityReader } from "tenon/http";
import { HttpError, HttpFilterParameters } from "tenon/http";
import { ask, sleep } from "../../http-test-client.js";
import { readCsv } from "./rfc4180.js";
import { fetchStream, open, readAll, readSome } from "./stream-client.js";
import {
  type Item,
  type SeedItem,
  type StreamingDatabase,
  type StreamingEngine,
  seed,
  startStreamingServer,
  streamHooks,
} from "./streaming-fixtures.js";

const hostileNames = [
  "comma, inside",
  'quote " inside',
  '"starts with a quote',
  "line\nbreak",
  "crlf\r\nbreak",
  "trailing space ",
  "unicode: ÄÖÜ ß € 日本語 😀",
];

/** The JSON select's data items for `body` (every page, walked with `after`). */
async function selectAll(port: number, tenant: string, body: Record<string, unknown>): Promise<unknown[]> {
  const items: unknown[] = [];
  let after: string | undefined;
  for (;;) {
    const answer = await ask(port, "/items/select", {
      method: "POST",
      headers: { "content-type": "application/json", "x-tenant": tenant },
      body: JSON.stringify({ ...body, limit: 1000, count: false, ...(after === undefined ? {} : { after }) }),
    });
    assert.equal(answer.status, 200, answer.text);
    const page = answer.json as { data: unknown[]; nextCursor?: string };
    items.push(...page.data);
    if (page.nextCursor === undefined) return items;
    after = page.nextCursor;
  }
}

function ndjsonLines(text: string): unknown[] {
  assert.ok(text === "" || text.endsWith("\n"), "every NDJSON line ends with a line feed");
  return text === ""
    ? []
    : text
        .slice(0, -1)
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
}

/** Defines the export tests of one engine. */
export function defineExportSuite(engine: StreamingEngine): void {
  describe(`streamed exports of select on ${engine.name}`, () => {
    let db: StreamingDatabase;
    let port = 0;
    let stop: () => Promise<void> = async () => {};
    const north: SeedItem[] = [];

    before(async () => {
      db = await engine.open();
      for (let i = 0; i < 1300; i++) {
        north.push({
          tenant: "north",
          name: i < hostileNames.length ? hostileNames[i] : `item ${String(i).padStart(5, "0")}`,
          note: i === 1 ? "" : i % 3 === 0 ? null : `note ${i}, "quoted" \u2028 end`,
          amount: i % 4 === 0 ? null : `${i}.${String(i % 100).padStart(2, "0")}`,
          weight: i % 5 === 0 ? null : i / 8,
          active: i % 2 === 0,
          madeAt: i % 6 === 0 ? null : new Date(Date.UTC(2026, 0, 1 + (i % 300), 12, 30, 15, 250)),
          shelf: i % 7 === 0 ? null : i % 3,
          deleted: i % 50 === 49,
        });
      }
      const south: SeedItem[] = Array.from({ length: 120 }, (_, i) => ({ tenant: "south", name: `south ${i}`, shelf: 0 }));
      // Enough bytes that the sockets' buffers hold a small part of them: 6,000 rows with a long note, about 9 MB.
      const big: SeedItem[] = Array.from({ length: 6000 }, (_, i) => ({ tenant: "big", name: `big ${i}`, note: "x".repeat(1500) }));
      await seed(db.database, ["top", "middle", 'bottom, "low"'], [...north, ...south, ...big]);
      ({ port, stop } = await startStreamingServer(db.database));
    });
    after(async () => {
      await stop();
      await db.close();
    });

    test("an NDJSON export holds, line by line, the data items the JSON select answers", async () => {
      const answer = await fetchStream(port, "/items/select", {}, { accept: "application/x-ndjson", "x-tenant": "north" });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["content-type"], "application/x-ndjson; charset=utf-8");
      assert.equal(answer.headers["content-length"], undefined, "streamed: no Content-Length");
      assert.ok(answer.complete);
      const lines = ndjsonLines(answer.text);
      assert.equal(
        lines.length,
        north.filter((item) => item.deleted !== true).length,
        "every live row of the tenant, beyond the page ceiling",
      );
      assert.deepEqual(lines, await selectAll(port, "north", {}));
      const shelved = lines.find((line) => (line as { shelfId: unknown }).shelfId !== null) as Record<string, unknown>;
      assert.equal((shelved.shelf as { id: unknown }).id, shelved.shelfId, "the reference is embedded as select embeds it");
      assert.ok(
        lines.every((line) => !("tenantId" in (line as object))),
        "the tenant column is never on the wire",
      );
    });

    test("an export follows the body's where, orderBy, start and limit, and its limit is not capped at the page ceiling", async () => {
      const body = {
        where: [
          { columnName: "active", condition: "=", value: true },
          {
            or: [
              { columnName: "amount", condition: ">", value: "100" },
              { columnName: "amount", condition: "IS NULL" },
            ],
          },
        ],
        orderBy: [{ columnName: "weight", direction: "DESC" }, { columnName: "name" }],
      };
      const all = await selectAll(port, "north", body);
      const streamed = ndjsonLines(
        (await fetchStream(port, "/items/select", body, { accept: "application/x-ndjson", "x-tenant": "north" })).text,
      );
      assert.deepEqual(streamed, all);
      const limited = ndjsonLines(
        (
          await fetchStream(
            port,
            "/items/select",
            { ...body, start: 5, limit: 1100 },
            { accept: "application/x-ndjson", "x-tenant": "north" },
          )
        ).text,
      );
      assert.deepEqual(limited, all.slice(5, 5 + 1100));
      assert.ok(all.length > 1000 || limited.length === all.length - 5);
      const plain = ndjsonLines(
        (await fetchStream(port, "/items/select", { limit: 1200 }, { accept: "application/x-ndjson", "x-tenant": "north" })).text,
      );
      assert.equal(plain.length, 1200, "a limit above maxLimit (1000) is the caller's own");
    });

    test("a CSV export has a header of wire names and the select's values, read back by an independent RFC 4180 reader", async () => {
      const answer = await fetchStream(port, "/items/select", {}, { accept: "text/csv", "x-tenant": "north" });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["content-type"], "text/csv; charset=utf-8; header=present");
      assert.ok(answer.text.endsWith("\r\n"));
      const [header, ...records] = readCsv(answer.text);
      const columns = header.map((cell) => cell.text);
      assert.deepEqual(columns, [
        "id",
        "name",
        "note",
        "amount",
        "weight",
        "active",
        "madeAt",
        "shelfId",
        "deletedAt",
        "deletedBy",
        "versionId",
      ]);
      const json = (await selectAll(port, "north", {})) as Record<string, unknown>[];
      assert.equal(records.length, json.length);
      records.forEach((record, row) => {
        assert.equal(record.length, columns.length, `record ${row} has every column`);
        columns.forEach((column, index) => {
          const value = json[row][column];
          const cell = record[index];
          if (value === null) assert.deepEqual(cell, { text: "", quoted: false }, `${column} of row ${row}: null is the empty field`);
          else assert.equal(cell.text, typeof value === "string" ? value : String(value), `${column} of row ${row}`);
        });
      });
      const names = records.map((record) => record[1]);
      for (const name of hostileNames)
        assert.ok(
          names.some((cell) => cell.text === name),
          `the name ${JSON.stringify(name)} survives`,
        );
      const notes = records.map((record) => record[2]);
      assert.deepEqual(
        notes.filter((cell) => cell.text === "" && cell.quoted).length,
        1,
        "the one empty note is a quoted empty field, unlike the null ones",
      );
    });

    test("another tenant's rows and soft-deleted rows are in no export, and a caller without a tenant gets 403", async () => {
      const south = ndjsonLines(
        (await fetchStream(port, "/items/select", {}, { accept: "application/x-ndjson", "x-tenant": "south" })).text,
      );
      assert.equal(south.length, 120);
      assert.ok(south.every((item) => String((item as { name: string }).name).startsWith("south ")));
      const north = ndjsonLines(
        (await fetchStream(port, "/items/select", {}, { accept: "application/x-ndjson", "x-tenant": "north" })).text,
      );
      assert.ok(north.every((item) => (item as { deletedAt: unknown }).deletedAt === null));
      const anonymous = await fetchStream(port, "/items/select", {}, { accept: "application/x-ndjson" });
      assert.equal(anonymous.status, 403);
      assert.match(anonymous.headers["content-type"] ?? "", /^application\/json/);
    });

    test("a bad body is answered 400 in JSON before any byte is streamed", async () => {
      const bodies = [
        { where: [{ columnName: "tenantId", condition: "=", value: "south" }] },
        { where: [{ columnName: "nope", condition: "=", value: 1 }] },
        { limit: "all" },
        { count: true },
        { includeDeleted: true },
        "[1, 2",
      ];
      for (const body of bodies) {
        for (const accept of ["application/x-ndjson", "text/csv"]) {
          const answer = await fetchStream(port, "/items/select", body, { accept, "x-tenant": "north" });
          assert.equal(answer.status, 400, `${JSON.stringify(body)} as ${accept}: ${answer.text}`);
          assert.match(answer.headers["content-type"] ?? "", /^application\/json/);
          assert.equal((JSON.parse(answer.text) as { status: number }).status, 400);
        }
      }
    });

    test("Accept chooses the answer: the most wanted of JSON, NDJSON and CSV, JSON when none or a tie", async () => {
      const cases: [string, RegExp][] = [
        ["application/json, text/csv", /^application\/json/],
        ["text/csv;q=0.9, application/json;q=0.5", /^text\/csv/],
        ["text/csv, */*", /^text\/csv/],
        ["application/*, application/x-ndjson", /^application\/x-ndjson/],
        ["text/html", /^application\/json/],
        ["application/x-ndjson;q=0", /^application\/json/],
      ];
      for (const [accept, type] of cases) {
        const answer = await fetchStream(port, "/items/select", { limit: 2 }, { accept, "x-tenant": "north" });
        assert.equal(answer.status, 200, accept);
        assert.match(answer.headers["content-type"] ?? "", type, accept);
      }
    });

    test("an aggregate streams its groups: NDJSON lines and CSV rows equal the JSON aggregate's, and maxGroups is a 400 first", async () => {
      const body = {
        groupBy: ["active", "shelfId"],
        metrics: [
          { fn: "count", as: "n" },
          { fn: "sum", column: "amount", as: "total" },
          { fn: "avg", column: "weight", as: "mean" },
        ],
        orderBy: [{ columnName: "n", direction: "DESC" }],
      };
      const json = await ask(port, "/items/aggregate", {
        method: "POST",
        headers: { "content-type": "application/json", "x-tenant": "north" },
        body: JSON.stringify(body),
      });
      assert.equal(json.status, 200, json.text);
      const groups = (json.json as { data: Record<string, unknown>[] }).data;
      assert.ok(groups.length > 4);
      const ndjson = await fetchStream(port, "/items/aggregate", body, { accept: "application/x-ndjson", "x-tenant": "north" });
      assert.equal(ndjson.status, 200, ndjson.text);
      assert.deepEqual(ndjsonLines(ndjson.text), groups);
      const csv = await fetchStream(port, "/items/aggregate", body, { accept: "text/csv", "x-tenant": "north" });
      const [header, ...rows] = readCsv(csv.text);
      assert.deepEqual(
        header.map((cell) => cell.text),
        ["active", "shelfId", "n", "total", "mean"],
      );
      assert.deepEqual(
        rows.map((row) => row.map((cell) => (cell.text === "" && !cell.quoted ? null : cell.text))),
        groups.map((group) =>
          ["active", "shelfId", "n", "total", "mean"].map((name) => (group[name] === null ? null : String(group[name]))),
        ),
      );
      const limited = await fetchStream(
        port,
        "/items/aggregate",
        { ...body, limit: 2 },
        { accept: "application/x-ndjson", "x-tenant": "north" },
      );
      assert.deepEqual(ndjsonLines(limited.text), groups.slice(0, 2));
      streamHooks.filterParameters = new HttpFilterParameters({ maxGroups: 3 });
      try {
        const tooMany = await fetchStream(port, "/items/aggregate", body, { accept: "text/csv", "x-tenant": "north" });
        assert.equal(tooMany.status, 400, tooMany.text);
        assert.match(tooMany.headers["content-type"] ?? "", /^application\/json/);
      } finally {
        streamHooks.filterParameters = undefined;
      }
    });

    test("a slow reader holds the export back: the server reads no further than what the client takes", async () => {
      let serialized = 0;
      streamHooks.reader = (reader: HttpEntityReader<Item>) => {
        reader.streamBatchSize = 50;
        reader.onBeforeSerializeEntity = () => {
          serialized++;
        };
      };
      try {
        const { res } = await open(port, "/items/select", JSON.stringify({}), { accept: "application/x-ndjson", "x-tenant": "big" });
        await readSome(res, 1);
        let previous = -1;
        while (previous !== serialized) {
          previous = serialized;
          await sleep(300);
        }
        const total = 6000;
        assert.ok(serialized < total, `while the client reads nothing the server stopped at ${serialized} of ${total} rows`);
        res.resume();
        const rest = await readAll(res);
        assert.ok(rest.complete);
        assert.equal(serialized, total, "once the client reads again every row is sent");
      } finally {
        streamHooks.reader = undefined;
      }
    });

    test("a client that leaves after the first megabyte leaves no statement or snapshot on the database", async () => {
      streamHooks.reader = (reader: HttpEntityReader<Item>) => {
        reader.streamBatchSize = 50;
      };
      try {
        const { req, res } = await open(port, "/items/select", JSON.stringify({}), { accept: "text/csv", "x-tenant": "big" });
        const first = await readSome(res, 1_048_576);
        assert.ok(first.length >= 1_048_576);
        assert.ok((await db.held()) > 0, "while the client pauses, the export's statement or snapshot is held on the database");
        const left = Date.now();
        req.destroy();
        res.destroy();
        let held = await db.held();
        while (held > 0 && Date.now() - left < 20_000) {
          await sleep(100);
          held = await db.held();
        }
        assert.equal(held, 0, "nothing of the export is left on the database");
        console.log(`# ${engine.name}: the export's statement ended ${Date.now() - left} ms after its client left`);
        const next = await fetchStream(port, "/items/select", { limit: 3 }, { accept: "application/x-ndjson", "x-tenant": "big" });
        assert.equal(ndjsonLines(next.text).length, 3, "the pool serves the next export");
      } finally {
        streamHooks.reader = undefined;
      }
    });

    test("a failure after the first byte ends NDJSON with an error line and cuts a CSV body, never a quiet truncation", async () => {
      let seen = 0;
      let failure: Error = new Error("the disk caught fire");
      streamHooks.reader = (reader: HttpEntityReader<Item>) => {
        reader.streamBatchSize = 100;
        seen = 0;
        reader.onBeforeSerializeEntity = () => {
          if (++seen === 250) throw failure;
        };
      };
      try {
        const ndjson = await fetchStream(port, "/items/select", {}, { accept: "application/x-ndjson", "x-tenant": "north" });
        assert.equal(ndjson.status, 200);
        assert.ok(ndjson.complete);
        const lines = ndjsonLines(ndjson.text);
        assert.equal(lines.length, 201, "the two batches sent, then the error line");
        const last = lines.at(-1) as { error: { status: number; message: string; taskId: string } };
        assert.deepEqual(Object.keys(last), ["error"]);
        assert.equal(last.error.status, 500);
        assert.equal(last.error.message, "Internal server error.");
        assert.match(last.error.taskId, /^[0-9a-f]{32}$/);
        assert.doesNotMatch(ndjson.text, /disk caught fire/, "the cause stays in the log");

        failure = new HttpError(409, "The shelf moved.");
        const conflict = ndjsonLines(
          (await fetchStream(port, "/items/select", {}, { accept: "application/x-ndjson", "x-tenant": "north" })).text,
        );
        assert.deepEqual(conflict.at(-1), { error: { status: 409, message: "The shelf moved." } });

        const csv = await fetchStream(port, "/items/select", {}, { accept: "text/csv", "x-tenant": "north" });
        assert.equal(csv.status, 200);
        assert.equal(csv.complete, false, "the chunked body was cut before its last chunk");
        assert.ok(csv.text.split("\r\n").length > 100, "what came before the failure was sent");
      } finally {
        streamHooks.reader = undefined;
      }
    });
  });
}
