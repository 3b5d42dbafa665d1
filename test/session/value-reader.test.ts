// The reader of a statement's column values compiled per list of columns answers what the generic loop answers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EntityMapping, Lazy } from "tenon";
import { MariaDbDialect } from "tenon/mariadb";
import { PostgresDialect } from "tenon/postgres";
import { SqliteDialect } from "tenon/sqlite";
import { compileValueReader, readColumnValues } from "../../src/session/write-values.js";
import { Employee, Gadget } from "../orm/fixtures.js";

/** A dialect of an application that overrides `toParameter` alone: the compiled reader still converts through it. */
class TaggedTextDialect extends SqliteDialect {
  override toParameter(value: unknown): unknown {
    return typeof value === "string" ? `tagged:${value}` : super.toParameter(value);
  }
}

describe("value reader", () => {
  it("reads every column's value converted for the driver as the generic loop does, on every dialect", () => {
    const entities: object[] = [
      Object.assign(new Gadget(), {
        id: 1,
        big: 5n,
        ratio: 0.5,
        amount: "12.5",
        flag: true,
        at: new Date(0),
        data: new Uint8Array([1]),
        label: "x",
      }),
      new Gadget(),
      Object.assign(new Gadget(), { label: undefined }),
      Object.assign(new Employee(), { id: 2, company: new Lazy(7) }),
      Object.assign(new Employee(), { company: undefined }),
    ];
    for (const dialect of [new SqliteDialect(), new PostgresDialect(), new MariaDbDialect(), new TaggedTextDialect()]) {
      for (const entity of entities) {
        const columns = EntityMapping.of(entity.constructor as typeof Gadget).ownColumns;
        const compiled = compileValueReader(columns, dialect);
        assert.ok(compiled !== undefined, "the reader was compiled");
        assert.deepEqual(compiled(entity), readColumnValues(columns, entity, dialect), `${dialect.name} ${entity.constructor.name}`);
        if (dialect instanceof TaggedTextDialect && entity instanceof Gadget && entity.label === "x")
          assert.ok(compiled(entity).includes("tagged:x"), "the override converted the text");
      }
    }
  });
});
