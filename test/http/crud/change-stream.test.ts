// GET {base}/changes over HTTP on a real SQLite file: Server-Sent Events with ids, resumable with Last-Event-ID,
// filtered by where, by tenant and by the read areas; 400 for a malformed id or filter, 410 past the purged
// horizon, heartbeats, a slow client cut, and a stop that ends the streams.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  ChangeFeed,
  ChangeLog,
  ChangeWebhooks,
  Column,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  TenantColumn,
  Type,
  VersionColumn,
  WebhookSignature,
  type WebhookSubscription,
} from "tenon";
import {
  Area,
  type ChangeStreamSettings,
  Get,
  HttpAuthentication,
  HttpChangesController,
  HttpContext,
  HttpController,
  Post,
  HttpEntityController,
  HttpServer,
  HttpUser,
  type HttpControllerClass,
  type HttpRequest,
} from "tenon/http";
import { SqliteDatabase } from "tenon/sqlite";
import { Validator } from "@seriousme/openapi-schema-validator";

/** A tenant's ticket with a change feed. */
@Table("Tickets")
@Sequence("TicketsID")
@ChangeFeed()
class Ticket {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Title", Type.varchar(50)) title = "";
  @Column("Priority", Type.int32) priority = 0;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A shared notice (no tenant) with a change feed. */
@Table("Notices")
@Sequence("NoticesID")
@ChangeFeed()
class Notice {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(2000)) text = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An entity without a change feed: it has no change stream. */
@Table("Plain")
@Sequence("PlainID")
class Plain {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Text", Type.varchar(50)) text = "";
}

const directory = mkdtempSync(join(tmpdir(), "tenon-changes-"));
const database = new SqliteDatabase({ filename: join(directory, "changes.sqlite") });
/** Small bounds, so that a test sees a heartbeat and a cut without waiting long. */
const settings: ChangeStreamSettings = { heartbeatMs: 300, maxPendingBytes: 64 * 1024, retryMs: 500 };

/** `X-User: name;tenant;area,area` (every request is authenticated). */
class Context implements AsyncDisposable {
  readonly orm = new HttpContext(database);
  attachRequest(request: HttpRequest): void {
    const [, tenant = ""] = (request.header("x-user") ?? "").split(";");
    this.orm.onGetCurrentUser = () => (request.header("x-user") ?? "").split(";")[0];
    this.orm.onGetCurrentTenant = () => (tenant === "" ? undefined : tenant);
    this.orm.unscoped = tenant === "*";
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.orm.dispose();
  }
}

class HeaderAuthentication extends HttpAuthentication<Context> {
  check(request: HttpRequest): void {
    const header = request.header("x-user");
    if (header === undefined) return;
    const [name, tenant = "", areas = ""] = header.split(";");
    request.user = new HttpUser(name, areas === "" ? [] : areas.split(","), tenant);
  }
}

class Tickets extends HttpEntityController<Context, Ticket> {
  protected readonly entityClass = Ticket;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override get changeStreamSettings(): ChangeStreamSettings {
    return settings;
  }
  @Area("read") override selectAll() {
    return super.selectAll();
  }
}

class Notices extends HttpEntityController<Context, Notice> {
  protected readonly entityClass = Notice;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override get changeStreamSettings(): ChangeStreamSettings {
    return settings;
  }
}

class Plains extends HttpEntityController<Context, Plain> {
  protected readonly entityClass = Plain;
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
}

class AllChanges extends HttpChangesController<Context> {
  protected readonly feeds: readonly HttpControllerClass<Context>[] = [Tickets, Notices];
  protected get httpContext(): HttpContext {
    return this.context.orm;
  }
  protected override get changeStreamSettings(): ChangeStreamSettings {
    return settings;
  }
  @Get("probe") probe(): string {
    return "ok";
  }
}

/** Stores webhook subscriptions from request bodies (as an application's administration route would). */
const webhooks = new ChangeWebhooks(database, { feeds: [Ticket, Notice], stored: true });
class Subscriptions extends HttpController<Context> {
  @Post()
  async save(): Promise<{ saved: string }> {
    const subscription = this.request.jsonContent as WebhookSubscription;
    await webhooks.saveSubscription(subscription);
    return { saved: subscription.name };
  }
}

let server: HttpServer<Context>;
let port = 0;
const north = "alice;north;read,write";
const south = "bob;south;read,write";

/** One event of a stream. */
interface Event {
  readonly id: string;
  readonly data: Record<string, unknown>;
}

/** An open stream: the events so far, the comments, and how it ended. */
interface Stream {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly events: Event[];
  readonly comments: string[];
  body: string;
  ended: Promise<void>;
  /** Resolves when `count` events have arrived (or rejects after 20 s). */
  waitFor(count: number): Promise<Event[]>;
  /** Starts reading a stream opened without reading. */
  resume(): void;
  close(): void;
}

function open(path: string, user: string, headers: Record<string, string> = {}, read = true): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, headers: { "X-User": user, Accept: "text/event-stream", ...headers } },
      (res) => {
        let buffer = "";
        const events: Event[] = [];
        const comments: string[] = [];
        const waiters: (() => void)[] = [];
        let endResolve: () => void = () => undefined;
        const stream: Stream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          events,
          comments,
          body: "",
          ended: new Promise<void>((r) => (endResolve = r)),
          waitFor(count) {
            return new Promise((ok, fail) => {
              const timer = setTimeout(() => fail(new Error(`only ${events.length} of ${count} events arrived`)), 20_000);
              const check = (): void => {
                if (events.length >= count) {
                  clearTimeout(timer);
                  ok(events.slice(0, count));
                } else waiters.push(check);
              };
              check();
            });
          },
          close() {
            req.destroy();
          },
          resume() {
            res.on("data", onData);
            res.resume();
          },
        };
        res.setEncoding("utf8");
        res.on("end", () => endResolve());
        res.on("close", () => endResolve());
        res.on("error", () => endResolve());
        const onData = (chunk: string): void => {
          stream.body += chunk;
          buffer += chunk;
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id = "";
            let data: string | undefined;
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) comments.push(line.slice(1).trim());
              else if (line.startsWith("id: ")) id = line.slice(4);
              else if (line.startsWith("data: ")) data = line.slice(6);
            }
            if (data !== undefined) events.push({ id, data: JSON.parse(data) });
          }
          for (const waiter of waiters.splice(0)) waiter();
        };
        if (read) res.on("data", onData);
        else res.pause();
        resolve(stream);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function call(method: string, path: string, user: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}/api${path}`, {
    method,
    headers: { "X-User": user, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
}

async function insertTicket(title: string, priority = 1, user = north): Promise<Record<string, unknown>> {
  const answer = await call("POST", "/tickets", user, { title, priority });
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json as Record<string, unknown>;
}

/** Opens a stream and waits until its head (and `retry:`) arrived, so that what is written next is streamed. */
async function subscribe(path: string, user = north, headers: Record<string, string> = {}): Promise<Stream> {
  const stream = await open(`/api${path}`, user, headers);
  assert.equal(stream.status, 200, stream.body);
  await until(() => stream.comments.includes("changes"));
  return stream;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition());
}

before(async () => {
  await Schema.apply(database, [Ticket, Notice, Plain], { changeFeed: true, webhooks: true });
  server = new HttpServer(Context);
  server.baseUri = "/api";
  server.port = 0;
  server.registerAuthentication(HeaderAuthentication);
  server.registerController(Tickets, "/tickets");
  server.registerController(Notices, "/notices");
  server.registerController(Plains, "/plains");
  server.registerController(AllChanges, "/changes");
  server.registerController(Subscriptions, "/subscriptions");
  server.serveOpenApi("/openapi.json", { title: "Changes", version: "1.0.0" });
  await server.start();
  port = server.port;
});
after(async () => {
  await server.stop();
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("GET {base}/changes", () => {
  test("a subscriber receives another client's insert, update and delete as events with increasing ids", async () => {
    const stream = await subscribe("/tickets/changes");
    assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
    assert.equal(stream.headers["cache-control"], "no-cache");
    const ticket = await insertTicket("Broken printer", 2);
    const updated = await call("PUT", "/tickets", north, { ...ticket, title: "Broken printer again" });
    assert.equal(updated.status, 200);
    const deleted = await call("DELETE", `/tickets/${ticket.id}/1`, north);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
    const events = await stream.waitFor(3);
    stream.close();
    assert.deepEqual(
      events.map((event) => event.data),
      [
        {
          entity: "Ticket",
          key: ticket.id,
          action: "insert",
          version: 0,
          data: { id: ticket.id, title: "Broken printer", priority: 2, versionId: 0 },
        },
        {
          entity: "Ticket",
          key: ticket.id,
          action: "update",
          version: 1,
          data: { id: ticket.id, title: "Broken printer again", priority: 2, versionId: 1 },
        },
        { entity: "Ticket", key: ticket.id, action: "delete", version: 2 },
      ],
    );
    const ids = events.map((event) => Number(event.id));
    assert.ok(ids[0] < ids[1] && ids[1] < ids[2], ids.join(","));
  });

  test("a client that resumes with Last-Event-ID or lastEventId receives exactly what it missed, once", async () => {
    const first = await subscribe("/tickets/changes");
    await insertTicket("R1");
    const [seen] = await first.waitFor(1);
    first.close();
    const missed = [await insertTicket("R2"), await insertTicket("R3")];
    const resumed = await subscribe("/tickets/changes", north, { "Last-Event-ID": seen.id });
    const events = await resumed.waitFor(2);
    const later = await insertTicket("R4");
    const all = await resumed.waitFor(3);
    resumed.close();
    assert.deepEqual(
      events.map((event) => event.data.key),
      missed.map((ticket) => ticket.id),
    );
    assert.equal(all[2].data.key, later.id);
    const byQuery = await subscribe(`/tickets/changes?lastEventId=${seen.id}`);
    const again = await byQuery.waitFor(3);
    byQuery.close();
    assert.deepEqual(
      again.map((event) => event.id),
      all.map((event) => event.id),
    );
  });

  test("where filters the changes by the entity's columns as a select's where does", async () => {
    const where = encodeURIComponent(
      JSON.stringify([
        { columnName: "priority", condition: ">=", value: 5 },
        { columnName: "title", condition: "LIKE", value: "Urgent%" },
      ]),
    );
    const stream = await subscribe(`/tickets/changes?where=${where}`);
    await insertTicket("Urgent but low", 1);
    await insertTicket("Calm but high", 9);
    const wanted = await insertTicket("Urgent and high", 7);
    const [event] = await stream.waitFor(1);
    await insertTicket("Urgent again", 5);
    const events = await stream.waitFor(2);
    stream.close();
    assert.equal(event.data.key, wanted.id);
    assert.equal(events[1].data.data && (events[1].data.data as Record<string, unknown>).title, "Urgent again");
  });

  test("a tenant's subscriber never receives another tenant's changes", async () => {
    const southStream = await subscribe("/tickets/changes", south);
    const northStream = await subscribe("/tickets/changes", north);
    const northTicket = await insertTicket("North only", 1, north);
    const southTicket = await insertTicket("South only", 1, south);
    const [southEvent] = await southStream.waitFor(1);
    const northEvents = await northStream.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    southStream.close();
    northStream.close();
    assert.equal(southEvent.data.key, southTicket.id);
    assert.equal(southStream.events.length, 1);
    assert.equal(northEvents[0].data.key, northTicket.id);
    assert.equal(northStream.events.length, 1);
  });

  test("a caller without the read area is refused with 403 and receives nothing", async () => {
    const stream = await open("/api/tickets/changes", "eve;north;write");
    await stream.ended;
    assert.equal(stream.status, 403);
    assert.equal(stream.events.length, 0);
  });

  test("a malformed Last-Event-ID or lastEventId, or a malformed where, answers 400 and streams nothing", async () => {
    for (const [path, headers] of [
      ["/api/tickets/changes", { "Last-Event-ID": "abc" }],
      ["/api/tickets/changes", { "Last-Event-ID": "-1" }],
      ["/api/tickets/changes", { "Last-Event-ID": "1e3" }],
      ["/api/tickets/changes", { "Last-Event-ID": "12345678901234567" }],
      ["/api/tickets/changes?lastEventId=x1", {}],
      ["/api/tickets/changes?lastEventId=007", {}],
      ["/api/tickets/changes", { "Last-Event-ID": "1 2" }],
      [`/api/tickets/changes?where=${encodeURIComponent('[{"columnName":"title","condition":"BOGUS","value":"x"}]')}`, {}],
      [`/api/tickets/changes?where=${encodeURIComponent('[{"columnName":"title","condition":"=","value":"x"},5]')}`, {}],
      ["/api/tickets/changes?where=not-json", {}],
      [`/api/tickets/changes?where=${encodeURIComponent('{"columnName":"title"}')}`, {}],
      [`/api/tickets/changes?where=${encodeURIComponent('[{"columnName":"nope","condition":"=","value":1}]')}`, {}],
      [`/api/tickets/changes?where=${encodeURIComponent('[{"columnName":"priority","condition":"=","value":"high"}]')}`, {}],
      [`/api/changes?where=${encodeURIComponent("[]")}`, {}],
    ] as const) {
      const stream = await open(path, north, headers);
      await stream.ended;
      assert.equal(stream.status, 400, `${path} ${JSON.stringify(headers)}: ${stream.body}`);
      assert.equal(JSON.parse(stream.body).status, 400);
    }
  });

  test("a malformed webhook subscription sent to a route that stores it answers 400 naming the field, and stores nothing", async () => {
    const secret = WebhookSignature.newSecret();
    const good = { name: "tickets-hook", url: "https://hooks.example.com/tickets", secret, entities: ["Ticket"] };
    for (const [body, message] of [
      [{ ...good, name: "bad name" }, /name "bad name" must be 1 to 100 letters/],
      [{ ...good, url: "ftp://hooks.example.com/" }, /needs an absolute http: or https: URL/],
      [{ ...good, secret: "hunter2" }, /needs a secret "whsec_"/],
      [{ ...good, entities: ["Plain"] }, /names the entity "Plain", which is none of the feeds/],
      [{ ...good, maxAttempts: 0 }, /needs maxAttempts as a whole number from 1 to 100/],
      [{ ...good, extra: true }, /has the unknown field "extra"/],
    ] as const) {
      const answer = await call("POST", "/subscriptions", north, body);
      assert.equal(answer.status, 400, JSON.stringify(answer.json));
      assert.match((answer.json as { message: string }).message, message);
    }
    assert.deepEqual(
      await database.acquire().then(async (connection) => {
        try {
          return await connection.query("SELECT name FROM tenon_webhooks", []);
        } finally {
          connection.release();
        }
      }),
      [],
    );
    const saved = await call("POST", "/subscriptions", north, good);
    assert.equal(saved.status, 200, JSON.stringify(saved.json));
    assert.equal(await webhooks.deadLetterCount("tickets-hook"), 0, "the stored subscription is known");
  });

  test("an id older than the purged horizon answers 410; the current one resumes", async () => {
    const a = await insertTicket("Old 1");
    await insertTicket("Old 2");
    const log = new ChangeLog(database);
    const bounds = await log.bounds();
    await log.purge({ keep: 1 });
    const gone = await open("/api/tickets/changes", north, { "Last-Event-ID": String(bounds.head - 2) });
    await gone.ended;
    assert.equal(gone.status, 410, gone.body);
    assert.match(JSON.parse(gone.body).message, /purged/);
    assert.ok(a.id !== undefined);
    const fine = await subscribe("/tickets/changes", north, { "Last-Event-ID": String(bounds.head - 1) });
    const [event] = await fine.waitFor(1);
    fine.close();
    assert.equal(event.id, String(bounds.head));
    // An id the log never handed out (a client of a database since restored from an older backup): 410 too.
    const ahead = await open("/api/tickets/changes", north, { "Last-Event-ID": String(bounds.head + 1000) });
    await ahead.ended;
    assert.equal(ahead.status, 410, ahead.body);
    assert.match(JSON.parse(ahead.body).message, /never sent by this change log/);
  });

  test("an idle stream carries heartbeats", async () => {
    const stream = await subscribe("/notices/changes");
    await until(() => stream.comments.includes("heartbeat"));
    stream.close();
  });

  test("a client that stops reading is cut once it leaves too much unread, and resumes where it was", async () => {
    const slow = await open("/api/notices/changes", north, {}, false);
    assert.equal(slow.status, 200);
    const text = "x".repeat(1900);
    const written: number[] = [];
    // About 1 MB of events, sixteen times what the stream lets a client leave unread.
    for (let round = 0; round < 5; round++) {
      const body = { insert: Array.from({ length: 100 }, () => ({ text })) };
      const answer = await call("POST", "/notices/bulk", north, body);
      assert.equal(answer.status, 200);
      for (const each of (answer.json as { inserted: { id: number }[] }).inserted) written.push(each.id);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The client reads again: the server had ended the stream rather than queue the rest.
    slow.resume();
    await slow.ended;
    assert.ok(slow.events.length < written.length, `${slow.events.length} of ${written.length} events were sent`);
    const last = slow.events.at(-1);
    const resumed = await subscribe("/notices/changes", north, last === undefined ? {} : { "Last-Event-ID": last.id });
    const rest = await resumed.waitFor(written.length - slow.events.length);
    resumed.close();
    assert.deepEqual(
      [...slow.events, ...rest].map((event) => event.data.key),
      written,
    );
  });

  test("an entity without @ChangeFeed has no change stream", async () => {
    const stream = await open("/api/plains/changes", north);
    await stream.ended;
    // No route: the address reads as GET {base}/{id} with an id that is no integer.
    assert.equal(stream.status, 400);
    assert.doesNotMatch(String(stream.headers["content-type"]), /event-stream/);
  });

  test("the server's stream carries every entity the caller may read, of its tenant only", async () => {
    const stream = await subscribe("/changes");
    await insertTicket("Mixed 1");
    await insertTicket("Other tenant", 1, south);
    const notice = await call("POST", "/notices", north, { text: "Mixed 2" });
    const events = await stream.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stream.close();
    assert.deepEqual(
      events.map((event) => event.data.entity),
      ["Ticket", "Notice"],
    );
    assert.equal(events[1].data.key, (notice.json as Record<string, unknown>).id);
    assert.equal(stream.events.length, 2);
    // Without the read area, the tickets drop out and the notices remain.
    const writerOnly = await subscribe("/changes", "wes;north;write");
    await insertTicket("Hidden from wes");
    const noticeTwo = await call("POST", "/notices", north, { text: "Seen by wes" });
    const [seen] = await writerOnly.waitFor(1);
    writerOnly.close();
    assert.equal(seen.data.key, (noticeTwo.json as Record<string, unknown>).id);
  });

  test("the OpenAPI document describes the webhook delivery with the stream's ChangeRecord schema, and validates as OpenAPI 3.1", async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/api/openapi.json`, { headers: { "X-User": north } });
    assert.equal(answer.status, 200);
    const document = (await answer.json()) as {
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> }; parameters: { name: string }[] } }>;
      components: { schemas: Record<string, { required: string[] }> };
    };
    const post = document.webhooks.changeRecord.post;
    assert.deepEqual(post.requestBody.content["application/json"].schema, { $ref: "#/components/schemas/ChangeRecord" });
    assert.deepEqual(
      post.parameters.map((parameter) => parameter.name),
      ["webhook-id", "webhook-timestamp", "webhook-signature", "tenon-subscription", "tenon-attempt"],
    );
    assert.deepEqual(document.components.schemas.ChangeRecord.required, ["entity", "key", "action", "version"]);
    const result = await new Validator().validate(structuredClone(document) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  test("stopping the server ends the open streams instead of waiting for their clients", async () => {
    const other = new HttpServer(Context);
    other.baseUri = "/api";
    other.port = 0;
    other.registerAuthentication(HeaderAuthentication);
    other.registerController(Notices, "/notices");
    await other.start();
    const saved = port;
    port = other.port;
    try {
      const stream = await subscribe("/notices/changes");
      const started = Date.now();
      await other.stop();
      await stream.ended;
      assert.ok(Date.now() - started < 9_000, "the stop did not wait for the grace period");
    } finally {
      port = saved;
    }
  });
});
