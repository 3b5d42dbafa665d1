// The column rules compiled into one checker per class answer what the generic loop over the rules answers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EntityMapping, Lazy } from "tenon";
import { columnFailures, compileColumnChecks, validationPlanOf } from "../../src/validation/validation-plan.js";
import { Member } from "../orm/fixtures-validation.js";
import { Gadget } from "../orm/fixtures.js";

describe("compiled column checks", () => {
  it("find the failures the generic loop finds, in its order, and nothing for a valid entity", () => {
    const plan = validationPlanOf(EntityMapping.of(Member));
    const compiled = compileColumnChecks(plan.columns);
    assert.ok(compiled !== undefined, "the checker was compiled");
    const members: Member[] = [
      Object.assign(new Member(), { name: "Ann", score: 3, club: new Lazy(1) }),
      Object.assign(new Member(), {
        name: "",
        nickname: "ab",
        email: "nope",
        code: "x",
        zip: "1",
        score: 0,
        price: "0",
        ratio: 2,
        level: -6,
      }),
      Object.assign(new Member(), {
        name: "a\u0000".repeat(8),
        nickname: "\ud800",
        big: 9007199254740994n,
        price: "1000.001",
        ratio: Number.NaN,
      }),
    ];
    for (const member of members) assert.deepEqual(compiled(member), columnFailures(plan.columns, member));
    assert.equal(compiled(members[0]), undefined);
    assert.ok((compiled(members[1])?.length ?? 0) > 5);
  });

  it("Required refuses a text of white space only, Unicode spaces included, and takes one with a character", () => {
    const plan = validationPlanOf(EntityMapping.of(Member));
    const nameFailures = (name: string): number =>
      (plan.failuresOf(Object.assign(new Member(), { name, club: new Lazy(1) })) ?? []).filter((failure) => failure.property === "name")
        .length;
    for (const blank of ["", " ", "\t\n", "\u00a0", " \u2028\u3000 "]) assert.equal(nameFailures(blank), 1, JSON.stringify(blank));
    for (const text of ["a", " a", "\u00a0b", "\u00e9"]) assert.equal(nameFailures(text), 0, JSON.stringify(text));
  });

  it("of a class without rules but its columns' fit find nothing in a valid entity", () => {
    const plan = validationPlanOf(EntityMapping.of(Gadget));
    assert.equal(plan.failuresOf(Object.assign(new Gadget(), { label: "fine", ratio: 1 })), undefined);
    assert.deepEqual(
      plan.failuresOf(Object.assign(new Gadget(), { label: "a\u0000b" })),
      columnFailures(plan.columns, Object.assign(new Gadget(), { label: "a\u0000b" })),
    );
  });
});
