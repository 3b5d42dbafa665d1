import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import {
  Column,
  ConcurrentUpdateError,
  Context,
  DeletedAt,
  DetailColumn,
  Filter,
  Join,
  JoinKind,
  Lazy,
  LazyList,
  PrimaryKey,
  Schema,
  Sequence,
  Table,
  TenantColumn,
  TenantRequiredError,
  Type,
  ValidationError,
  VersionColumn,
} from "tenon";
import type { EngineHarness, TestDatabase } from "../harness.js";

/** An account of a tenant, with notes (soft delete, a version, a detail list). */
@Table("TenantAccounts")
@Sequence("TenantAccountsID")
export class Account {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column("Name", Type.varchar(50)) name = "";
  @DetailColumn("ID", "AccountID", () => Note) notes = new LazyList<Note>();
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A note of an account (a reference to a scoped entity). */
@Table("TenantNotes")
@Sequence("TenantNotesID")
export class Note {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @Column(
    "AccountID",
    Type.lazy(() => Account),
  )
  account = new Lazy<Account>();
  @Column("Text", Type.varchar(50)) text = "";
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** Notes with their account's name: a join whose joined table is scoped too. */
@Table("TenantNotes")
@Join(JoinKind.Inner, "TenantAccounts", "AccountID", "ID")
export class NoteView {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @TenantColumn @Column("TenantID", Type.varchar(20)) tenantId = "";
  @TenantColumn @Column("TenantAccounts", "TenantID", Type.varchar(20)) accountTenantId = "";
  @Column("TenantAccounts", "Name", Type.string) accountName = "";
  @Column("Text", Type.string) text = "";
}

/** A row of a table written by hand (the test's view of what is stored, bypassing Tenon). */
type Row = Record<string, unknown>;

/** Tenant scoping: every read, count, write, join and lazy load of a session sees only its tenant's rows. */
export function tenantsSuite(harness: EngineHarness): void {
  describe(`${harness.name}: tenant scoping`, () => {
    let db: TestDatabase;
    const opened: Context[] = [];
    const session = (tenant: string | undefined, unscoped = false): Context => {
      const context = new Context(db.database);
      context.onGetCurrentTenant = () => tenant;
      context.unscoped = unscoped;
      opened.push(context);
      return context;
    };
    const account = (name: string, tenantId = ""): Account => Object.assign(new Account(), { name, tenantId });
    const stored = async (id: number): Promise<Row | undefined> =>
      (
        await db.rows(
          `SELECT TenantID AS tenant, Name AS name, VersionID AS version, DeletedAt AS deleted FROM TenantAccounts WHERE ID = ${id}`,
        )
      )[0];

    before(async () => {
      db = await harness.open();
      // MariaDB's sequences take the Galera form, which a single server counts like any other (as the demo does).
      await Schema.apply(db.database, [Account, Note, NoteView], { galera: db.database.dialect.schema?.galeraSequences === true });
    });
    // Each session holds a pooled connection until it is disposed: give them back after every test.
    afterEach(async () => {
      for (const context of opened.splice(0)) await context.dispose();
    });
    after(async () => {
      await db.close();
    });

    it("an insert writes the session's tenant whatever the entity says, and other tenants read, count and page nothing of it", async () => {
      const a = session("a");
      const mine = account("Alpha", "b");
      await a.insert(mine);
      assert.equal((await stored(mine.id))?.tenant, "a");
      const b = session("b");
      assert.equal(await b.tryGet(Account, mine.id), null);
      assert.equal(await b.tryGet(Account, mine.id, { includeDeleted: true }), null);
      assert.deepEqual(await b.selectAll(Account), []);
      assert.equal(await b.selectCount(Account), 0);
      assert.deepEqual(await b.selectPage(Account, new Filter().addWhere("ID = :id", { id: mine.id })), { count: 0, entities: [] });
      assert.equal((await a.get(Account, mine.id)).name, "Alpha");
      assert.equal(await a.selectCount(Account, new Filter().addWhere("ID = :id", { id: mine.id })), 1);
    });

    it("another tenant's update, delete, undelete and batches of a row change nothing and fail as for a row that is gone", async () => {
      const a = session("a");
      const target = account("Target");
      await a.insert(target);
      const forged = Object.assign(account("Stolen"), { id: target.id, versionId: 0 });
      const b = session("b");
      await assert.rejects(b.update(forged), ConcurrentUpdateError);
      await assert.rejects(b.delete(Object.assign(account("x"), { id: target.id, versionId: 0 })), ConcurrentUpdateError);
      await assert.rejects(b.updateAll([forged, Object.assign(account("y"), { id: target.id, versionId: 0 })]), ConcurrentUpdateError);
      await assert.rejects(b.deleteAll([Object.assign(account("z"), { id: target.id, versionId: 0 })]), ConcurrentUpdateError);
      assert.deepEqual(await stored(target.id), { tenant: "a", name: "Target", version: 0, deleted: null });
      await a.delete(target);
      const deleted = Object.assign(account("Target"), { id: target.id, versionId: 1, deletedAt: new Date() });
      await assert.rejects(b.undelete(deleted), ConcurrentUpdateError);
      assert.notEqual((await stored(target.id))?.deleted, null);
    });

    it("a key another tenant's row has is never a conflict: the tenant's insert draws its own", async () => {
      const taken = account("Taken");
      await session("a").insert(taken);
      const b = session("b");
      const chosen = Object.assign(account("Chosen"), { id: taken.id });
      await b.insert(chosen);
      assert.notEqual(chosen.id, taken.id);
      assert.equal((await stored(taken.id))?.name, "Taken");
      const batch = [Object.assign(account("Batch"), { id: taken.id }), account("Batch")];
      await b.insertAll(batch);
      assert.ok(batch.every((each) => each.id !== taken.id));
      assert.equal(Number((await db.rows("SELECT COUNT(*) AS n FROM TenantAccounts WHERE Name = 'Batch' AND TenantID = 'b'"))[0].n), 2);
    });

    it("a session without a tenant reaches no scoped entity; an explicitly unscoped one reaches every tenant", async () => {
      for (const none of [session(undefined), session("")]) {
        await assert.rejects(none.selectAll(Account), TenantRequiredError);
        await assert.rejects(none.tryGet(Account, 1), TenantRequiredError);
        await assert.rejects(none.selectCount(Account), TenantRequiredError);
        await assert.rejects(none.insert(account("Nobody's")), TenantRequiredError);
      }
      assert.equal(Number((await db.rows("SELECT COUNT(*) AS n FROM TenantAccounts WHERE Name = 'Nobody''s'"))[0].n), 0);
      const admin = session(undefined, true);
      const seeded = account("Seeded", "c");
      await admin.insert(seeded);
      assert.equal((await stored(seeded.id))?.tenant, "c", "an unscoped insert keeps the tenant the entity names");
      const tenants = new Set((await admin.selectAll(Account)).map((each) => each.tenantId));
      assert.deepEqual([...tenants].sort(), ["a", "b", "c"]);
    });

    it("lazy references, detail lists and joins stop at the tenant's rows", async () => {
      const admin = session(undefined, true);
      const ours = account("Ours", "a");
      const theirs = account("Theirs", "b");
      await admin.insertAll([ours, theirs]);
      const note = (tenantId: string, accountId: number, text: string): Note => {
        const created = Object.assign(new Note(), { tenantId, text });
        created.account.id = accountId;
        return created;
      };
      await admin.insertAll([note("a", ours.id, "a on ours"), note("b", ours.id, "b on ours"), note("a", theirs.id, "a on theirs")]);
      const a = session("a");
      const loaded = await a.get(Account, ours.id);
      assert.deepEqual(
        (await loaded.notes.load()).map((each) => each.text),
        ["a on ours"],
      );
      const onTheirs = (await a.selectAll(Note)).find((each) => each.text === "a on theirs") as Note;
      assert.equal(await onTheirs.account.get(), null, "a reference to another tenant's row loads nothing");
      assert.deepEqual(
        (await a.selectAll(NoteView)).map((each) => [each.text, each.accountName]),
        [["a on ours", "Ours"]],
        "a join reads only joined rows of the same tenant",
      );
      assert.deepEqual(
        (await session("b").selectAll(NoteView)).map((each) => each.text),
        [],
      );
      // A tenant cannot make a reference to another tenant's row: it is the failure of a row that does not exist.
      const refused = (error: unknown): boolean =>
        error instanceof ValidationError &&
        error.errors[0].property === "account" &&
        error.errors[0].message === `Account ${theirs.id} does not exist.`;
      await assert.rejects(a.insert(note("", theirs.id, "pointing over")), refused);
      await assert.rejects(a.insertAll([note("", ours.id, "fine"), note("", theirs.id, "pointing over")]), refused);
      const mine = note("", ours.id, "mine");
      await a.insert(mine);
      mine.account.id = theirs.id;
      await assert.rejects(a.update(mine), refused);
      await assert.rejects(a.updateAll([mine]), refused);
      assert.equal(Number((await db.rows("SELECT COUNT(*) AS n FROM TenantNotes WHERE Text = 'pointing over'"))[0].n), 0);
    });
  });
}
