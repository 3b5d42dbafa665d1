import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, EntityMapping, Filter } from "tenon";
import { Gadget } from "../fixtures.js";
import type { EngineHarness, TestDatabase } from "../harness.js";
import { createSchema } from "../schema.js";
import { lower } from "./crud.js";

/** Every column type round-trips identically on every engine: what is written is what is read back. */
export function typesSuite(harness: EngineHarness): void {
  describe(`${harness.name}: column types round-trip`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      await createSchema(harness, db);
    });
    after(async () => db.close());

    async function roundTrip(values: Partial<Gadget>): Promise<{ written: Gadget; read: Gadget }> {
      await using writer = new Context(db.database);
      const written = await writer.createEntity(Gadget);
      Object.assign(written, values);
      await writer.insert(written);
      await using reader = new Context(db.database);
      return { written, read: await reader.get(Gadget, written.id) };
    }

    it("int64 values beyond 2^53 and at both ends of the range come back exact, as bigint", async () => {
      for (const big of [9007199254740993n, 9223372036854775807n, -9223372036854775808n, 0n, -1n]) {
        const { read } = await roundTrip({ big });
        assert.equal(typeof read.big, "bigint");
        assert.equal(read.big, big);
      }
    });

    it("exact decimals come back as the same text with the declared scale", async () => {
      const cases: [string, string][] = [
        ["12345678901234.5678", "12345678901234.5678"],
        ["-0.0001", "-0.0001"],
        ["0.1", "0.1000"],
        ["99999999999999.9999", "99999999999999.9999"],
        ["0", "0.0000"],
      ];
      for (const [written, expected] of cases) {
        const { read } = await roundTrip({ amount: written });
        assert.equal(read.amount, expected);
      }
    });

    it("booleans come back as true, false and null", async () => {
      for (const flag of [true, false, null]) {
        const { read } = await roundTrip({ flag });
        assert.equal(read.flag, flag);
      }
    });

    it("dates come back as the same instant to the millisecond, and are stored in UTC", async () => {
      for (const iso of ["2024-02-29T23:59:59.123Z", "1969-07-20T20:17:40.000Z", "2038-01-19T03:14:08.999Z", "2000-01-01T00:00:00.000Z"]) {
        const { written, read } = await roundTrip({ at: new Date(iso) });
        assert.ok(read.at instanceof Date);
        assert.equal(read.at.toISOString(), iso);
        const row = lower((await db.rows(`SELECT At FROM Gadgets WHERE ID = ${written.id}`))[0]);
        assert.equal(new Date(row.at as string | Date).toISOString(), iso, "the stored value is the UTC instant");
      }
    });

    it("blobs come back byte for byte as Uint8Array, including every byte value and an empty one", async () => {
      const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
      const large = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 251);
      for (const data of [everyByte, large, new Uint8Array(0)]) {
        const { read } = await roundTrip({ data });
        assert.ok(read.data instanceof Uint8Array);
        assert.equal(Buffer.isBuffer(read.data), false, "a plain Uint8Array, not the driver's Buffer");
        assert.deepEqual(read.data, data);
      }
    });

    it("floats and text come back unchanged, including unicode and quotes", async () => {
      const { read } = await roundTrip({ ratio: 0.1 + 0.2, label: 'Zoë\'s "naïve" café ☕ 𝄞 \\ ` end' });
      assert.equal(read.ratio, 0.1 + 0.2);
      assert.equal(read.label, 'Zoë\'s "naïve" café ☕ 𝄞 \\ ` end');
      const tiny = await roundTrip({ ratio: -1.5e-300 });
      assert.equal(tiny.read.ratio, -1.5e-300);
    });

    it("every nullable column comes back null", async () => {
      const { read } = await roundTrip({});
      assert.deepEqual(
        [read.big, read.ratio, read.amount, read.flag, read.at, read.data, read.label],
        [null, null, null, null, null, null, null],
      );
    });

    it("filter parameters of every type match the stored values", async () => {
      const at = new Date("2031-05-06T07:08:09.010Z");
      const { written } = await roundTrip({ big: 9007199254740995n, amount: "42.4200", flag: true, at, label: "filter-me" });
      await using context = new Context(db.database);
      const match = async (sql: string, parameters: Record<string, unknown>): Promise<number[]> =>
        (await context.select(Gadget, new Filter().addWhere(sql, parameters))).map((g) => g.id);
      assert.deepEqual(await match("Big = :big", { big: 9007199254740995n }), [written.id]);
      // Hand-written SQL sees decimals as stored: the text, or on SQLite the integer scaled by 10^scale.
      assert.deepEqual(await match("Amount = :amount", { amount: harness.storedDecimal("42.4200", 4) }), [written.id]);
      assert.deepEqual(await match("At = :at", { at }), [written.id]);
      assert.deepEqual(await match("Flag = :flag AND Label = :label", { flag: true, label: "filter-me" }), [written.id]);
      assert.deepEqual(await match("Flag = :flag AND Label = :label", { flag: false, label: "filter-me" }), []);
    });

    it("dates order and compare as instants", async () => {
      const label = "ordering";
      const instants = ["2030-01-01T00:00:00.002Z", "1999-12-31T23:59:59.999Z", "2030-01-01T00:00:00.001Z"];
      for (const iso of instants) await roundTrip({ at: new Date(iso), label });
      await using context = new Context(db.database);
      const filter = new Filter().addWhere("Label = :label AND At > :from", { label, from: new Date("2000-01-01T00:00:00.000Z") });
      filter.orderBy.push({ column: EntityMapping.of(Gadget).column("at")!, direction: "DESC" });
      const read = await context.select(Gadget, filter);
      assert.deepEqual(
        read.map((g) => g.at?.toISOString()),
        ["2030-01-01T00:00:00.002Z", "2030-01-01T00:00:00.001Z"],
      );
    });
  });
}
