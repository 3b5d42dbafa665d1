// Generators of hostile filter bodies and entity bodies for the hostile-data suite. A body is built as JSON
// text from ordered entries, so that keys such as `__proto__` reach the server as written, and deep nesting
// can be far deeper than JSON.stringify of a generated object would allow.
import fc from "fast-check";

/** A JSON value as text. */
export type JsonText = string;

/** The JSON text of an object with these entries, in this order, duplicate keys included. */
export function objectText(entries: readonly (readonly [string, JsonText])[]): JsonText {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;
}

/** Arrays or objects nested `depth` deep around `inner`. */
function nested(depth: number, inner: JsonText, objects: boolean): JsonText {
  return objects ? `${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}` : `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
}

const text = (value: unknown): JsonText => JSON.stringify(value);

/** Numbers no column holds, and the edges of those it does. */
const hugeNumbers = fc.constantFrom(
  "1e308",
  "-1e308",
  "1e400",
  "9007199254740993",
  "2147483648",
  "-2147483649",
  "2147483647",
  "99999999999999999999999999999999999999",
  "1e-400",
  "-0",
  "0.1",
  "123456789012345678.99",
  "9999999999999999.99",
);

/** Texts no column stores as sent, or that no column holds. */
const hostileTexts = fc.constantFrom(
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udc00",
  "\udbff\u0000",
  "x".repeat(101),
  "é".repeat(101),
  "e\u0301".repeat(60),
  "\u{1F600}".repeat(101),
  `${"a".repeat(250)}@example.com`,
  "' OR 1=1 --",
  "%",
  "\\",
  "",
  " ",
  "2024-13-45T99:99:99Z",
  "1e3",
  "NaN",
  "Infinity",
  "-",
  ".",
);

/** Any hostile JSON value, as text. */
export const hostileValue: fc.Arbitrary<JsonText> = fc.oneof(
  { arbitrary: fc.constantFrom("null", "true", "false", "[]", "{}", '""', "0", "-1"), weight: 3 },
  { arbitrary: hugeNumbers, weight: 3 },
  { arbitrary: hostileTexts.map(text), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }).map(text), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 20 }).map(text), weight: 2 },
  { arbitrary: fc.double().map((n) => (Number.isFinite(n) ? text(n) : "null")), weight: 1 },
  { arbitrary: fc.integer().map(text), weight: 1 },
  {
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.boolean()).map(([depth, objects]) => nested(depth, "1", objects)),
    weight: 1,
  },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map(text), weight: 2 },
  { arbitrary: fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '["__proto__"]'), weight: 1 },
);

/** Keys that must never do more than an unknown key does. */
export const hostileKeys = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "includeDeleted", "nope"];

/** The change-tracking properties of the demo (written, never read). */
export const changeTracking = ["createdAt", "createdBy", "updatedAt", "updatedBy", "deletedAt", "deletedBy"];

/** A plausible value for a change-tracking property: what a client that tries to forge it would send. */
export const forgedTracking: fc.Arbitrary<JsonText> = fc.constantFrom(
  '"2001-01-01T00:00:00Z"',
  '"mallory"',
  '"admin"',
  "null",
  '"1970-01-01"',
  '""',
);

/** One change to a valid entity body. */
export type Mutation =
  | { readonly kind: "set"; readonly key: string; readonly value: JsonText }
  | { readonly kind: "wrongType"; readonly key: string; readonly value: JsonText }
  | { readonly kind: "delete"; readonly key: string }
  | { readonly kind: "track"; readonly key: string; readonly value: JsonText }
  | { readonly kind: "otherId"; readonly key: string; readonly value: JsonText };

/** What the JSON type of each property of an entity must be, for the mutations that must be refused. */
export type PropertyTypes = Readonly<Record<string, "text" | "nullableText" | "decimal" | "int" | "lines">>;

/** Values of a JSON type that a property of `type` never accepts. */
function wrongTypeFor(type: PropertyTypes[string]): fc.Arbitrary<JsonText> {
  const structures = fc.constantFrom("[]", "{}", '{"a":1}', "[1]", "true", "false");
  switch (type) {
    case "text":
    case "nullableText":
      return fc.oneof(structures, fc.constantFrom("0", "12.5", "1e308"));
    case "decimal":
      return fc.oneof(structures, fc.constantFrom('"12,50"', '"1e3"', '"abc"', '""', "1e400"));
    case "int":
      return fc.oneof(structures, fc.constantFrom('"1"', "1.5", "2147483648", "-2147483649", "1e308", '"x"'));
    case "lines":
      return fc.constantFrom('"x"', "1", "{}", "true", "[1]", '[{"quantity":"x"}]', '[{"price":"1e3","quantity":1,"product":"p"}]');
  }
}

/** One mutation of an entity whose properties are `types`, with `otherIds` the ids of other rows. */
export function mutation(types: PropertyTypes, otherIds: readonly number[]): fc.Arbitrary<Mutation> {
  const keys = Object.keys(types);
  const arbitraries: fc.Arbitrary<Mutation>[] = [
    fc
      .tuple(fc.constantFrom(...keys, ...hostileKeys, ...keys.map((k) => k.toUpperCase())), hostileValue)
      .map(([key, value]) => ({ kind: "set", key, value })),
    fc.constantFrom(...keys).chain((key) => wrongTypeFor(types[key]).map((value): Mutation => ({ kind: "wrongType", key, value }))),
    fc.constantFrom(...keys, "id", "versionId").map((key): Mutation => ({ kind: "delete", key })),
    fc.tuple(fc.constantFrom(...changeTracking), forgedTracking).map(([key, value]): Mutation => ({ kind: "track", key, value })),
  ];
  if (otherIds.length > 0) {
    arbitraries.push(fc.constantFrom(...otherIds).map((id): Mutation => ({ kind: "otherId", key: "id", value: String(id) })));
  }
  return fc.oneof(...arbitraries);
}

/** Applies mutations to the entries of a valid body (a key set twice keeps its last value; JSON.parse does too). */
export function applyMutations(entries: readonly (readonly [string, JsonText])[], mutations: readonly Mutation[]): [string, JsonText][] {
  const result = entries.map(([key, value]): [string, JsonText] => [key, value]);
  for (const change of mutations) {
    const index = result.findIndex(([key]) => key === change.key);
    if (change.kind === "delete") {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) result[index] = [change.key, change.value];
    else result.push([change.key, change.value]);
  }
  return result;
}

/** Values a filter may well accept: short text and patterns, small numbers, dates, null. */
const plausibleValue: fc.Arbitrary<JsonText> = fc.oneof(
  fc.constantFrom('"A%"', '"%a%"', '"_"', '"Acme Corp"', '"2024-01-01T00:00:00Z"', '"12.50"', "null", "true"),
  fc.integer({ min: -10, max: 2000 }).map(text),
  fc.string({ maxLength: 8 }).map(text),
);

/** A filter value: mostly plausible, sometimes hostile. */
const filterValue: fc.Arbitrary<JsonText> = fc.oneof({ arbitrary: plausibleValue, weight: 3 }, { arbitrary: hostileValue, weight: 1 });

/** Maybe one hostile key, seldom: any unknown key makes the whole body a 400. */
const rareHostileKeys = fc.oneof(
  { arbitrary: fc.constant([] as string[]), weight: 9 },
  { arbitrary: fc.subarray(hostileKeys, { minLength: 1, maxLength: 1 }), weight: 1 },
);

/** Column names a filter body may name, plus names it may not. */
function filterColumn(columns: readonly string[]): fc.Arbitrary<JsonText> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...columns).map(text), weight: 12 },
    {
      arbitrary: fc
        .constantFrom(...hostileKeys, "Password", "notes", "lines", "", "name; DROP TABLE Companies", "ID) OR (1=1", "\u0000")
        .map(text),
      weight: 2,
    },
    { arbitrary: hostileValue, weight: 1 },
  );
}

const operators = fc.constantFrom("=", "<>", "<", "<=", ">", ">=", "LIKE", "NOT LIKE", "IN", "IS NULL", "IS NOT NULL", "like", " in ");

/** A hostile condition (or or-group) of a filter body, `depth` the or-nesting still allowed. */
function condition(columns: readonly string[], depth: number): fc.Arbitrary<JsonText> {
  const leaf = fc
    .tuple(
      filterColumn(columns),
      fc.oneof({ arbitrary: operators.map(text), weight: 15 }, { arbitrary: hostileValue, weight: 1 }),
      fc.option(
        fc.oneof(
          filterValue,
          fc.array(filterValue, { maxLength: 120 }).map((values) => `[${values.join(",")}]`),
        ),
        {
          nil: undefined,
          freq: 8,
        },
      ),
      rareHostileKeys,
    )
    .map(([column, operator, value, extra]) => {
      const entries: [string, JsonText][] = [
        ["columnName", column],
        ["condition", operator],
      ];
      if (value !== undefined) entries.push(["value", value]);
      for (const key of extra) entries.push([key, "1"]);
      return objectText(entries);
    });
  if (depth <= 0) return leaf;
  return fc.oneof(
    { arbitrary: leaf, weight: 4 },
    {
      arbitrary: fc.array(condition(columns, depth - 1), { maxLength: 4 }).map((items) => objectText([["or", `[${items.join(",")}]`]])),
      weight: 1,
    },
  );
}

/** A hostile filter body for an entity with the filterable `columns`, as JSON text. */
export function filterBody(columns: readonly string[]): fc.Arbitrary<JsonText> {
  const where = fc.oneof(
    { arbitrary: fc.array(condition(columns, 6), { maxLength: 3 }).map((items) => `[${items.join(",")}]`), weight: 12 },
    { arbitrary: hostileValue, weight: 1 },
  );
  const orderBy = fc.oneof(
    {
      arbitrary: fc
        .array(
          fc
            .tuple(
              filterColumn(columns),
              fc.oneof(
                { arbitrary: fc.constantFrom("ASC", "DESC", "", "asc", "sideways").map(text), weight: 8 },
                { arbitrary: hostileValue, weight: 1 },
              ),
            )
            .map(([column, direction]) =>
              objectText([
                ["columnName", column],
                ["direction", direction],
              ]),
            ),
          { maxLength: 3 },
        )
        .map((items) => `[${items.join(",")}]`),
      weight: 12,
    },
    { arbitrary: hostileValue, weight: 1 },
  );
  const number = fc.oneof(
    { arbitrary: fc.integer({ min: -5, max: 2000 }).map(text), weight: 8 },
    { arbitrary: hugeNumbers, weight: 1 },
    { arbitrary: hostileValue, weight: 1 },
  );
  return fc
    .tuple(
      fc.option(where, { nil: undefined }),
      fc.option(orderBy, { nil: undefined }),
      fc.option(number, { nil: undefined }),
      fc.option(number, { nil: undefined }),
      rareHostileKeys.chain((keys) =>
        fc.tuple(...keys.map(() => hostileValue)).map((values) => keys.map((k, i) => [k, values[i]] as const)),
      ),
    )
    .map(([w, o, start, limit, extra]) => {
      const entries: [string, JsonText][] = [];
      if (w !== undefined) entries.push(["where", w]);
      if (o !== undefined) entries.push(["orderBy", o]);
      if (start !== undefined) entries.push(["start", start]);
      if (limit !== undefined) entries.push(["limit", limit]);
      for (const [key, value] of extra) entries.push([key, value]);
      return objectText(entries);
    });
}
