// A policy that cannot hold is refused when its entity is mapped, with a message naming the entity and what is wrong,
// never at the first request. TypeScript refuses most of these at compile time already; the casts below stand for an
// application written in JavaScript, or one that casts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ChangeFeed,
  ClaimType,
  Column,
  CreatedBy,
  declareClaims,
  EntityMapping,
  JsonIgnore,
  MappingError,
  Policy,
  type PolicyDeclaration,
  PrimaryKey,
  Table,
  Type,
  VersionColumn,
} from "tenon";

const claims = declareClaims({ region: ClaimType.string, regions: ClaimType.list(ClaimType.string), level: ClaimType.int32 });

/** Maps a fresh entity class under `declaration` and answers the MappingError's message (or fails when none is raised). */
function refusal(declaration: unknown, withClaims = true, extra?: (target: Function, context: ClassDecoratorContext) => void): string {
  const decorate = (
    withClaims ? Policy(claims, declaration as PolicyDeclaration<object, object>) : Policy(declaration as PolicyDeclaration<object, object>)
  ) as (target: Function, context: ClassDecoratorContext) => void;
  @Table("Things")
  @((target: Function, context: ClassDecoratorContext) => extra?.(target, context))
  @decorate
  class Thing {
    @PrimaryKey @Column("ID", Type.int32) id = 0;
    @Column("Name", Type.varchar(20)) name = "";
    @Column("Region", Type.varchar(2)) region = "";
    @Column("Amount", Type.decimal(18, 2).orNull) amount: string | null = null;
    @Column("Level", Type.int32) level = 0;
    @JsonIgnore @Column("Hidden", Type.string.orNull) hidden: string | null = null;
    @CreatedBy @Column("CreatedBy", Type.string) createdBy = "";
    @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
  }
  try {
    EntityMapping.of(Thing);
  } catch (error) {
    assert.ok(error instanceof MappingError, String(error));
    assert.match(error.message, /^Thing: /);
    return error.message;
  }
  assert.fail("the policy was accepted");
}

describe("a policy is refused when its entity is mapped", () => {
  it("when it names an unknown member in a condition, a member rule or a set value", () => {
    assert.match(refusal({ rules: [{ rows: { regoin: "EU" } }] }), /rule 1\.rows names regoin, which is not a mapped column/);
    assert.match(refusal({ members: { salary: { read: { areas: ["admin"] } } } }), /names salary, which is not a mapped column/);
    assert.match(refusal({ set: { insert: { owner: "x" } } }), /set\.insert names owner/);
  });

  it("when it compares a member with a value or a caller's value of another type", () => {
    assert.match(refusal({ rules: [{ rows: { level: "3" } }] }), /compares level \(int32\) with the string 3/);
    assert.match(refusal({ rules: [{ rows: { amount: { "<=": 100000 } } }] }), /compares amount \(decimal\) with the number 100000/);
    assert.match(
      refusal((caller: { username: unknown }) => ({ rules: [{ rows: { level: caller.username } }] })),
      /compares level \(int32\) with the caller's username/,
    );
    assert.match(
      refusal((caller: { claims: Record<string, unknown> }) => ({ rules: [{ rows: { name: caller.claims.level } }] })),
      /compares name \(string\) with the claim level \(int32\)/,
    );
    assert.match(refusal({ rules: [{ rows: { level: { LIKE: "1%" } } }] }), /applies LIKE to level, which is not a text column/);
    assert.match(refusal({ rules: [{ rows: { amount: { "<": null } } }] }), /compares amount < null, which never holds/);
  });

  it("when it names a claim the caller's claims do not declare, or claims without a declaration", () => {
    assert.match(
      refusal((caller: { claims: Record<string, unknown> }) => ({ rules: [{ rows: { region: caller.claims.country } }] })),
      /names the claim country, which the caller's claims do not declare/,
    );
    assert.match(
      refusal((caller: { claims: Record<string, unknown> }) => ({ rules: [{ rows: { region: caller.claims.region } }] }), false),
      /names the claim region, and the policy was given no claims declaration/,
    );
    assert.match(
      refusal((caller: { claims: Record<string, unknown> }) => ({ rules: [{ rows: { region: caller.claims.regions } }] })),
      /compares region with a list claim, which only IN can use/,
    );
    assert.match(
      refusal((caller: { claims: Record<string, unknown> }) => ({ rules: [{ rows: { region: { IN: caller.claims.region } } }] })),
      /compares region with IN, whose value must be a list or a list claim/,
    );
  });

  it("when a setting, an operator or an operation is misspelled, or a group is empty", () => {
    assert.match(refusal({ rules: [{ row: { region: "EU" } }] }), /rule 1 has no setting row/);
    assert.match(refusal({ rules: [{ operations: ["reed"] }] }), /names the operation reed/);
    assert.match(refusal({ rules: [{ rows: { region: { "==": "EU" } } }] }), /compares region with the operator ==/);
    assert.match(refusal({ rules: [{ rows: { or: [] } }] }), /has an empty or group/);
    assert.match(refusal({ rules: [{ rows: {} }] }), /has an empty and group/);
    assert.match(refusal({ rules: [{ areas: "admin" }] }), /rule 1\.areas must be a list of area names/);
    assert.match(refusal({ rules: [{ when: true }] }), /rule 1\.when must be a function/);
    assert.match(refusal({ member: {} }), /the policy has no setting member/);
  });

  it("when it governs the key, the version or sets a change-tracking column, or is applied twice", () => {
    assert.match(refusal({ members: { id: { read: { areas: ["admin"] } } } }), /names id: the primary key, the version/);
    assert.match(refusal({ members: { versionId: { write: [] } } }), /names versionId: the primary key, the version/);
    assert.match(refusal({ set: { update: { createdBy: "x" } } }), /set\.update names createdBy: the primary key/);
    assert.match(refusal({}, true, Policy({}) as never), /@Policy is applied more than once/);
  });

  it("when an entity with a change feed names a member its change records do not carry", () => {
    const feed = ChangeFeed() as unknown as (target: Function, context: ClassDecoratorContext) => void;
    assert.match(
      refusal({ rules: [{ rows: { hidden: null } }] }, true, feed),
      /names hidden, which the entity's change records do not carry/,
    );
  });

  it("a claim declared with something that is not a claim type is refused where it is declared", () => {
    assert.throws(
      () => declareClaims({ region: "string" as never }),
      /The claim region is declared with something that is not a ClaimType/,
    );
  });
});
