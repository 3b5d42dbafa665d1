// The fan-out of GET {base}/changes to many open streams on a real SQLite file: streams of callers under a policy
// each receive a change as their own view of it (the rows their rules grant, the members they may read), and a
// stream that resumes from further back than the hub's memory catches up from the database, then takes the new
// changes as they come, each once; a HEAD answers the head alone.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  ChangeFeed,
  ChangeHub,
  ChangeLog,
  ClaimType,
  type ClaimsOf,
  Column,
  Context,
  declareClaims,
  Policy,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  Type,
  VersionColumn,
} from "tenon";
import { HttpAuthentication, HttpContext, HttpEntityController, type HttpRequest, HttpServer, HttpUser } from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";
import { type EventStream, openEventStream } from "../../support/event-stream-client.js";

const claims = declareClaims({ region: ClaimType.string });

/** An item of a region, whose note only admins read: admins hear of every item, others of their region's. */
@Table("FanItems")
@Sequence("FanItemsID")
@ChangeFeed()
@Policy<FanItem, ClaimsOf<typeof claims>>(claims, (caller) => ({
  rules: [{ areas: ["admin"] }, { rows: { region: caller.claims.region } }],
  members: { note: { read: { areas: ["admin"] } } },
}))
class FanItem {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Region", Type.varchar(2)) region = "EU";
  @Column("Label", Type.varchar(50)) label = "";
  @Column("Note", Type.varchar(50).orNull) note: string | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

const directory = mkdtempSync(join(tmpdir(), "tenon-fan-out-"));
const database = new SqliteDatabase({ filename: join(directory, "fan-out.sqlite") });
// A small memory, so that a stream resuming a few dozen changes back reads the database first.
ChangeHub.of(database, { bufferSize: 8 });

/** The request's user is the session's caller. */
class RequestContext implements AsyncDisposable {
  readonly orm = new HttpContext(database);
  attachRequest(request: HttpRequest): void {
    this.orm.onGetCurrentCaller = () => request.user;
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.orm.dispose();
  }
}

/** `X-User: name;region;area,area`. */
class HeaderAuthentication extends HttpAuthentication<RequestContext> {
  check(request: HttpRequest): void {
    const [name = "", region = "", areas = ""] = (request.header("x-user") ?? "").split(";");
    request.user = new HttpUser(name, areas === "" ? [] : areas.split(","), "", { region });
  }
}

class FanItems extends HttpEntityController<RequestContext, FanItem> {
  protected readonly entityClass = FanItem;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}

let server: HttpServer<RequestContext>;

/** Opens a stream as `user` and waits for its head, so that what is written next reaches it. */
async function subscribe(user: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const stream = await openEventStream(server.port, "/api/items/changes", { "X-User": user, ...headers });
  assert.equal(stream.status, 200, stream.body);
  while (!stream.comments.includes("changes")) await new Promise((resolve) => setTimeout(resolve, 10));
  return stream;
}

/** Inserts items as an unscoped session (every row, every member). */
async function insert(items: readonly Partial<FanItem>[]): Promise<number[]> {
  await using context = new Context(database);
  context.unscoped = true;
  const written = items.map((item) => Object.assign(new FanItem(), item));
  await context.transaction(async () => {
    for (const item of written) await context.insert(item);
  });
  return written.map((item) => item.id);
}

before(async () => {
  await Schema.apply(database, [FanItem], { changeFeed: true });
  server = new HttpServer(RequestContext);
  server.baseUri = "/api";
  server.port = 0;
  server.addBindAddress("127.0.0.1");
  server.registerAuthentication(HeaderAuthentication);
  server.registerController(FanItems, "/items");
  await server.start();
});
after(async () => {
  await server.stop();
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("the fan-out of change streams", () => {
  test("streams of callers under a policy each receive a change as their own view of it", async () => {
    const admins = await Promise.all(Array.from({ length: 8 }, (_, i) => subscribe(`admin${i};EU;admin`)));
    const europeans = await Promise.all(Array.from({ length: 8 }, (_, i) => subscribe(`eu${i};EU;`)));
    const americans = await Promise.all(Array.from({ length: 4 }, (_, i) => subscribe(`us${i};US;`)));
    try {
      const [europe, america] = await insert([
        { region: "EU", label: "Lyon", note: "only admins" },
        { region: "US", label: "Boston", note: "only admins too" },
      ]);
      for (const stream of admins) {
        const events = await stream.waitFor(2);
        assert.deepEqual(
          events.map((event) => [event.data.key, (event.data.data as Record<string, unknown>).note]),
          [
            [europe, "only admins"],
            [america, "only admins too"],
          ],
        );
      }
      const views = new Set<string>();
      for (const [streams, key, label] of [
        [europeans, europe, "Lyon"],
        [americans, america, "Boston"],
      ] as const) {
        for (const stream of streams) {
          const [event] = await stream.waitFor(1);
          assert.equal(event.data.key, key);
          const data = event.data.data as Record<string, unknown>;
          assert.equal(data.label, label);
          assert.equal("note" in data, false, "a member the caller may not read is left out");
          views.add(JSON.stringify(event.data));
        }
      }
      // One view per region among the non-admins: streams whose callers read the same members got the same record.
      assert.equal(views.size, 2);
      // The next change of a region reaches its own streams; the other region's never hear of it.
      const [porto] = await insert([{ region: "EU", label: "Porto" }]);
      for (const stream of europeans)
        assert.deepEqual(
          (await stream.waitFor(2)).map((event) => event.data.key),
          [europe, porto],
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const stream of americans)
        assert.deepEqual(
          stream.events.map((event) => event.data.key),
          [america],
        );
    } finally {
      for (const stream of [...admins, ...europeans, ...americans]) stream.close();
    }
  });

  test("a HEAD of the stream answers the stream's head without a body", async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/api/items/changes`, {
      method: "HEAD",
      headers: { "X-User": "head;EU;admin" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(await response.text(), "");
  });

  test("a stream resuming from further back than the hub's memory catches up from the database, then takes new changes live, each once", async () => {
    const live = await subscribe("watcher;EU;admin");
    try {
      const { head } = await new ChangeLog(database).bounds();
      const first = await insert(Array.from({ length: 30 }, (_, i) => ({ region: i % 2 === 0 ? "EU" : "US", label: `item ${i}` })));
      await live.waitFor(30);
      // Thirty changes back: more than the hub keeps in memory.
      const resumed = await subscribe("resumer;EU;admin", { "Last-Event-ID": String(head) });
      try {
        await resumed.waitFor(30);
        const later = await insert(Array.from({ length: 5 }, (_, i) => ({ label: `later ${i}` })));
        const events = await resumed.waitFor(35);
        assert.deepEqual(
          events.map((event) => event.data.key),
          [...first, ...later],
        );
        const ids = events.map((event) => Number(event.id));
        assert.deepEqual(
          ids,
          ids.map((_, i) => head + i + 1),
        );
        // Nothing more than those: no change came twice.
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(resumed.events.length, 35);
      } finally {
        resumed.close();
      }
    } finally {
      live.close();
    }
  });
});
