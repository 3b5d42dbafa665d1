import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type ColumnType, EntityMapping, Lazy, type EntityClass } from "tenon";
import { MariaDbDialect } from "tenon/mariadb";
import { PostgresDialect } from "tenon/postgres";
import { SqliteDialect } from "tenon/sqlite";
import { compileRowFiller, fillRow } from "../../src/session/row-filler.js";
import { Employee, Gadget } from "../orm/fixtures.js";

/** Every own field of an entity, Lazy references as their key and dates as their time (an invalid one too), for comparison. */
function fieldsOf(entity: object): unknown {
  return Object.entries(entity).map(([name, value]) => [
    name,
    value instanceof Lazy ? { lazy: value.id } : value instanceof Date ? { time: String(value.getTime()) } : value,
  ]);
}

const rows: { entityClass: new () => object; row: unknown[] }[] = [
  { entityClass: Gadget, row: [1, 9007199254740993n, 0.5, "12.5", 1, "2024-02-29T23:59:59.999Z", Buffer.from([1, 2]), "label"] },
  { entityClass: Gadget, row: [2, null, null, null, null, null, null, null] },
  { entityClass: Gadget, row: [3, 5, "0.25", 3, "true", "2024-01-01 10:00:00", Buffer.alloc(0), 42] },
  // Employee: a Lazy reference, a #private field, and non-nullable strings read as NULL (their empty value)
  { entityClass: Employee, row: [4, "Ann", "Lee", 7, 1000, "note", "2024-01-01T00:00:00.000Z", null, null, null, 3] },
  { entityClass: Employee, row: [5, null, null, null, null, null, null, null, null, null, 0] },
];

/** A dialect of an application that overrides `fromDatabase` alone: the compiled filler still converts through it. */
class UpperCaseDialect extends SqliteDialect {
  override fromDatabase(value: unknown, type: ColumnType<unknown>): unknown {
    const converted = super.fromDatabase(value, type);
    return typeof converted === "string" ? converted.toUpperCase() : converted;
  }
}

describe("row filler", () => {
  it("the compiled filler leaves every field as the generic loop does, on every dialect", () => {
    for (const dialect of [new SqliteDialect(), new PostgresDialect(), new MariaDbDialect(), new UpperCaseDialect()]) {
      for (const { entityClass, row } of rows) {
        const columns = EntityMapping.of(entityClass as EntityClass<object>).columns;
        const compiled = compileRowFiller(columns, dialect);
        assert.ok(compiled !== undefined, "the filler was compiled");
        const byCompiled = new entityClass();
        const byLoop = new entityClass();
        compiled(byCompiled, row);
        fillRow(columns, byLoop, row, dialect);
        assert.deepEqual(fieldsOf(byCompiled), fieldsOf(byLoop), `${dialect.name} ${entityClass.name} ${row[0]}`);
        if (entityClass === Employee) assert.equal((byCompiled as Employee).notes, (byLoop as Employee).notes);
        if (dialect instanceof UpperCaseDialect && row[1] === "Ann") assert.equal((byCompiled as Employee).firstName, "ANN");
      }
    }
  });

  it("a reference keeps the Lazy it holds and takes the key read", () => {
    const columns = EntityMapping.of(Employee).columns;
    const employee = new Employee();
    const lazy = employee.company;
    compileRowFiller(columns, new SqliteDialect())!(employee, [1, "A", "B", 9, null, null, null, "x", null, "y", 2]);
    assert.equal(employee.company, lazy);
    assert.equal(employee.company.id, 9);
    assert.equal(employee.createdBy, "x");
    assert.equal(employee.updatedBy, "y");
  });

  it("where code generation is refused, the generic loop fills the entity", () => {
    const url = (path: string): string => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));
    const script = `
      const { compileRowFiller, rowFillerOf } = await import(${url("../../src/session/row-filler.js")});
      const { EntityMapping } = await import(${url("../../src/mapping/entity-mapping.js")});
      const { SqliteDialect } = await import(${url("../../src/engines/sqlite/sqlite-dialect.js")});
      const { Employee } = await import(${url("../orm/fixtures.js")});
      const mapping = EntityMapping.of(Employee);
      const employee = new Employee();
      rowFillerOf(mapping.columns, new SqliteDialect())(employee, [4, "Ann", null, 7, 1000, "note", null, null, null, null, 3]);
      console.log(JSON.stringify({ compiled: compileRowFiller(mapping.columns, new SqliteDialect()) === undefined ? "refused" : "built",
        fields: [employee.id, employee.firstName, employee.lastName, employee.company.id, employee.salary, employee.notes, employee.versionId] }));`;
    // The script imports compiled files beside the fixtures' `tenon`: the same files (scripts/run-tests.mjs).
    const child = spawnSync(
      process.execPath,
      ["--conditions=tenon-source", "--disallow-code-generation-from-strings", "--input-type=module", "-e", script],
      {
        encoding: "utf8",
      },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { compiled: "refused", fields: [4, "Ann", "", 7, 1000, "note", 3] });
  });
});
