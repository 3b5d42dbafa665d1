// README's policy example (examples/readme/policies.ts) is the README's code, and does what the README says, on a
// real SQLite file: admins reach every row, other callers their region's, notes are admins', the owner is the caller.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { JsonContext, type PolicyCaller, Schema, ValidationError } from "tenon";
import { SqliteDatabase } from "tenon/sqlite";
import { Account } from "../../examples/readme/policies.js";
import { repositoryRoot } from "../messages-catalog.js";

/** Code without comments, blanks and semicolons: what two writings of one example must share. */
function codeOf(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/[^\n]*/g, "")
    .replace(/[\s;]+/g, "");
}

describe("README's policy example", () => {
  let directory = "";
  let database: SqliteDatabase;
  const session = (caller: PolicyCaller): JsonContext => {
    const context = new JsonContext(database);
    context.onGetCurrentCaller = () => caller;
    return context;
  };
  const admin: PolicyCaller = { username: "root", areas: ["admin"], tenant: "", claims: {} };
  const eu: PolicyCaller = { username: "ann", areas: ["sales"], tenant: "", claims: { region: "EU" } };

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "tenon-readme-policies-"));
    database = new SqliteDatabase({ filename: join(directory, "app.sqlite") });
    await Schema.apply(database, [Account]);
  });
  after(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("is the code of README.md's section", () => {
    const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
    const block = /## Policies in ten lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block !== undefined, "README.md has a `## Policies in ten lines` section with a ts block");
    const example = readFileSync(join(repositoryRoot, "examples", "readme", "policies.ts"), "utf8");
    const marked = /\/\/ README: begin\n([\s\S]*?)\/\/ README: end/.exec(example)?.[1] ?? "";
    assert.equal(codeOf(block), codeOf(marked));
  });

  it("lets admins reach every row, others their region's, keeps notes for admins and writes the caller as owner", async () => {
    await using root = session(admin);
    const us = Object.assign(new Account(), { region: "US", limit: "500000.00", notes: "big", owner: "mallory" });
    await root.insert(us);
    assert.equal(us.owner, "root");
    await using ann = session(eu);
    const own = Object.assign(new Account(), { limit: "1000.00" });
    await ann.insert(own);
    assert.deepEqual(
      (await ann.selectAll(Account)).map((account) => account.id),
      [own.id],
    );
    assert.equal(await ann.tryGet(Account, us.id), null);
    assert.equal((await root.selectAll(Account)).length, 2);
    assert.equal("notes" in (await ann.toJson(own)), false);
    assert.equal((await root.toJson(us)).notes, "big");
    await assert.rejects(ann.insert(Object.assign(new Account(), { limit: "100000.01" })), ValidationError);
    await assert.rejects(ann.insert(Object.assign(new Account(), { notes: "mine" })), ValidationError);
  });
});
