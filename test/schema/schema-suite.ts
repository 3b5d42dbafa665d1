import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Context, Lazy, Schema, SchemaError, SchemaMismatchError, type EntityClass } from "tenon";
import { HttpServer } from "tenon/http";
import type { EngineHarness, TestDatabase } from "../orm/harness.js";
import {
  LongText,
  Maker,
  Tag,
  TagWithLongName,
  ScaleAbovePrecision,
  TooPrecise,
  Widget,
  oldEntities,
  schemaEntities,
} from "./schema-fixtures.js";

/** The SQL spellings a report uses on one engine. */
interface ReportTypes {
  readonly integer: string;
  readonly text: string;
  readonly boolean: string;
}

const reportTypes: Record<string, ReportTypes> = {
  SQLite: { integer: "INTEGER", text: "TEXT", boolean: "INTEGER" },
  PostgreSQL: { integer: "INTEGER", text: "TEXT", boolean: "BOOLEAN" },
  MariaDB: { integer: "INT", text: "LONGTEXT", boolean: "BOOLEAN" },
};

const tagScripts: Record<string, string> = {
  SQLite:
    'CREATE TABLE "Tags" (\n  "ID" INTEGER NOT NULL,\n  "Name" VARCHAR(30) NOT NULL,\n  PRIMARY KEY ("ID")\n);\n\nCREATE TABLE IF NOT EXISTS tenon_keys (name TEXT NOT NULL PRIMARY KEY, last INTEGER NOT NULL);\n',
  PostgreSQL:
    'CREATE TABLE "tags" (\n  "id" INTEGER NOT NULL,\n  "name" VARCHAR(30) NOT NULL,\n  PRIMARY KEY ("id")\n);\n\nCREATE SEQUENCE "tagsid";\n',
  MariaDB:
    "CREATE TABLE `Tags` (\n  `ID` INT NOT NULL,\n  `Name` VARCHAR(30) NOT NULL,\n  PRIMARY KEY (`ID`)\n);\n\nCREATE SEQUENCE `TagsID`;\n",
};

const notChanged = "Not changed: Tenon never alters, narrows or drops a column.";

