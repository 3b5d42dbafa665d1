import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Column, EntityMapping, type Lazy, MappingError, PrimaryKey, Table, Type } from "tenon";
import { compileFlatWriter, writeFlat } from "../../src/json/flat-writer.js";
import { jsonPlanOf, type FieldWrite } from "../../src/json/json-plan.js";
import { Employee, Gadget } from "../orm/fixtures.js";
import { Author, Book } from "./json-fixtures.js";

/** A class whose JSON names need quoting in generated code. */
@Table("Odd")
class OddNames {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Quote", Type.string) 'say "hi"' = "";
  @Column("Slash", Type.string) "back\\slash" = "";
  @Column("Break", Type.string.orNull) "line\nbreak\u2028sep": string | null = null;
  @Column("Code", Type.string) "}; throw new Error('injected'); ({" = "";
  @Column("Digits", Type.int32) "42" = 0;
}

function plainText(writes: readonly FieldWrite[], entity: object): { compiled: string; generic: string } {
  const compiled = compileFlatWriter(writes);
  assert.ok(compiled !== undefined, "the writer was compiled");
  return { compiled: JSON.stringify(compiled(entity)), generic: JSON.stringify(writeFlat(entity, writes)) };
}

function samples(): object[] {
  const author = Object.assign(new Author(), {
    id: 7,
    name: "Ann",
    secret: "s",
    password: "p",
    score: 3,
    note: null,
    createdAt: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)),
    createdBy: "x",
  });
  author.favorite.id = 12;
  const orphan = new Author();
  orphan.favorite = null as unknown as Lazy<Book>; // a field that lost its Lazy writes null
  const book = Object.assign(new Book(), { id: 1, title: "T", price: "12.50" });
  const gadget = Object.assign(new Gadget(), {
    id: 3,
    big: 9007199254740993n,
    ratio: 0.1,
    amount: "-1.0000",
    flag: false,
    at: new Date(0),
    data: new Uint8Array([0, 255, 1]),
    label: "é\u0000",
  });
  const nanGadget = Object.assign(new Gadget(), { id: 4, ratio: Number.NaN, at: new Date(Number.NaN) });
  const employee = new Employee();
  employee.company.id = 5;
  const odd = Object.assign(new OddNames(), {
    id: 1,
    'say "hi"': "a",
    "back\\slash": "b",
    "line\nbreak\u2028sep": "c",
    "}; throw new Error('injected'); ({": "d",
    "42": 42,
  });
  return [author, orphan, book, new Book(), gadget, new Gadget(), nanGadget, employee, odd, new OddNames()];
}

describe("flat JSON writer", () => {
  it("the compiled writer answers what the generic loop answers, key order included, for every column type", () => {
    for (const entity of samples()) {
      const plan = jsonPlanOf(EntityMapping.of(entity.constructor as typeof Author));
      const { compiled, generic } = plainText(plan.writes, entity);
      assert.equal(compiled, generic, entity.constructor.name);
    }
  });

  it("names that need quoting stay keys: no name reaches the generated code as code", () => {
    const odd = samples().find((entity) => entity instanceof OddNames)!;
    const json = jsonPlanOf(EntityMapping.of(OddNames)).flat(odd);
    assert.deepEqual(Object.keys(json), [
      "42",
      "id",
      'say "hi"',
      "back\\slash",
      "line\nbreak\u2028sep",
      "}; throw new Error('injected'); ({",
    ]);
    assert.equal(json["}; throw new Error('injected'); ({"], "d");
  });

  it("a field written to JSON as __proto__ is refused when the class is mapped, and the compiler would not build it", () => {
    @Table("Proto")
    class Proto {
      @PrimaryKey @Column("ID", Type.int32) id = 0;
      @Column("P", Type.string) __proto__ = "";
    }
    assert.throws(
      () => EntityMapping.of(Proto),
      (error: unknown) => error instanceof MappingError && /Proto/.test(error.message) && /__proto__/.test(error.message),
    );
    const writes: FieldWrite[] = [{ kind: "scalar", name: "__proto__", get: () => "x", encode: (value) => value as string }];
    assert.equal(compileFlatWriter(writes), undefined);
  });

  it("where code generation is refused, the plan writes through the generic loop with the same answer", () => {
    const module = fileURLToPath(new URL("../../src/json/flat-writer.js", import.meta.url));
    const script = `
      const { compileFlatWriter, flatWriterOf } = await import(${JSON.stringify(module)});
      const writes = [{ kind: "scalar", name: "id", get: (e) => e.id, encode: (v) => v }, { kind: "scalar", name: "name", get: (e) => e.name, encode: (v) => String(v) }];
      console.log(JSON.stringify({ compiled: compileFlatWriter(writes) === undefined ? "refused" : "built", json: flatWriterOf(writes)({ id: 2, name: "b" }) }));`;
    const child = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { compiled: "refused", json: { id: 2, name: "b" } });
  });
});
