// The servers a PostgresDatabase's options name: one (as before), or several for a cluster, named by a list, by a
// host with commas, or by a URL with several hosts, each reached through a URL of its own with Tenon's parameters
// taken out. No server is contacted: a database opens no connection until a session needs one.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DatabaseError } from "tenon";
import { PostgresDatabase } from "tenon/postgres";
import { serversOf } from "../../../src/engines/postgres/postgres-servers.js";
import { lsnText, lsnValue } from "../../../src/engines/postgres/postgres-replica-set.js";

describe("the servers of a PostgresDatabase", () => {
  test("one host is one server reached as before, with Tenon's own parameters taken out of the URL", () => {
    const [server, ...more] = serversOf({
      connectionString: "postgres://app:secret@db.example:6543/shop?prepareStatements=false&sslmode=disable",
    });
    assert.deepEqual(more, []);
    assert.equal(server.address, "db.example:6543");
    assert.equal(server.connectionString, "postgres://app:secret@db.example:6543/shop?sslmode=disable");
    assert.deepEqual(serversOf({ host: "db", port: 5433, user: "u", database: "d" }), [
      { address: "db:5433", connectionString: undefined, host: "db", port: 5433 },
    ]);
  });

  test("a URL with several hosts is one server per host, each with its own URL and the default port where none is given", () => {
    const servers = serversOf({
      connectionString:
        "postgres://app:s%40cret@db1:5432,db2,[::1]:5434/shop?replicaReads=true&target_session_attrs=read-write&application_name=x",
    });
    assert.deepEqual(
      servers.map((server) => [server.address, server.connectionString]),
      [
        ["db1:5432", "postgres://app:s%40cret@db1:5432/shop?application_name=x"],
        ["db2:5432", "postgres://app:s%40cret@db2:5432/shop?application_name=x"],
        ["[::1]:5434", "postgres://app:s%40cret@[::1]:5434/shop?application_name=x"],
      ],
    );
  });

  test("a host list or a host with commas names the servers, the common port filling in where a host has none", () => {
    assert.deepEqual(
      serversOf({ hosts: ["a:1", { host: "b", port: 2 }, "c"], port: 7 }).map((server) => [server.address, server.host, server.port]),
      [
        ["a:1", "a", 1],
        ["b:2", "b", 2],
        ["c:7", "c", 7],
      ],
    );
    assert.deepEqual(
      serversOf({ host: "a,b:6000" }).map((server) => server.address),
      ["a:5432", "b:6000"],
    );
  });

  test("a database with one server has no read routing; with several it has, replica reads off unless asked", async () => {
    const single = new PostgresDatabase({ connectionString: "postgres://u@127.0.0.1:1/d" });
    const cluster = new PostgresDatabase({ connectionString: "postgres://u@127.0.0.1:1,127.0.0.1:2/d" });
    const reading = new PostgresDatabase({ hosts: ["127.0.0.1:1", "127.0.0.1:2"], database: "d", replicaReads: true });
    const byUrl = new PostgresDatabase({ connectionString: "postgres://u@127.0.0.1:1,127.0.0.1:2/d?replicaReads=true" });
    try {
      assert.equal(single.readRouting, undefined);
      assert.equal(single.poolFigures().replicas, undefined);
      assert.equal(cluster.readRouting?.byDefault, false);
      assert.equal(reading.readRouting?.byDefault, true);
      assert.equal(byUrl.readRouting?.byDefault, true);
      assert.deepEqual(
        cluster.poolFigures().replicas?.servers.map((server) => [server.address, server.role, server.inRotation]),
        [
          ["127.0.0.1:1", "unreachable", false],
          ["127.0.0.1:2", "unreachable", false],
        ],
        "nothing is known of the servers before the first session",
      );
    } finally {
      for (const database of [single, cluster, reading, byUrl]) await database.close();
    }
  });

  test("a connection string that is not a URL is a DatabaseError", () => {
    assert.throws(() => new PostgresDatabase({ connectionString: "not a url" }), DatabaseError);
    assert.throws(() => new PostgresDatabase({ connectionString: "postgres://u@a:1,b:x/d" }), DatabaseError);
  });
});

describe("consistency tokens of PostgreSQL", () => {
  test("a token is a WAL position X/Y in hexadecimal, compared as the number it stands for", () => {
    assert.equal(lsnValue("0/3000060"), 0x3000060n);
    assert.equal(lsnValue("16/B374D848"), (0x16n << 32n) | 0xb374d848n);
    assert.ok((lsnValue("1/0") as bigint) > (lsnValue("0/FFFFFFFF") as bigint));
    assert.equal(lsnText(lsnValue("16/b374d848") as bigint), "16/B374D848");
    for (const bad of ["", "0", "0/", "/1", "1/2/3", "G/0", "123456789/0", " 0/1", "0x1/2"]) assert.equal(lsnValue(bad), undefined, bad);
  });

  test("the read routing checks a token sent back and gives its normal form", async () => {
    const database = new PostgresDatabase({ connectionString: "postgres://u@127.0.0.1:1,127.0.0.1:2/d" });
    try {
      assert.equal(database.readRouting?.parseToken("16/b374d848"), "16/B374D848");
      assert.equal(database.readRouting?.parseToken("not a token"), undefined);
    } finally {
      await database.close();
    }
  });
});
