import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TenonError } from "tenon";
import { PostgresDialect } from "tenon/postgres";
import { SqliteDialect } from "tenon/sqlite";
import { compileApplicationSql, compileNamedParameters } from "../../src/sql/named-parameters.js";

const postgres = new PostgresDialect();
const sqlite = new SqliteDialect();

/** The SQL and the values of `sql` compiled for PostgreSQL with these named values. */
function compiled(sql: string, values: Record<string, unknown>, positional: unknown[] = []): { sql: string; values: unknown[] } {
  const text = compileNamedParameters(sql, new Map(Object.entries(values)), postgres, positional);
  return { sql: text, values: positional };
}

describe("the named-parameter lexer of the application's SQL", () => {
  it("replaces each :name with the engine's next placeholder and binds its value in that order", () => {
    assert.deepEqual(compiled("SELECT * FROM t WHERE a = :a AND b = :b", { a: 1, b: "x" }), {
      sql: "SELECT * FROM t WHERE a = $1 AND b = $2",
      values: [1, "x"],
    });
    const positional: unknown[] = [];
    assert.equal(compileNamedParameters("a = :a OR b = :a", new Map([["a", 7]]), sqlite, positional), "a = ? OR b = ?");
    assert.deepEqual(positional, [7, 7], "a name used twice binds its value twice");
  });

  it("numbers placeholders after the values already bound, so fragments of one statement compose", () => {
    assert.deepEqual(compiled("c = :c", { c: 3 }, ["first", "second"]), { sql: "c = $3", values: ["first", "second", 3] });
  });

  it("leaves :x inside string literals, quoted identifiers and backquoted names alone", () => {
    assert.deepEqual(compiled(`SELECT ':x', "col:x", \`odd:x\` FROM t WHERE a = :a`, { a: 1 }), {
      sql: `SELECT ':x', "col:x", \`odd:x\` FROM t WHERE a = $1`,
      values: [1],
    });
  });

  it("reads a doubled quote as part of its literal, not as its end", () => {
    assert.deepEqual(compiled("SELECT 'it''s :x' || :a, \"a\"\":y\"", { a: "v" }), {
      sql: "SELECT 'it''s :x' || $1, \"a\"\":y\"",
      values: ["v"],
    });
  });

  it("leaves :x inside line and block comments alone", () => {
    assert.deepEqual(compiled("SELECT 1 -- :x is not a parameter\n, :a /* nor :y */", { a: 2 }), {
      sql: "SELECT 1 -- :x is not a parameter\n, $1 /* nor :y */",
      values: [2],
    });
  });

  it("keeps PostgreSQL :: casts, also right after a parameter", () => {
    assert.deepEqual(compiled("SELECT :a::int, b::text FROM t", { a: "5" }), { sql: "SELECT $1::int, b::text FROM t", values: ["5"] });
  });

  it("refuses a name without a value with a TenonError naming it", () => {
    assert.throws(
      () => compiled("a = :missing", {}),
      (error: unknown) => error instanceof TenonError && error.message.includes(":missing"),
    );
  });

  it("converts the application's values for the engine (a boolean is 0/1 on SQLite)", () => {
    assert.deepEqual(compileApplicationSql("flag = :on", { on: true }, sqlite), { sql: "flag = ?", parameters: [1] });
  });
});