/** Schema.create, diff and apply against one engine: each test on a database of its own. */
export function schemaSuite(harness: EngineHarness): void {
  // SQLite through either driver ("SQLite", "SQLite (node:sqlite)") writes the same DDL and reports the same diff.
  const engine = harness.name.startsWith("SQLite") ? "SQLite" : harness.name;
  const t = reportTypes[engine];
  const open = async (): Promise<TestDatabase> => harness.open();

  describe(`${harness.name}: the schema from the mapping`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await open();
    });
    after(async () => db.close());

    it("create writes plain DDL: the engine's types, NOT NULL, the primary key and the sequence, names quoted and folded as queries fold them", () => {
      assert.equal(Schema.create(db.database, [Tag]).toString(), tagScripts[engine]);
      const q = (name: string): string => db.database.dialect.quoteIdentifier(name);
      const statements = Schema.create(db.database, [Maker, Widget]).statements;
      assert.ok(statements.some((each) => each.includes(`FOREIGN KEY (${q("MakerID")}) REFERENCES ${q("Makers")} (${q("ID")})`)));
      assert.ok(statements.includes(`CREATE INDEX ${q("IX_Widgets_MakerID")} ON ${q("Widgets")} (${q("MakerID")})`));
      assert.equal(
        statements.filter((each) => each.startsWith("CREATE INDEX")).length,
        1,
        "one index for the lazy column, relation and detail list",
      );
    });

    it("apply creates a schema on which every column type round-trips every value it accepts through the ORM", async () => {
      const applied = await Schema.apply(db.database, schemaEntities);
      assert.deepEqual(
        applied.differences.map((each) => each.kind),
        [
          "missingTable",
          "missingTable",
          "missingTable",
          ...(harness.hasSequences ? ["missingSequence", "missingSequence", "missingSequence"] : ["missingSequence"]),
        ],
      );
      await using context = new Context(db.database);
      const maker = await context.createEntity(Maker);
      maker.name = "Acme";
      await context.insert(maker);
      maker.name = "Acme Tools";
      await context.update(maker);
      await using check = new Context(db.database);
      assert.equal((await check.get(Maker, maker.id)).name, "Acme Tools");
      const text70k = "ab€𝄞".repeat(14_000);
      const cases: Partial<Widget>[] = [
        {
          count: 2147483647,
          big: 9223372036854775807n,
          ratio: Number.MAX_VALUE,
          amount: "99999999999999.9999",
          wide: "9999999999999999999999999999.9999999999",
          code: "€".repeat(20),
          note: text70k,
          flag: true,
          at: new Date("9999-12-31T23:59:59.999Z"),
          data: Uint8Array.from({ length: 256 }, (_, i) => i),
        },
        {
          count: -2147483648,
          big: -9223372036854775808n,
          ratio: -Number.MIN_VALUE,
          amount: "-99999999999999.9999",
          wide: "-9999999999999999999999999999.9999999999",
          code: "",
          note: "",
          flag: false,
          at: new Date("1000-01-01T00:00:00.000Z"),
          data: new Uint8Array(0),
        },
        {
          countOrNull: 0,
          bigOrNull: 9007199254740993n,
          ratioOrNull: 0.1 + 0.2,
          amountOrNull: "0.0001",
          codeOrNull: `'"\`\\ ;--`,
          label: "Zoë",
          flagOrNull: false,
          atOrNull: new Date("2024-02-29T12:34:56.789Z"),
          dataOrNull: Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256),
        },
      ];
      for (const values of cases) {
        const widget = await context.createEntity(Widget);
        Object.assign(widget, values);
        widget.maker = new Lazy<Maker>(maker.id);
        await context.insert(widget);
        await using reader = new Context(db.database);
        const read = await reader.get(Widget, widget.id);
        for (const [property, value] of Object.entries(values))
          assert.deepEqual((read as unknown as Record<string, unknown>)[property], value, `${property} round-trips`);
        assert.equal(read.maker.id, maker.id);
      }
      await using reader = new Context(db.database);
      const nulls = (await reader.selectAll(Widget)).find((each) => each.code === "")!;
      assert.deepEqual(
        [
          nulls.countOrNull,
          nulls.bigOrNull,
          nulls.ratioOrNull,
          nulls.amountOrNull,
          nulls.codeOrNull,
          nulls.label,
          nulls.flagOrNull,
          nulls.atOrNull,
          nulls.dataOrNull,
        ],
        [null, null, null, null, null, null, null, null, null],
      );
    });

    it("a database just brought up to date has an empty diff, and a second apply changes nothing", async () => {
      const diff = await Schema.diff(db.database, schemaEntities);
      assert.deepEqual(diff.differences, []);
      assert.equal(diff.isEmpty, true);
      assert.equal(diff.toString(), "The database schema matches the mapping.\n");
      const again = await Schema.apply(db.database, schemaEntities);
      assert.deepEqual(again.script.statements, []);
    });

    it("a start check lets the server start on the database just brought up to date", async () => {
      const server = new HttpServer(Object);
      server.allowAnonymous = true;
      server.port = 0;
      server.addBindAddress("127.0.0.1");
      server.addStartCheck(Schema.startCheck(db.database, schemaEntities));
      await server.start();
      try {
        assert.equal(server.isRunning, true);
        assert.ok(server.port > 0);
      } finally {
        await server.stop();
      }
    });

    it("the database refuses NULL in the NOT NULL columns that apply created", async () => {
      const q = (name: string): string => db.database.dialect.quoteIdentifier(name);
      await assert.rejects(db.exec(`INSERT INTO ${q("Tags")} (${q("ID")}, ${q("Name")}) VALUES (1, NULL)`));
    });
  });

  describe(`${harness.name}: the diff of an altered database`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await open();
      await Schema.apply(db.database, oldEntities);
      const q = (name: string): string => db.database.dialect.quoteIdentifier(name);
      await db.exec(`ALTER TABLE ${q("Widgets")} RENAME COLUMN ${q("Note")} TO ${q("Remark")}`);
      await db.exec(`ALTER TABLE ${q("Widgets")} DROP COLUMN ${q("CodeOrNull")}`);
    });
    after(async () => db.close());

    it("reports a dropped, widened and renamed column, a changed type and nullability, a missing table, sequence and index, exactly", async () => {
      const diff = await Schema.diff(db.database, schemaEntities);
      const note =
        engine === "SQLite"
          ? `Widget.note: column Widgets.Note (${t.text} NOT NULL) is missing; it is added accepting NULL, because this engine cannot add a NOT NULL column to an existing table.`
          : `Widget.note: column Widgets.Note (${t.text} NOT NULL) is missing.`;
      assert.deepEqual(
        diff.differences.map((each) => each.message),
        [
          `Widget.count: column Widgets.Count is ${t.integer} NULL in the database; the mapping wants ${t.integer} NOT NULL. ${notChanged}`,
          `Widget.code: column Widgets.Code is VARCHAR(40) NOT NULL in the database; the mapping wants VARCHAR(20) NOT NULL (another size). ${notChanged}`,
          "Widget.codeOrNull: column Widgets.CodeOrNull (VARCHAR(20) NULL) is missing.",
          note,
          `Widget.label: column Widgets.Label (${t.text} NULL) is missing.`,
          `Widget.flag: column Widgets.Flag is ${t.text} NOT NULL in the database; the mapping wants ${t.boolean} NOT NULL. ${notChanged}`,
          "Tag: table Tags is missing.",
          ...(harness.hasSequences ? ["Tag: sequence TagsID is missing."] : []),
          "Widget: no index on Widgets.MakerID.",
        ],
      );
      assert.deepEqual(
        diff.differences.map((each) => [
          each.kind,
          each.entity,
          each.table,
          each.column ?? each.sequence ?? "",
          each.statement !== undefined,
        ]),
        [
          ["columnNullability", "Widget", "Widgets", "Count", false],
          ["columnSize", "Widget", "Widgets", "Code", false],
          ["missingColumn", "Widget", "Widgets", "CodeOrNull", true],
          ["missingColumn", "Widget", "Widgets", "Note", true],
          ["missingColumn", "Widget", "Widgets", "Label", true],
          ["columnType", "Widget", "Widgets", "Flag", false],
          ["missingTable", "Tag", "Tags", "", true],
          ...(harness.hasSequences ? [["missingSequence", "Tag", "Tags", "TagsID", true]] : []),
          ["missingIndex", "Widget", "Widgets", "MakerID", true],
        ],
      );
      const flag = diff.differences.find((each) => each.column === "Flag")!;
      assert.equal(flag.actual, `${t.text} NOT NULL`);
      assert.equal(flag.expected, `${t.boolean} NOT NULL`);
      assert.match(diff.toString(), /-- Not changed \(Tenon never drops, narrows or alters a column; change these yourself\):/);
      for (const statement of diff.script.statements)
        assert.match(statement, /^(CREATE TABLE|ALTER TABLE \S+ ADD COLUMN|CREATE SEQUENCE|CREATE INDEX|ALTER TABLE \S+ ADD CONSTRAINT)/);
    });

    it("a start check refuses to start the server, naming the entity, the column and both types", async () => {
      const server = new HttpServer(Object);
      server.allowAnonymous = true;
      server.port = 0;
      server.addBindAddress("127.0.0.1");
      server.addStartCheck(Schema.startCheck(db.database, schemaEntities));
      await assert.rejects(server.start(), (error: unknown) => {
        assert.ok(error instanceof SchemaMismatchError);
        assert.match(error.message, /^The database schema does not match the mapping \(\d+ differences\); the server was not started:/);
        assert.ok(
          error.message.includes(
            `Widget.flag: column Widgets.Flag is ${t.text} NOT NULL in the database; the mapping wants ${t.boolean} NOT NULL.`,
          ),
        );
        return true;
      });
      assert.equal(server.isRunning, false);
    });

    it("apply adds only what is missing, leaves what differs, and a second apply is a no-op", async () => {
      await Schema.apply(db.database, schemaEntities);
      const after = await Schema.diff(db.database, schemaEntities);
      assert.deepEqual(
        after.differences.map((each) => [each.kind, each.column]),
        [
          ["columnNullability", "Count"],
          ["columnSize", "Code"],
          ...(engine === "SQLite" ? [["columnNullability", "Note"]] : []),
          ["columnType", "Flag"],
        ],
      );
      assert.deepEqual(after.script.statements, []);
      assert.deepEqual((await Schema.apply(db.database, schemaEntities)).script.statements, []);
      await using context = new Context(db.database);
      const tag = await context.createEntity(Tag);
      tag.name = "new";
      await context.insert(tag);
      assert.equal((await context.get(Tag, tag.id)).name, "new");
    });
  });

  describe(`${harness.name}: keys of a table that has rows`, () => {
    it("a missing sequence (SQLite: key table) is created so that the next key is above the highest one", async () => {
      const db = await open();
      try {
        const q = (name: string): string => db.database.dialect.quoteIdentifier(name);
        const schema = db.database.dialect.schema!;
        await Schema.apply(db.database, [Tag]);
        const insert = async (name: string): Promise<number> => {
          await using context = new Context(db.database);
          const tag = await context.createEntity(Tag);
          tag.name = name;
          await context.insert(tag);
          return tag.id;
        };
        assert.deepEqual([await insert("a"), await insert("b"), await insert("c")], [1, 2, 3]);
        await db.exec(schema.hasSequences ? `DROP SEQUENCE ${q("TagsID")}` : `DROP TABLE ${schema.keyTable?.name}`);
        const diff = await Schema.diff(db.database, [Tag]);
        assert.deepEqual(diff.script.statements, [
          schema.hasSequences ? `CREATE SEQUENCE ${q("TagsID")} START WITH 4` : schema.keyTable?.create,
        ]);
        await Schema.apply(db.database, [Tag]);
        assert.equal(await insert("d"), 4);
      } finally {
        await db.close();
      }
    });
  });

  describe(`${harness.name}: a failed apply`, () => {
    it("leaves nothing behind where DDL is transactional (PostgreSQL, SQLite); on MariaDB what ran before the failure stays", async () => {
      const db = await open();
      try {
        const q = (name: string): string => db.database.dialect.quoteIdentifier(name);
        // A view in the way of the last CREATE TABLE: the catalogue lists tables only, so apply tries and fails.
        await db.exec(`CREATE VIEW ${q("Tags")} AS SELECT 1 AS ${q("ID")}`);
        await assert.rejects(Schema.apply(db.database, schemaEntities));
        const diff = await Schema.diff(db.database, schemaEntities);
        const missing = diff.differences.filter((each) => each.kind === "missingTable").map((each) => each.table);
        assert.deepEqual(missing, db.database.dialect.schema?.transactionalDdl ? ["Makers", "Widgets", "Tags"] : ["Tags"]);
      } finally {
        await db.close();
      }
    });
  });

  describe(`${harness.name}: mappings the schema tool refuses`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await open();
    });
    after(async () => db.close());

    const refused = (entities: EntityClass[], pattern: RegExp): void => {
      assert.throws(
        () => Schema.create(db.database, entities),
        (error: unknown) => error instanceof SchemaError && pattern.test(error.message),
      );
    };

    it("an entity whose decimal the engine cannot store exactly is a clear error naming the entity and property", () => {
      refused(
        [TooPrecise],
        /^TooPrecise\.amount: decimal\(1001, 2\) cannot be expressed on \w+: the precision must be an integer from 1 to \d+\.$/,
      );
      refused(
        [ScaleAbovePrecision],
        /^ScaleAbovePrecision\.amount: decimal\(4, 6\) cannot be expressed on \w+: the scale must be an integer from 0 to the precision/,
      );
    });

    it("a varchar longer than the engine stores is a clear error on that engine only", () => {
      const accepted = harness.name !== "MariaDB";
      if (accepted) assert.doesNotThrow(() => Schema.create(db.database, [LongText]));
      else
        refused(
          [LongText],
          /^LongText\.body: varchar\(20000\) cannot be expressed on mariadb: the size must be an integer from 1 to 16383\.$/,
        );
    });

    it("two entities that map one table differently are a clear error naming both", () => {
      refused(
        [Tag, TagWithLongName],
        /^Tags\.Name is mapped by Tag\.name as VARCHAR\(30\) NOT NULL and by TagWithLongName\.name as VARCHAR\(300\) NOT NULL/,
      );
    });

    it("Galera sequences are a MariaDB option only", () => {
      if (harness.name === "MariaDB") {
        const script = Schema.create(db.database, [Tag], { galera: true }).toString();
        assert.match(script, /CREATE SEQUENCE `TagsID` INCREMENT BY 0 NOCACHE ENGINE=InnoDB;/);
      } else {
        assert.throws(() => Schema.create(db.database, [Tag], { galera: true }), SchemaError);
      }
    });
  });
}
