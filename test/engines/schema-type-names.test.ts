import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mariaDbTypeName } from "../../src/engines/mariadb/mariadb-schema-dialect.js";
import { postgresTypeName } from "../../src/engines/postgres/postgres-schema-dialect.js";
import { canonicalTypeName } from "../../src/sql/catalog.js";

describe("catalogue types read in the spelling of Tenon's DDL, so that the diff compares like with like", () => {
  it("PostgreSQL's format_type names become the short DDL names", () => {
    const cases: [string, string][] = [
      ["integer", "INTEGER"],
      ["bigint", "BIGINT"],
      ["double precision", "DOUBLE PRECISION"],
      ["numeric(18,4)", "NUMERIC(18, 4)"],
      ["character varying(100)", "VARCHAR(100)"],
      ["character varying", "VARCHAR"],
      ["character(2)", "CHAR(2)"],
      ["timestamp with time zone", "TIMESTAMPTZ"],
      ["timestamp(3) with time zone", "TIMESTAMPTZ(3)"],
      ["timestamp without time zone", "TIMESTAMP"],
      ["bytea", "BYTEA"],
      ["boolean", "BOOLEAN"],
    ];
    for (const [formatted, expected] of cases) assert.equal(postgresTypeName(formatted), expected, formatted);
  });

  it("MariaDB's COLUMN_TYPE loses integer display widths, and tinyint(1) reads as BOOLEAN", () => {
    const cases: [string, string][] = [
      ["int(11)", "INT"],
      ["int", "INT"],
      ["bigint(20)", "BIGINT"],
      ["bigint(20) unsigned", "BIGINT UNSIGNED"],
      ["tinyint(1)", "BOOLEAN"],
      ["tinyint(4)", "TINYINT"],
      ["decimal(18,2)", "DECIMAL(18, 2)"],
      ["varchar(254)", "VARCHAR(254)"],
      ["longtext", "LONGTEXT"],
      ["datetime(3)", "DATETIME(3)"],
    ];
    for (const [columnType, expected] of cases) assert.equal(mariaDbTypeName(columnType), expected, columnType);
  });

  it("SQLite's declared types keep their words, upper case, single spaces and one space after a comma", () => {
    assert.equal(canonicalTypeName(" varchar ( 100 ) "), "VARCHAR(100)");
    assert.equal(canonicalTypeName("numeric(18,2)"), "NUMERIC(18, 2)");
    assert.equal(canonicalTypeName("double  precision"), "DOUBLE PRECISION");
  });
});
