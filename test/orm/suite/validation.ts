import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, ValidationError, type ValidationFailure } from "tenon";
import { Club, createValidationSchema, lowerKeys, Member } from "../fixtures-validation.js";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** Validation rules checked by real inserts and updates: a failure writes nothing. */
export function validationSuite(harness: EngineHarness): void {
  describe(`${harness.name}: validation`, () => {
    let db: TestDatabase;
    let clubId = 0;
    before(async () => {
      db = await harness.open();
      await createValidationSchema(harness, db);
      await using context = new Context(db.database);
      const club = await context.createEntity(Club);
      club.name = "Chess";
      await context.insert(club);
      clubId = club.id;
    });
    after(async () => db.close());

    let serial = 0;
    /** A member that passes every rule, with a unique name. */
    function validMember(): Member {
      const member = new Member();
      member.name = `m${++serial}`;
      member.club.id = clubId;
      return member;
    }

    async function failures(change: (member: Member) => void): Promise<ValidationFailure[]> {
      await using context = new Context(db.database);
      const member = validMember();
      change(member);
      const before = await memberCount();
      try {
        await context.insert(member);
      } catch (error) {
        assert.ok(error instanceof ValidationError, `expected a ValidationError, got ${String(error)}`);
        assert.equal(await memberCount(), before, "a refused insert writes nothing");
        return [...error.errors];
      }
      return [];
    }

    async function memberCount(): Promise<number> {
      return Number(Object.values((await db.rows("SELECT COUNT(*) AS n FROM Members"))[0])[0]);
    }

    it("a member that passes every rule is inserted", async () => {
      assert.deepEqual(await failures(() => undefined), []);
      assert.ok((await memberCount()) >= 1);
    });

    it("an empty, a whitespace-only and a zero value each fail @Required, naming the display name", async () => {
      assert.deepEqual(await failures((m) => (m.name = "")), [{ property: "name", column: "Name", message: "Member name is required." }]);
      assert.deepEqual(await failures((m) => (m.name = " \t\u00a0")), [
        { property: "name", column: "Name", message: "Member name is required." },
      ]);
      assert.deepEqual(await failures((m) => (m.score = 0)), [{ property: "score", column: "Score", message: "Score is required." }]);
      assert.deepEqual(await failures((m) => (m.score = -1)), []);
    });

    it("a Lazy reference without a key fails @Required with its custom message", async () => {
      assert.deepEqual(await failures((m) => (m.club.id = null)), [
        { property: "club", column: "ClubID", message: "A member needs a club." },
      ]);
    });

    it("every failure of one entity is reported in one ValidationError", async () => {
      const found = await failures((m) => {
        m.name = "";
        m.score = 0;
        m.email = "not an address";
        m.price = "0.00";
      });
      assert.deepEqual(
        found.map((f) => f.property),
        ["name", "email", "score", "price"],
      );
    });

    it("lengths count characters, not bytes or UTF-16 units: emoji and combining marks are one each", async () => {
      const family = "\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
      assert.deepEqual(await failures((m) => (m.name = family.repeat(10))), []);
      assert.equal((await failures((m) => (m.name = family.repeat(11))))[0]?.message, "Member name must be at most 10 characters long.");
      assert.deepEqual(await failures((m) => (m.name = "e\u0301".repeat(10))), []);
      assert.deepEqual(await failures((m) => (m.nickname = "\u{1F1EE}\u{1F1F9}\u{1F1EB}\u{1F1F7}")), [
        { property: "nickname", column: "Nickname", message: "Nickname must be at least 3 characters long." },
      ]);
      assert.deepEqual(await failures((m) => (m.nickname = "\u{1F600}\u{1F600}\u{1F600}")), []);
    });

    it("@MinLength lets null through but checks the empty string", async () => {
      assert.deepEqual(await failures((m) => (m.nickname = null)), []);
      assert.equal((await failures((m) => (m.nickname = ""))).length, 1);
    });

    it("@Regex is anchored exactly as written", async () => {
      assert.deepEqual(await failures((m) => (m.code = "ab123cd")), [], "an unanchored pattern matches anywhere");
      assert.equal((await failures((m) => (m.code = "ab12cd")))[0]?.message, "Code does not have the required format.");
      assert.deepEqual(await failures((m) => (m.zip = "12345")), []);
      assert.deepEqual(await failures((m) => (m.zip = "123456")), [
        { property: "zip", column: "Zip", message: "Zip must be five digits." },
      ]);
    });

    it("@Email follows the WHATWG HTML grammar and lets null and the empty string through", async () => {
      for (const good of ["a@b.co", "first.last+tag@sub.example.org", "user@localhost", "o'hara@x.io", null, ""]) {
        assert.deepEqual(await failures((m) => (m.email = good)), [], String(good));
      }
      for (const bad of ["plain", "a@", "@b.com", "a b@c.com", "a@-b.com", "a@b-.com", '"q"@b.com', "a@b..com", "\u00e9@b.com"]) {
        assert.equal((await failures((m) => (m.email = bad)))[0]?.message, "Email is not a valid e-mail address.", bad);
      }
    });

    it("numeric rules compare int32, float, exact decimals and int64 beyond 2^53", async () => {
      assert.deepEqual(await failures((m) => (m.price = "999.99")), []);
      assert.equal((await failures((m) => (m.price = "1000.00")))[0]?.message, "Price must be less than 1000.");
      assert.equal((await failures((m) => (m.price = "-0.01")))[0]?.message, "Price must be greater than 0.");
      assert.deepEqual(await failures((m) => (m.ratio = 1.5)), []);
      assert.equal((await failures((m) => (m.ratio = 1.5000001)))[0]?.message, "Ratio must be between 0.5 and 1.5.");
      assert.equal((await failures((m) => (m.ratio = 0.49)))[0]?.message, "Ratio must be between 0.5 and 1.5.");
      assert.deepEqual(await failures((m) => (m.level = -5)), []);
      assert.equal((await failures((m) => (m.level = -6)))[0]?.message, "Level must be at least -5.");
      assert.deepEqual(await failures((m) => (m.big = 9007199254740993n)), []);
      assert.equal((await failures((m) => (m.big = 9007199254740994n)))[0]?.message, "Big must be at most 9007199254740993.");
    });

    it("a synchronous @Validator adds its own failure", async () => {
      assert.deepEqual(await failures((m) => (m.nickname = m.name)), [
        { property: "nickname", column: "Nickname", message: "The nickname must differ from the name." },
      ]);
    });

    it("an async @Validator reads the database through the context", async () => {
      await using context = new Context(db.database);
      const first = validMember();
      first.name = "unique";
      await context.insert(first);
      const second = validMember();
      second.name = "unique";
      await assert.rejects(
        context.insert(second),
        (error: unknown) => error instanceof ValidationError && error.errors[0].message === "The name unique is taken.",
      );
      assert.equal((await db.rows("SELECT ID FROM Members WHERE Name = 'unique'")).length, 1);
    });

    it("an update that fails validation leaves the row unchanged", async () => {
      await using context = new Context(db.database);
      const member = validMember();
      await context.insert(member);
      member.name = "";
      member.price = "5000.00";
      await assert.rejects(context.update(member), (error: unknown) => error instanceof ValidationError && error.errors.length === 2);
      const row = lowerKeys((await db.rows(`SELECT Name, Price, VersionID FROM Members WHERE ID = ${member.id}`))[0]);
      assert.equal(row.name, `m${serial}`);
      assert.equal(Number(row.versionid), 0);
      assert.equal(Number(row.price), Number(harness.storedDecimal("1.00", 2)));
    });
  });
}
