import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BeforeInsert, Column, Context, FilterBuilder, MaxLength, PrimaryKey, Table, Type, ValidationError } from "tenon";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** A row with an exact amount, a wide decimal and sized text. */
@Table("Ledger")
class Entry {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Amount", Type.decimal(18, 2)) amount = "0.00";
  @Column("Wide", Type.decimal(20, 2).orNull) wide: string | null = null;
  @MaxLength(5) @Column("Code", Type.varchar(5)) code = "";
  @Column("Note", Type.string.orNull) note: string | null = null;
  @Column("Quantity", Type.int32) quantity = 0;
  @Column("Total", Type.int64) total = 0n;
  @Column("Ratio", Type.float) ratio = 0;
}

/** The same table, with an amount that a before-insert event computes (as an order total is computed). */
@Table("Ledger")
class ComputedEntry {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Amount", Type.decimal(18, 2)) amount = "0.00";
  @Column("Code", Type.varchar(5)) code = "";
  /** How many times one unit the amount is. */
  factor = 1n;

  /** amount = 9999999999999999.99 × factor, the way an event computes a total from lines. */
  @BeforeInsert
  compute(): void {
    const cents = 999999999999999999n * this.factor;
    this.amount = `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
  }
}

/**
 * Values that do not fit their column (issue 17): a decimal beyond its precision, even one an event
 * computed, and text longer than the column as the engine counts it fail validation and store nothing;
 * decimals are exact and compare numerically on every engine, SQLite included; NUL characters and lone
 * surrogates are refused; LIKE has `%` and `_` as its only wildcards and no escape character.
 */
export function columnFitSuite(harness: EngineHarness): void {
  describe(`${harness.name}: values that do not fit their column`, () => {
    let db: TestDatabase;
    let nextId = 1;
    before(async () => {
      db = await harness.open();
      const t = harness.types;
      await db.exec(
        `CREATE TABLE Ledger (ID ${t.int32} NOT NULL PRIMARY KEY, Amount ${t.decimal(18, 2)} NOT NULL, Wide ${t.decimal(20, 2)},
          Code ${t.varchar(5)} NOT NULL, Note ${t.text}, Quantity ${t.int32} NOT NULL DEFAULT 0,
          Total ${t.int64} NOT NULL DEFAULT 0, Ratio ${t.float} NOT NULL DEFAULT 0)`,
      );
    });
    after(async () => db.close());

    async function insert(values: Partial<Entry>): Promise<Entry> {
      await using context = new Context(db.database);
      const entry = Object.assign(new Entry(), { id: nextId++ }, values);
      await context.insert(entry);
      return entry;
    }
    async function read(id: number): Promise<Entry> {
      await using context = new Context(db.database);
      return context.get(Entry, id);
    }
    async function rowCount(): Promise<number> {
      return Number(Object.values((await db.rows("SELECT COUNT(*) AS n FROM Ledger"))[0])[0]);
    }
    async function failure(entity: object): Promise<ValidationError> {
      await using context = new Context(db.database);
      const before = await rowCount();
      let caught: unknown;
      await context.insert(entity).catch((error: unknown) => (caught = error));
      assert.ok(caught instanceof ValidationError, `expected a ValidationError, got ${String(caught)}`);
      assert.equal(await rowCount(), before, "nothing is stored");
      return caught;
    }

    it("a decimal(18, 2) an event computes beyond 18 digits fails validation naming it, and reads still work", async () => {
      const fits = Object.assign(new ComputedEntry(), { id: nextId++, code: "ok" });
      await using context = new Context(db.database);
      await context.insert(fits);
      assert.equal((await read(fits.id)).amount, "9999999999999999.99");
      const tooLarge = Object.assign(new ComputedEntry(), { id: nextId++, code: "big", factor: 10n });
      const error = await failure(tooLarge);
      assert.deepEqual(
        error.errors.map((e) => [e.property, e.message]),
        [["amount", "Amount does not fit its column: a decimal of 18 digits with 2 after the point."]],
      );
      await using reader = new Context(db.database);
      assert.ok((await reader.select(Entry, new FilterBuilder(Entry).build())).length >= 1, "every read of the table still works");
    });

    it("an integer beyond its column's range, a fraction in an integer column and a non-finite float fail validation", async () => {
      // the engines disagree on these (PostgreSQL refuses 2^31, SQLite stores it, MariaDB rounds 1.5): validation decides
      const cases: [Partial<Entry>, string, string][] = [
        [{ quantity: 2 ** 31 }, "quantity", "Quantity does not fit its column: an integer from -2147483648 to 2147483647."],
        [{ quantity: -(2 ** 31) - 1 }, "quantity", "Quantity does not fit its column: an integer from -2147483648 to 2147483647."],
        [{ quantity: 1.5 }, "quantity", "Quantity does not fit its column: an integer from -2147483648 to 2147483647."],
        [{ quantity: Number.NaN }, "quantity", "Quantity does not fit its column: an integer from -2147483648 to 2147483647."],
        [{ total: 2n ** 63n }, "total", "Total does not fit its column: an integer from -9223372036854775808 to 9223372036854775807."],
        [
          { total: -(2n ** 63n) - 1n },
          "total",
          "Total does not fit its column: an integer from -9223372036854775808 to 9223372036854775807.",
        ],
        [{ ratio: Number.POSITIVE_INFINITY }, "ratio", "Ratio does not fit its column: a finite number."],
        [{ ratio: Number.NaN }, "ratio", "Ratio does not fit its column: a finite number."],
      ];
      for (const [values, property, message] of cases) {
        const error = await failure(Object.assign(new Entry(), { id: nextId++, code: "rng" }, values));
        assert.deepEqual(
          error.errors.map((e) => [e.property, e.message]),
          [[property, message]],
          JSON.stringify(values, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value)),
        );
      }
    });

    it("the ends of int32 and int64 and a large float round-trip exactly", async () => {
      for (const [quantity, total, ratio] of [
        [2 ** 31 - 1, 2n ** 63n - 1n, Number.MAX_VALUE],
        [-(2 ** 31), -(2n ** 63n), -1.5e-300],
      ] as const) {
        const entry = await insert({ quantity, total, ratio, code: "end" });
        const back = await read(entry.id);
        assert.deepEqual([back.quantity, back.total, back.ratio], [quantity, total, ratio]);
      }
    });

    it("a decimal with more fraction digits than its scale, or no decimal at all, fails validation", async () => {
      for (const amount of ["0.001", "12345678901234567", "1e3", "twelve"]) {
        const error = await failure(Object.assign(new Entry(), { id: nextId++, amount }));
        assert.equal(error.errors[0]?.property, "amount", amount);
      }
    });

    it("9999999999999999.99 and the other ends of decimal(18, 2) and decimal(20, 2) round-trip exactly", async () => {
      const cases: [string, string | null][] = [
        ["9999999999999999.99", "999999999999999999.99"],
        ["-9999999999999999.99", "-999999999999999999.99"],
        ["0.01", "-0.01"],
        ["-0.00", "0"],
        ["1234567890123456.78", null],
      ];
      for (const [amount, wide] of cases) {
        const entry = await insert({ amount, wide, code: "rt" });
        const back = await read(entry.id);
        assert.equal(back.amount, amount === "-0.00" ? "0.00" : amount);
        assert.equal(back.wide, wide === null ? null : wide === "0" ? "0.00" : wide);
      }
    });

    it("decimals compare and order as numbers in filters, on every engine", async () => {
      const code = "cmp";
      const amounts = ["10.00", "9.50", "-5.00", "100.00", "-9999999999999999.99", "9999999999999999.99", "0.01"];
      for (const amount of amounts) await insert({ amount, wide: amount, code });
      await using context = new Context(db.database);
      const where = () => new FilterBuilder(Entry).where("code").equal(code);
      const amountsOf = async (builder: FilterBuilder<Entry>): Promise<string[]> =>
        (await context.select(Entry, builder.build())).map((e) => e.amount);
      const numeric = [...amounts].sort((a, b) => Number(a) - Number(b));
      assert.deepEqual(await amountsOf(where().orderBy("amount")), numeric);
      assert.deepEqual(await amountsOf(where().orderBy("amount", "DESC")), [...numeric].reverse());
      assert.deepEqual(
        (await context.select(Entry, where().orderBy("wide").build())).map((e) => e.wide),
        numeric,
        "a decimal above 18 digits orders numerically too",
      );
      assert.deepEqual(await amountsOf(where().where("amount").greater("9.99").orderBy("amount")), [
        "10.00",
        "100.00",
        "9999999999999999.99",
      ]);
      assert.deepEqual(await amountsOf(where().where("amount").less("0").orderBy("amount")), ["-9999999999999999.99", "-5.00"]);
      assert.deepEqual(await amountsOf(where().where("amount").equal("9.5")), ["9.50"]);
      assert.deepEqual(await amountsOf(where().where("wide").greater("-6").where("wide").less("9.51").orderBy("wide")), [
        "-5.00",
        "0.01",
        "9.50",
      ]);
      assert.deepEqual(await amountsOf(where().where("amount").in(["100", "-5.00", "3.00"]).orderBy("amount")), ["-5.00", "100.00"]);
    });

    it("text longer than its column in code points fails validation even when @MaxLength passes", async () => {
      // Five grapheme clusters, ten code points: @MaxLength(5) counts five, the column holds five code points.
      const accented = "e\u0301".repeat(5);
      const error = await failure(Object.assign(new Entry(), { id: nextId++, code: accented }));
      assert.deepEqual(
        error.errors.map((e) => [e.property, e.message]),
        [["code", "Code does not fit its column: at most 5 characters (Unicode code points)."]],
      );
      // Five code points in ten UTF-16 units fit.
      const emoji = "\u{1F600}".repeat(5);
      const entry = await insert({ code: emoji });
      assert.equal((await read(entry.id)).code, emoji);
    });

    it("a NUL character or a lone surrogate in text fails validation instead of being stored changed", async () => {
      const cases: [string, RegExp][] = [
        ["a\u0000b", /NUL character/],
        ["a\ud800b", /lone UTF-16 surrogate/],
        ["\udc00", /lone UTF-16 surrogate/],
      ];
      for (const [note, message] of cases) {
        const error = await failure(Object.assign(new Entry(), { id: nextId++, code: "t", note }));
        assert.equal(error.errors[0]?.property, "note");
        assert.match(error.errors[0]?.message ?? "", message);
      }
    });

    it("LIKE has % and _ as its only wildcards and no escape character, a trailing backslash included", async () => {
      const notes = ["a\\b", "a_b", "a%b", "a!b", "ab\\", "abc", "a\\\\"];
      for (const note of notes) await insert({ code: "like", note });
      await using context = new Context(db.database);
      const like = async (pattern: string): Promise<string[]> =>
        (
          await context.select(
            Entry,
            new FilterBuilder(Entry).where("code").equal("like").where("note").like(pattern).orderBy("id").build(),
          )
        ).map((e) => e.note ?? "");
      assert.deepEqual(await like("ab\\"), ["ab\\"]);
      assert.deepEqual(await like("a\\_"), ["a\\b", "a\\\\"]);
      assert.deepEqual(await like("a\\%"), ["a\\b", "a\\\\"]);
      assert.deepEqual(await like("a_b"), ["a\\b", "a_b", "a%b", "a!b"]);
      assert.deepEqual(await like("a!_"), ["a!b"]);
      assert.deepEqual(await like("a!!b"), []);
      assert.deepEqual(await like("%\\"), ["ab\\", "a\\\\"]);
      assert.deepEqual(await like("a\\\\"), ["a\\\\"]);
      const notLike = await context.select(
        Entry,
        new FilterBuilder(Entry).where("code").equal("like").where("note").notLike("%\\%").orderBy("id").build(),
      );
      assert.deepEqual(
        notLike.map((e) => e.note),
        ["a_b", "a%b", "a!b", "abc"],
      );
    });
  });
}
