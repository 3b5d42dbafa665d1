import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ColumnType, type Dialect, EntityMapping, Type } from "tenon";
import { MariaDbDialect } from "tenon/mariadb";
import { PostgresDialect } from "tenon/postgres";
import { formatUtcDateTime, parseUtcDateTime } from "../../src/engines/mariadb/mariadb-dialect.js";
import { statementsOf } from "../../src/sql/entity-statements.js";
import { Company } from "../orm/fixtures.js";

/** A declared column type as the dialect interface takes it. */
const as = (type: object): ColumnType<unknown> => type as ColumnType<unknown>;

describe("the PostgreSQL dialect", () => {
  const dialect = new PostgresDialect();

  it("folds identifiers to lower case before quoting them, as PostgreSQL folds unquoted names", () => {
    assert.equal(dialect.quoteIdentifier("Companies"), '"companies"');
    assert.equal(dialect.quoteIdentifier("CompaniesID"), '"companiesid"');
    assert.equal(dialect.quoteIdentifier('odd"name'), '"odd""name"');
  });

  it("numbers its placeholders from $1", () => {
    assert.deepEqual(
      [0, 1, 9].map((i) => dialect.placeholder(i)),
      ["$1", "$2", "$10"],
    );
  });

  it("builds entity statements with folded, quoted names and numbered placeholders", () => {
    const statements = statementsOf(EntityMapping.of(Company), dialect);
    assert.match(statements.insertSql, /^INSERT INTO "companies" \("id", "name", /);
    assert.match(statements.insertSql, /VALUES \(\$1, \$2, \$3, \$4, \$5, \$6, \$7, \$8\) ON CONFLICT \("id"\) DO NOTHING$/);
  });

  it("binds int64 as exact text, dates as ISO-8601 UTC and blobs as Buffers", () => {
    assert.equal(dialect.toDatabase(2n ** 63n - 1n, as(Type.int64)), "9223372036854775807");
    assert.equal(dialect.toDatabase(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), as(Type.date)), "2024-01-02T03:04:05.006Z");
    assert.ok(Buffer.isBuffer(dialect.toDatabase(new Uint8Array([1, 2]), as(Type.blob))));
    assert.equal(dialect.toDatabase(null, as(Type.int64.orNull)), null);
  });

  it("reads int8 text as bigint and numeric text with the declared scale", () => {
    assert.equal(dialect.fromDatabase("9007199254740993", as(Type.int64)), 9007199254740993n);
    assert.equal(dialect.fromDatabase("1.5", as(Type.decimal(18, 4))), "1.5000");
  });
});

describe("the MariaDB dialect", () => {
  const dialect: Dialect = new MariaDbDialect();

  it("quotes identifiers in backticks and keeps their case", () => {
    assert.equal(dialect.quoteIdentifier("CompaniesID"), "`CompaniesID`");
    assert.equal(dialect.quoteIdentifier("odd`name"), "`odd``name`");
  });

  it("uses ? placeholders", () => {
    assert.deepEqual(
      [0, 5].map((i) => dialect.placeholder(i)),
      ["?", "?"],
    );
  });

  it("builds entity statements with backticked names", () => {
    assert.match(statementsOf(EntityMapping.of(Company), dialect).insertSql, /^INSERT INTO `Companies` \(`ID`, `Name`, /);
  });

  it("binds booleans as 0 and 1, and dates as UTC wall-clock text with milliseconds", () => {
    assert.equal(dialect.toDatabase(true, as(Type.boolean)), 1);
    assert.equal(dialect.toParameter(false), 0);
    assert.equal(dialect.toDatabase(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), as(Type.date)), "2024-01-02 03:04:05.006");
  });

  it("reads DATETIME text as UTC, whatever the fraction", () => {
    assert.equal(parseUtcDateTime("2024-01-02 03:04:05.006").toISOString(), "2024-01-02T03:04:05.006Z");
    assert.equal(parseUtcDateTime("2024-01-02 03:04:05").toISOString(), "2024-01-02T03:04:05.000Z");
    assert.equal(parseUtcDateTime("1969-12-31 23:59:59.999999").toISOString(), "1969-12-31T23:59:59.999Z");
    assert.equal((dialect.fromDatabase("2000-02-29 12:00:00.500", as(Type.date)) as Date).toISOString(), "2000-02-29T12:00:00.500Z");
    assert.ok(Number.isNaN(parseUtcDateTime("not a date").getTime()));
  });

  it("writes and reads back the same instant, before and after 1970", () => {
    for (const iso of ["1950-06-15T10:20:30.400Z", "2099-12-31T23:59:59.999Z"]) {
      assert.equal(parseUtcDateTime(formatUtcDateTime(new Date(iso))).toISOString(), iso);
    }
  });
});
