import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  EntityMapping,
  InvalidInputError,
  JsonContext,
  JsonSerializerConfig,
  isDeserialized,
  isFilterable,
  isSerialized,
  type Filter,
  type JsonObject,
} from "tenon";
import type { EngineHarness, TestDatabase } from "../orm/harness.js";
import { Author, Book, createJsonSchema, Sample } from "./json-fixtures.js";

/** A JSON context that counts the selects it runs (the bulk reads of references). */
class CountingContext extends JsonContext {
  selects = 0;
  override select<T extends object>(entityClass: abstract new () => T, filter: Filter): Promise<T[]> {
    this.selects++;
    return super.select(entityClass, filter);
  }
}

/** The JSON of entities (visibility decorators, the wire format and the metadata: docs/entities.md) on a real database. */
export function jsonSuite(harness: EngineHarness): void {
  describe(`${harness.name}: JSON of entities`, () => {
    let db: TestDatabase;
    const ids = { a: 0, b: 0, one: 0, two: 0, three: 0 };
    before(async () => {
      db = await harness.open();
      await createJsonSchema(harness, db);
      await using context = new JsonContext(db.database);
      context.onGetCurrentUser = () => "alice";
      const a = Object.assign(await context.createEntity(Author), { name: "Ann", secret: "s", password: "p", score: 7, note: "n" });
      const b = Object.assign(await context.createEntity(Author), { name: "Bob" });
      await context.insert(a);
      await context.insert(b);
      const book = async (title: string, author: Author, price: string): Promise<Book> => {
        const entity = Object.assign(await context.createEntity(Book), { title, price });
        entity.author.id = author.id;
        await context.insert(entity);
        return entity;
      };
      const one = await book("One", a, "10.50");
      const two = await book("Two", a, "3.00");
      const three = await book("Three", b, "7.25");
      a.favorite.id = three.id;
      a.agent.id = b.id;
      a.editor.id = b.id;
      b.favorite.id = one.id;
      await context.update(a);
      await context.update(b);
      Object.assign(ids, { a: a.id, b: b.id, one: one.id, two: two.id, three: three.id });
    });
    after(async () => db.close());

    async function author(config: JsonSerializerConfig): Promise<JsonObject> {
      await using context = new JsonContext(db.database);
      return await context.toJson(await context.get(Author, ids.a), config);
    }

    it("entityOnly writes the values and <name>Id of each reference, in declaration order, without ignored members", async () => {
      const json = await author(JsonSerializerConfig.entityOnly);
      assert.deepEqual(Object.keys(json), [
        "id",
        "name",
        "score",
        "note",
        "favoriteId",
        "agentId",
        "createdAt",
        "createdBy",
        "updatedAt",
        "updatedBy",
        "versionId",
      ]);
      assert.equal(json.name, "Ann");
      assert.equal(json.score, 7);
      assert.equal(json.favoriteId, ids.three);
      assert.equal(json.agentId, ids.b);
      assert.equal(json.createdBy, "alice");
      assert.match(json.createdAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(json.versionId, 1);
    });

    it("withRelations expands each reference one level and writes no details", async () => {
      const json = await author(JsonSerializerConfig.withRelations);
      assert.deepEqual(json.favorite, { id: ids.three, title: "Three", authorId: ids.b, price: "7.25", versionId: 0 });
      const agent = json.agent as JsonObject;
      assert.equal(agent.name, "Bob");
      assert.equal(agent.favoriteId, ids.one);
      assert.equal("favorite" in agent, false, "the second level is not expanded");
      assert.equal("books" in json, false);
      assert.equal("editor" in json || "editorId" in json, false, "@JsonIgnore on a Lazy");
    });

    it("withDetails writes the detail lists one level deep, except ignored ones", async () => {
      const json = await author(JsonSerializerConfig.withDetails);
      assert.deepEqual(json.books, [
        { id: ids.one, title: "One", authorId: ids.a, price: "10.50", versionId: 0 },
        { id: ids.two, title: "Two", authorId: ids.a, price: "3.00", versionId: 0 },
      ]);
      assert.equal("drafts" in json, false, "@JsonIgnoreSerialize on a LazyList");
      assert.equal("archive" in json, false, "@JsonIgnore on a LazyList");
      assert.equal(typeof json.favorite, "object");
    });

    it("default follows references to any depth and stops at a cycle, writing only the key there", async () => {
      const json = await author(JsonSerializerConfig.default);
      const favorite = json.favorite as JsonObject;
      const favoriteAuthor = favorite.author as JsonObject;
      assert.equal(favoriteAuthor.name, "Bob");
      const bobsFavorite = favoriteAuthor.favorite as JsonObject;
      assert.equal(bobsFavorite.title, "One");
      assert.equal(bobsFavorite.authorId, ids.a);
      assert.equal("author" in bobsFavorite, false, "Ann is already being written further up");
      assert.equal(favoriteAuthor.agent, null, "a null reference is written as null");
      assert.equal((json.agent as JsonObject).name, "Bob", "the same entity may appear twice on different paths");
      assert.equal("books" in json, false);
    });

    it("an array of entities is written with one bulk read per referenced class, with the same result", async () => {
      await using context = new CountingContext(db.database);
      const books = await context.selectAll(Book);
      const before = context.selects;
      const json = await context.toJson(books, JsonSerializerConfig.withRelations);
      assert.equal(context.selects - before, 1);
      assert.deepEqual(
        json.map((book) => (book.author as JsonObject).name),
        ["Ann", "Ann", "Bob"],
      );
      await using single = new JsonContext(db.database);
      const one = await single.toJson(await single.get(Book, ids.three), JsonSerializerConfig.withRelations);
      assert.deepEqual(json[2], one);
      assert.equal(
        await context.toJsonText(books, JsonSerializerConfig.entityOnly),
        JSON.stringify(await context.toJson(books, JsonSerializerConfig.entityOnly)),
      );
    });

    it("every column type round-trips through JSON and the database exactly", async () => {
      await using context = new JsonContext(db.database);
      const input = {
        big: "9223372036854775807",
        ratio: 0.1,
        amount: "12345678901234.5678",
        flag: false,
        at: "2024-02-29T23:59:59.123Z",
        data: Buffer.from([0, 1, 2, 250, 255]).toString("base64"),
        label: "\u{1F600} é",
        count: -2147483648,
      };
      const sample = context.fromJson(Sample, input);
      await context.insert(sample);
      await using reader = new JsonContext(db.database);
      const json = await reader.toJson(await reader.get(Sample, sample.id));
      assert.deepEqual(json, { id: sample.id, ...input, versionId: 0 });
      const empty = context.fromJson(Sample, { big: null, ratio: null, amount: null, flag: null, at: null, data: null });
      await context.insert(empty);
      const emptyJson = await reader.toJson(await reader.get(Sample, empty.id));
      assert.deepEqual(emptyJson, {
        id: empty.id,
        big: null,
        ratio: null,
        amount: null,
        flag: null,
        at: null,
        data: null,
        label: "",
        count: 0,
        versionId: 0,
      });
    });

    it("int64 input accepts a string of digits or a safe integer and is always written as a string", async () => {
      await using context = new JsonContext(db.database);
      assert.equal(context.fromJson(Sample, { big: "-9223372036854775808" }).big, -(2n ** 63n));
      assert.equal(context.fromJson(Sample, { big: 42 }).big, 42n);
      assert.equal((await context.toJson(context.fromJson(Sample, { big: 42 }))).big, "42");
      for (const bad of [2 ** 53, 1.5, "12a", "9223372036854775808", true]) {
        assert.throws(
          () => context.fromJson(Sample, { big: bad }),
          (error: unknown) => error instanceof InvalidInputError && /big/.test(error.message),
          String(bad),
        );
      }
    });

    it("decimal input accepts a string or a number, normalized to the column scale, and refuses lost digits", async () => {
      await using context = new JsonContext(db.database);
      assert.equal(context.fromJson(Sample, { amount: 12.5 }).amount, "12.5000");
      assert.equal(context.fromJson(Sample, { amount: "-0.10" }).amount, "-0.1000");
      assert.equal(context.fromJson(Sample, { amount: "1.23450" }).amount, "1.2345");
      assert.equal(context.fromJson(Sample, { amount: 1e-4 }).amount, "0.0001");
      for (const bad of ["1.23456", "123456789012345", "1e3", "abc", true, [1]]) {
        assert.throws(
          () => context.fromJson(Sample, { amount: bad }),
          (error: unknown) => error instanceof InvalidInputError && /amount/.test(error.message),
          String(bad),
        );
      }
    });

    it("date input must be an ISO-8601 string with a zone (or a plain date) naming a real day", async () => {
      await using context = new JsonContext(db.database);
      assert.equal(context.fromJson(Sample, { at: "2024-05-01T12:00:00+02:00" }).at?.toISOString(), "2024-05-01T10:00:00.000Z");
      assert.equal(context.fromJson(Sample, { at: "2024-05-01" }).at?.toISOString(), "2024-05-01T00:00:00.000Z");
      for (const bad of ["2024-05-01T12:00:00", "2024-02-30T00:00:00Z", "01/05/2024", "2024-05-01T24:00:00Z", 1714557600000, "yesterday"]) {
        assert.throws(
          () => context.fromJson(Sample, { at: bad }),
          (error: unknown) => error instanceof InvalidInputError && /Property at/.test(error.message),
          String(bad),
        );
      }
    });

    it("a value of the wrong JSON type is an InvalidInputError naming the property", async () => {
      await using context = new JsonContext(db.database);
      const cases: [string, unknown][] = [
        ["flag", "true"],
        ["ratio", "0.5"],
        ["count", 1.5],
        ["count", 2 ** 31],
        ["label", 5],
        ["label", null],
        ["data", "not base64!"],
        ["id", "7"],
      ];
      for (const [property, value] of cases) {
        assert.throws(
          () => context.fromJson(Sample, { [property]: value }),
          (error: unknown) => error instanceof InvalidInputError && error.message.startsWith(`Property ${property}`),
          `${property}: ${JSON.stringify(value)}`,
        );
      }
      assert.throws(() => context.fromJson(Sample, [1]), InvalidInputError);
      assert.throws(() => context.fromJsonText(Sample, "{oops"), InvalidInputError);
      assert.equal(context.fromJsonText(Sample, '{"label":"ok"}').label, "ok");
    });

    it("fromJson never reads change-tracking or ignored columns, reads a Lazy from <name>Id only, and ignores unknown properties", async () => {
      await using context = new JsonContext(db.database);
      const author = context.fromJson(Author, {
        name: "Cy",
        secret: "x",
        password: "pw",
        score: 99,
        createdAt: "2020-01-01T00:00:00Z",
        createdBy: "mallory",
        updatedAt: "2020-01-01T00:00:00Z",
        updatedBy: "mallory",
        favoriteId: ids.one,
        favorite: { id: ids.two },
        editorId: ids.a,
        agentId: ids.a,
        unknown: true,
      });
      assert.equal(author.name, "Cy");
      assert.equal(author.secret, "", "@JsonIgnore");
      assert.equal(author.password, "pw", "@JsonIgnoreSerialize is still read");
      assert.equal(author.score, 0, "@JsonIgnoreDeserialize");
      assert.equal(author.createdAt, null);
      assert.equal(author.createdBy, "");
      assert.equal(author.updatedBy, "");
      assert.equal(author.favorite.id, ids.one);
      assert.equal(author.editor.id, null, "@JsonIgnore on a Lazy");
      assert.equal(author.agent.id, null, "@JsonIgnoreDeserialize on a Lazy");
      assert.equal((await author.favorite.get())?.title, "One", "the new entity is attached to the context");
      context.onGetCurrentUser = () => "carol";
      await context.insert(author);
      const row = (await db.rows(`SELECT CreatedBy, Secret, Password FROM Authors WHERE ID = ${author.id}`))[0];
      assert.deepEqual(Object.values(row), ["carol", "", "pw"]);
    });

    it("a detail array replaces the list, except on ignored details, and a wrong item names its index", async () => {
      await using context = new JsonContext(db.database);
      const author = context.fromJson(Author, {
        name: "Dee",
        books: [
          { title: "A", price: "1" },
          { title: "B", authorId: 5 },
        ],
        drafts: [{ title: "Draft" }],
        archive: [{ title: "Never" }],
      });
      assert.deepEqual(
        (await author.books.load()).map((book) => [book.title, book.price, book.author.id]),
        [
          ["A", "1.00", null],
          ["B", "0.00", 5],
        ],
      );
      assert.deepEqual(
        (await author.drafts.load()).map((book) => book.title),
        ["Draft"],
        "@JsonIgnoreSerialize details are read",
      );
      assert.equal(author.archive.isLoaded, false, "@JsonIgnore details are not read");
      assert.throws(
        () => context.fromJson(Author, { books: { title: "x" } }),
        (error: unknown) => error instanceof InvalidInputError && /Property books/.test(error.message),
      );
      assert.throws(
        () => context.fromJson(Author, { books: [{}, "x"] }),
        (error: unknown) => error instanceof InvalidInputError && /books\[1\]/.test(error.message),
      );
      assert.throws(
        () => context.fromJson(Author, { books: [{ price: "1.234" }] }),
        (error: unknown) => error instanceof InvalidInputError && /price/.test(error.message),
      );
    });

    it("metadataToJson publishes JSON names and types, flags only when false, and leaves out what JSON never touches", async () => {
      await using context = new JsonContext(db.database);
      assert.deepEqual(context.metadataToJson(Author), {
        entity: "Author",
        primaryKey: "id",
        versionColumn: "versionId",
        properties: [
          { name: "id", type: "int32" },
          { name: "name", type: "string", size: 80 },
          { name: "password", type: "string", filterable: false, readable: false },
          { name: "score", type: "int32", writable: false },
          { name: "note", type: "string", filterable: false },
          { name: "favoriteId", type: "reference", entity: "Book" },
          { name: "agentId", type: "reference", entity: "Author", writable: false },
          { name: "createdAt", type: "date", writable: false },
          { name: "createdBy", type: "string", writable: false },
          { name: "updatedAt", type: "date", writable: false },
          { name: "updatedBy", type: "string", writable: false },
          { name: "versionId", type: "int32" },
          { name: "books", type: "details", entity: "Book", filterable: false },
          { name: "drafts", type: "details", entity: "Book", filterable: false, readable: false },
        ],
      });
      const sample = context.metadataToJson(Sample) as { properties: JsonObject[] };
      assert.deepEqual(
        sample.properties.find((p) => p.name === "amount"),
        { name: "amount", type: "decimal", precision: 18, scale: 4 },
      );
      // A blob has no order or text a condition compares: the filter refuses it, and the metadata says so.
      assert.deepEqual(
        sample.properties.find((p) => p.name === "data"),
        { name: "data", type: "blob", filterable: false },
      );
      (sample.properties as JsonObject[]).length = 0;
      assert.equal((context.metadataToJson(Sample).properties as JsonObject[]).length, 10, "callers get their own copy");
    });

    it("isSerialized, isDeserialized and isFilterable answer the one rule set the HTTP filter uses", () => {
      const mapping = EntityMapping.of(Author);
      const column = (name: string) => mapping.column(name)!;
      assert.deepEqual(
        ["name", "secret", "password", "score", "note", "createdBy", "favorite"].map((n) => [
          n,
          isSerialized(column(n)),
          isDeserialized(column(n)),
          isFilterable(column(n)),
        ]),
        [
          ["name", true, true, true],
          ["secret", false, false, false],
          ["password", false, true, false],
          ["score", true, false, true],
          ["note", true, true, false],
          ["createdBy", true, false, true],
          ["favorite", true, true, true],
        ],
      );
    });
  });
}
