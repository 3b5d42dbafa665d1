// The JSON reader compiled for a plan of scalar columns reads what the generic loop of `entityFromJson` reads.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EntityMapping, InvalidInputError } from "tenon";
import { jsonPlanOf } from "../../src/json/json-plan.js";
import { scalarReaderOf } from "../../src/json/scalar-reader.js";
import { Employee, Gadget } from "../orm/fixtures.js";

/** The generic loop's reading of the scalar members (what `entityFromJson` does for a column that is no reference). */
function readByLoop(json: Record<string, unknown>, entity: object): void {
  for (const field of jsonPlanOf(EntityMapping.of(Gadget)).reads) {
    if (field.kind !== "column" || !Object.hasOwn(json, field.name)) continue;
    field.column.set(entity, field.decode(json[field.name]));
  }
}

/** What reading `json` leaves, or the message it fails with. */
function outcome(read: (json: Record<string, unknown>, entity: object) => void, json: Record<string, unknown>): unknown {
  const gadget = new Gadget();
  try {
    read(json, gadget);
  } catch (error) {
    assert.ok(error instanceof InvalidInputError);
    return { failed: error.message };
  }
  return Object.entries(gadget).map(([name, value]) => [name, value instanceof Date ? value.toISOString() : value]);
}

describe("scalar reader", () => {
  it("reads the members present as the loop does, and fails on the first bad one as it does", () => {
    const reader = scalarReaderOf(jsonPlanOf(EntityMapping.of(Gadget)).reads);
    assert.ok(reader !== undefined, "the reader was compiled");
    const bodies: Record<string, unknown>[] = [
      { id: 3, big: "12", ratio: 0.5, amount: "1.25", flag: true, at: "2024-02-29T10:00:00Z", data: "AQI=", label: "x", versionId: 4 },
      { label: null, ratio: null },
      {},
      { ratio: "fast", label: 5 },
      { label: "a\u0000", ratio: Number.POSITIVE_INFINITY },
      JSON.parse('{"__proto__": {"label": "polluted"}, "label": "own"}') as Record<string, unknown>,
    ];
    for (const body of bodies) assert.deepEqual(outcome(reader, body), outcome(readByLoop, body), JSON.stringify(body));
  });

  it("is not made for a plan with a reference or a detail list", () => {
    assert.equal(scalarReaderOf(jsonPlanOf(EntityMapping.of(Employee)).reads), undefined);
  });
});
