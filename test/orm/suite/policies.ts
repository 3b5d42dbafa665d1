import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import {
  ClaimType,
  type ClaimsOf,
  Column,
  ConcurrentUpdateError,
  Context,
  DeletedAt,
  DetailColumn,
  declareClaims,
  Filter,
  Join,
  JoinKind,
  JsonContext,
  Lazy,
  LazyList,
  Policy,
  type PolicyCaller,
  PolicyCallerRequiredError,
  PolicyRefusedError,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  Type,
  ValidationError,
  VersionColumn,
} from "tenon";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** The claims the suite's callers may carry. */
export const suiteClaims = declareClaims({ regions: ClaimType.list(ClaimType.string), level: ClaimType.int32 });
type SuiteClaims = ClaimsOf<typeof suiteClaims>;

/**
 * A governed account: admins do everything; a caller with regions reads and updates the accounts of its regions; an
 * owner reads, inserts, updates and deletes its own accounts up to a limit of 1000.00. `secret` is read by admins
 * only, `email` by admins and the account's owner, `region` written by admins only; `createdByName` is the caller.
 */
@Table("PolicyAccounts")
@Sequence("PolicyAccountsID")
@Policy<PolicyAccount, SuiteClaims>(suiteClaims, (caller) => ({
  rules: [
    { areas: ["admin"] },
    { operations: ["read", "update", "changes", "aggregate"], rows: { region: { IN: caller.claims.regions } } },
    { operations: ["read", "insert", "update", "delete"], rows: { owner: caller.username }, check: { creditLimit: { "<=": "1000.00" } } },
  ],
  members: {
    secret: { read: { areas: ["admin"] } },
    email: { read: [{ areas: ["admin"] }, { rows: { owner: caller.username } }] },
    region: { write: { areas: ["admin"] } },
  },
  set: { insert: { createdByName: caller.username } },
}))
export class PolicyAccount {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Owner", Type.varchar(30)) owner = "";
  @Column("Region", Type.varchar(2)) region = "EU";
  @Column("Email", Type.varchar(60).orNull) email: string | null = null;
  @Column("Secret", Type.varchar(60).orNull) secret: string | null = null;
  @Column("CreditLimit", Type.decimal(18, 2).orNull) creditLimit: string | null = null;
  @Column("CreatedByName", Type.varchar(30)) createdByName = "";
  @DetailColumn("ID", "AccountID", () => PolicyEntry) entries = new LazyList<PolicyEntry>();
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** An entry of an account: governed by its own rules (small entries for everyone; a level claim of at least 2 reads the large ones). */
@Table("PolicyEntries")
@Sequence("PolicyEntriesID")
@Policy<PolicyEntry, SuiteClaims>(suiteClaims, (caller) => ({
  rules: [
    { areas: ["admin"] },
    { rows: { amount: { "<": 100 } } },
    { when: (user) => (user.claims.level ?? 0) >= 2, rows: { amount: { ">=": 0 } } },
  ],
  set: { update: { note: caller.username } },
}))
export class PolicyEntry {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column(
    "AccountID",
    Type.lazy(() => PolicyAccount),
  )
  account = new Lazy<PolicyAccount>();
  @Column("Amount", Type.int32) amount = 0;
  @Column("Note", Type.varchar(30)) note = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Entries with their account's region: a join whose policy names the joined table's column. */
@Table("PolicyEntries")
@Join(JoinKind.Inner, "PolicyAccounts", "AccountID", "ID")
@Policy<PolicyEntryView, SuiteClaims>(suiteClaims, (caller) => ({
  rules: [{ areas: ["admin"] }, { rows: { region: { IN: caller.claims.regions } } }],
}))
export class PolicyEntryView {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Amount", Type.int32) amount = 0;
  @Column("PolicyAccounts", "Region", Type.string) region = "";
  @Column("PolicyAccounts", "Owner", Type.string) owner = "";
}

/** An entity without a policy beside them: its statements never ask for a caller. */
@Table("PolicyFree")
@Sequence("PolicyFreeID")
export class PolicyFree {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.varchar(30)) name = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

type Row = Record<string, unknown>;

/** A caller of the suite. */
function caller(username: string, areas: readonly string[], claims: SuiteClaims = {}): PolicyCaller<SuiteClaims> {
  return { username, areas, tenant: "", claims };
}

/** Row and member policies: every read, count, page, write, batch, lazy load, detail list and join of a session with a caller. */
export function policiesSuite(harness: EngineHarness): void {
  describe(`${harness.name}: row and column policies`, () => {
    let db: TestDatabase;
    const opened: Context[] = [];
    const session = (who: PolicyCaller<SuiteClaims> | undefined, unscoped = false): JsonContext => {
      const context = new JsonContext(db.database);
      context.onGetCurrentCaller = () => who;
      context.onGetCurrentUser = () => who?.username ?? "admin";
      context.unscoped = unscoped;
      opened.push(context);
      return context;
    };
    const admin = caller("root", ["admin"]);
    const ann = caller("ann", ["staff"]);
    const bob = caller("bob", ["staff"], { regions: ["EU"] });
    const cid = caller("cid", ["staff"], { regions: ["US"], level: 2 });
    const account = (fields: Partial<PolicyAccount>): PolicyAccount => Object.assign(new PolicyAccount(), fields);
    const stored = async (id: number): Promise<Row | undefined> =>
      (
        await db.rows(
          `SELECT Owner AS owner, Region AS region, Email AS email, Secret AS secret, CreatedByName AS creator, VersionID AS version, DeletedAt AS deleted FROM PolicyAccounts WHERE ID = ${id}`,
        )
      )[0];
    let annEu: PolicyAccount;
    let annUs: PolicyAccount;
    let cidUs: PolicyAccount;

    before(async () => {
      db = await harness.open();
      await Schema.apply(db.database, [PolicyAccount, PolicyEntry, PolicyEntryView, PolicyFree], {
        galera: db.database.dialect.schema?.galeraSequences === true,
      });
      const root = session(admin);
      annEu = account({ owner: "ann", region: "EU", email: "ann@eu", secret: "s1", creditLimit: "10.00" });
      annUs = account({ owner: "ann", region: "US", email: "ann@us", secret: "s2" });
      cidUs = account({ owner: "cid", region: "US", email: "cid@us", secret: "s3" });
      await root.insertAll([annEu, annUs, cidUs]);
      const entry = (owner: PolicyAccount, amount: number): PolicyEntry => {
        const created = Object.assign(new PolicyEntry(), { amount });
        created.account.id = owner.id;
        return created;
      };
      await root.insertAll([entry(annEu, 5), entry(annEu, 500), entry(cidUs, 7)]);
    });
    afterEach(async () => {
      for (const context of opened.splice(0)) await context.dispose();
    });
    after(async () => {
      await db.close();
    });

    it("a caller reads, counts and pages exactly the rows its rules grant; a hidden row reads as absent", async () => {
      const ids = async (who: PolicyCaller<SuiteClaims>): Promise<number[]> => {
        await using reader = session(who);
        return (await reader.selectAll(PolicyAccount)).map((each) => each.id).sort((a, b) => a - b);
      };
      assert.deepEqual(await ids(admin), [annEu.id, annUs.id, cidUs.id]);
      assert.deepEqual(await ids(ann), [annEu.id, annUs.id], "its own rows");
      assert.deepEqual(await ids(bob), [annEu.id], "its region's rows");
      assert.deepEqual(await ids(cid), [annUs.id, cidUs.id], "its region's and its own");
      const b = session(bob);
      assert.equal(await b.tryGet(PolicyAccount, annUs.id), null);
      assert.equal(await b.tryGet(PolicyAccount, annUs.id, { includeDeleted: true }), null);
      assert.equal(await b.selectCount(PolicyAccount), 1);
      const page = await b.selectPage(PolicyAccount, new Filter());
      assert.deepEqual([page.count, page.entities.map((each) => each.id)], [1, [annEu.id]]);
      assert.equal(await b.selectCount(PolicyAccount, new Filter().addWhere("Region = :r", { r: "US" })), 0);
      assert.equal((await b.get(PolicyAccount, annEu.id)).owner, "ann");
    });

    it("a member is left out of the JSON of a caller who may not read it, also depending on the row", async () => {
      const json = async (who: PolicyCaller<SuiteClaims>): Promise<Row[]> => {
        await using reader = session(who);
        return (await reader.toJson(await reader.selectAll(PolicyAccount))) as Row[];
      };
      for (const row of await json(admin)) assert.ok("secret" in row && "email" in row, JSON.stringify(row));
      for (const row of await json(ann)) {
        assert.equal("secret" in row, false);
        assert.equal(row.email, row.id === annEu.id ? "ann@eu" : "ann@us", "the owner reads its email");
      }
      const cids = await json(cid);
      assert.deepEqual(cids.map((row) => [row.id, "email" in row, "secret" in row]).sort(), [
        [annUs.id, false, false],
        [cidUs.id, true, false],
      ]);
      const metadata = session(bob).metadataToJson(PolicyAccount) as { properties: Row[] };
      assert.equal(
        metadata.properties.some((property) => property.name === "secret"),
        false,
        "neither read nor written: left out",
      );
      const email = metadata.properties.find((property) => property.name === "email") as Row;
      assert.equal(email.filterable, false, "read on some rows only: not filterable");
      assert.equal((metadata.properties.find((property) => property.name === "region") as Row).writable, false);
    });

    it("an insert takes the caller's values, refuses members and values the caller may not write, and writes nothing then", async () => {
      const a = session(ann);
      const mine = account({ owner: "ann", region: "EU", creditLimit: "999.99", createdByName: "someone else" });
      await a.insert(mine);
      assert.equal((await stored(mine.id))?.creator, "ann", "a value set from the caller wins over the entity's");
      const failing = async (entity: PolicyAccount, properties: string[]): Promise<void> => {
        await assert.rejects(a.insert(entity), (error: unknown) => {
          assert.ok(error instanceof ValidationError, String(error));
          assert.deepEqual(error.errors.map((each) => each.property).sort(), properties);
          return true;
        });
      };
      await failing(account({ owner: "ann", region: "US" }), ["region"]);
      await failing(account({ owner: "ann", creditLimit: "1000.01" }), ["creditLimit"]);
      await failing(account({ owner: "bob", creditLimit: "1.00" }), ["owner"]);
      // A comparison with NULL never holds, as in SQL: a check on a limit refuses a row without one.
      await failing(account({ owner: "ann" }), ["creditLimit"]);
      const anns = async (): Promise<number> =>
        Number((await db.rows("SELECT COUNT(*) AS n FROM PolicyAccounts WHERE Owner = 'ann'"))[0].n);
      const before = await anns();
      const batch = [account({ owner: "ann", creditLimit: "1.00" }), account({ owner: "ann", creditLimit: "5000.00" })];
      await assert.rejects(a.insertAll(batch), ValidationError);
      assert.equal(await anns(), before, "a batch with a refused row writes none");
    });

    it("an update or delete of a row the caller cannot read fails as for a row that is gone, and changes nothing", async () => {
      const b = session(bob);
      const forged = account({ id: cidUs.id, owner: "cid", region: "US", versionId: 0 });
      await assert.rejects(b.update(forged), ConcurrentUpdateError);
      await assert.rejects(b.delete(account({ id: cidUs.id, versionId: 0 })), ConcurrentUpdateError);
      await assert.rejects(b.updateAll([forged, account({ id: cidUs.id, versionId: 0 })]), ConcurrentUpdateError);
      await assert.rejects(b.deleteAll([account({ id: cidUs.id, versionId: 0 })]), ConcurrentUpdateError);
      assert.deepEqual(await stored(cidUs.id), {
        owner: "cid",
        region: "US",
        email: "cid@us",
        secret: "s3",
        creator: "root",
        version: 0,
        deleted: null,
      });
    });

    it("a row the caller reads but may not delete is refused as such, and a member it may not write cannot change", async () => {
      const b = session(bob);
      const seen = await b.get(PolicyAccount, annEu.id);
      await assert.rejects(b.delete(seen), PolicyRefusedError, "bob's rules grant no delete");
      const changed = await b.get(PolicyAccount, annEu.id);
      changed.region = "US";
      await assert.rejects(
        b.update(changed),
        (error: unknown) => error instanceof ValidationError && error.errors[0].property === "region",
      );
      const c = session(cid);
      const own = await c.get(PolicyAccount, cidUs.id);
      own.creditLimit = "2000.00";
      // cid reads its row by its region's rule, which grants updates without the owner's limit.
      await c.update(own);
      assert.equal((await stored(cidUs.id))?.version, 1);
      assert.equal((await stored(annEu.id))?.region, "EU");
    });

    it("a session without a caller reaches no governed entity; an unscoped one reaches every row; others never ask", async () => {
      const none = session(undefined);
      await assert.rejects(none.selectAll(PolicyAccount), PolicyCallerRequiredError);
      await assert.rejects(none.tryGet(PolicyAccount, annEu.id), PolicyCallerRequiredError);
      await assert.rejects(none.insert(account({ owner: "x" })), PolicyCallerRequiredError);
      assert.equal((await session(undefined, true).selectAll(PolicyAccount)).length >= 3, true);
      const free = new Context(db.database);
      opened.push(free);
      free.onGetCurrentCaller = () => {
        throw new Error("an entity without a policy asked for the caller");
      };
      const row = Object.assign(new PolicyFree(), { name: "free" });
      await free.insert(row);
      row.name = "still free";
      await free.update(row);
      assert.equal((await free.get(PolicyFree, row.id)).name, "still free");
      await free.delete(row);
    });

    it("lazy references, detail lists and joins stop at the rows the caller may read", async () => {
      const b = session(bob);
      const entries = await b.selectAll(PolicyEntry);
      assert.deepEqual(
        entries.map((each) => each.amount).sort((x, y) => x - y),
        [5, 7],
        "the small entries only",
      );
      const onUs = entries.find((each) => each.amount === 7) as PolicyEntry;
      assert.equal(await onUs.account.get(), null, "bob cannot read the US account the entry points at");
      const eu = await b.get(PolicyAccount, annEu.id);
      assert.deepEqual(
        (await eu.entries.load()).map((each) => each.amount),
        [5],
        "the detail list is read through its own policy",
      );
      const cidsOwn = await session(cid).get(PolicyAccount, cidUs.id);
      assert.deepEqual(
        (await cidsOwn.entries.load()).map((each) => each.amount),
        [7],
      );
      assert.deepEqual(
        (await session(cid).selectAll(PolicyEntry)).map((each) => each.amount).sort((x, y) => x - y),
        [5, 7, 500],
        "a level-2 claim reads them all",
      );
      assert.deepEqual(
        (await b.selectAll(PolicyEntryView)).map((each) => each.amount).sort((x, y) => x - y),
        [5, 500],
        "a join's policy on its joined column",
      );
      // A write may not point at a row the caller cannot read: the answer of a row that does not exist.
      const pointing = Object.assign(new PolicyEntry(), { amount: 1 });
      pointing.account.id = cidUs.id;
      await assert.rejects(
        b.insert(pointing),
        (error: unknown) => error instanceof ValidationError && error.errors[0].message === `PolicyAccount ${cidUs.id} does not exist.`,
      );
    });

    it("aggregates and counts measure only the rows the caller's rules grant it, and a count is never an estimate", async () => {
      await using reader = session(bob);
      const result = await reader.aggregate(PolicyAccount, { groupBy: ["region"], metrics: [{ fn: "count", as: "n" }] });
      assert.deepEqual(
        result.rows.map((row) => [row.region, row.n]),
        [["EU", Number((await db.rows("SELECT COUNT(*) AS n FROM PolicyAccounts WHERE Region = 'EU' AND DeletedAt IS NULL"))[0].n)]],
      );
      const visible = (await reader.selectAll(PolicyAccount)).length;
      assert.deepEqual(await reader.countRows(PolicyAccount, undefined, "estimated"), { count: visible, kind: "exact" });
      assert.deepEqual(await reader.countRows(PolicyAccount, undefined, { atMost: 100 }), { count: visible, kind: "exact" });
      // ann's rule (its own rows) grants no aggregate: an aggregate of hers measures nothing.
      await using owner = session(ann);
      assert.deepEqual((await owner.aggregate(PolicyAccount, { metrics: [{ fn: "count", as: "n" }] })).rows, [{ n: 0 }]);
    });

    it("an update takes the values set from the caller, whatever the entity held", async () => {
      const c = session(cid);
      const entry = (await c.selectAll(PolicyEntry)).find((each) => each.amount === 7) as PolicyEntry;
      entry.amount = 8;
      entry.note = "forged";
      await c.update(entry);
      assert.equal((await db.rows(`SELECT Note AS note FROM PolicyEntries WHERE ID = ${entry.id}`))[0].note, "cid");
      const b = session(bob);
      const moved = (await b.selectAll(PolicyEntry)).find((each) => each.amount === 5) as PolicyEntry;
      moved.account.id = cidUs.id;
      await assert.rejects(b.update(moved), (error: unknown) => error instanceof ValidationError && error.errors[0].property === "account");
    });
  });
}
