import { generateFunction } from "../../generated-code.js";
import { formatIsoTime } from "../../values/iso-date.js";

/**
 * How the log records are read and written, worked out once per record class from the fields it declares, in
 * the order it declares them (a class field is defined, undefined, before its constructor's body runs, so the
 * keys of a new record are its fields in declaration order). Every rule goes by the field's name or value:
 *
 * - `time` (ms since the epoch) is written as ISO-8601 text;
 * - an id (`requestId`, and `taskId` where the class says so) is '' when there is none, and then left out;
 * - `<name>Omitted` is written only when true, and then `<name>` is undefined and left out;
 * - a list of `[name, value]` pairs is written as `{name, value}` objects;
 * - `slow` is written as its `durationMs`, `statements` and (when above 0) `statementsOmitted`;
 * - any other undefined value is left out, and every other value is written as it is.
 *
 * `assign` copies a record's fields from the object its constructor takes, `json` answers `toJson()`, and
 * `line` the JSON-lines text `JSON.stringify({ log, ...record.toJson() })`. Where the platform allows code
 * generation the three are functions built for the class (straight-line stores, one object, one
 * concatenation), which V8 keeps monomorphic; elsewhere the generic functions below, which they follow (tested).
 * @internal
 */
export interface RecordCodec {
  /** The record's fields, in declaration order. */
  readonly keys: readonly string[];
  assign(record: object, fields: object): void;
  json(record: object): Record<string, unknown>;
  line(record: object, log: string): string;
}

/** What one field is, by its name (see `RecordCodec`). */
type FieldKind = "time" | "id" | "flag" | "omittable" | "slow" | "plain";

/** One field of a record class and how it is written. @internal */
export interface RecordField {
  readonly key: string;
  readonly kind: FieldKind;
  /** For `omittable`, the flag that omits it; for `flag`, the field it omits. */
  readonly partner: string;
}

/** The fields of a record class with their kinds; `ids` are the fields left out when ''. @internal */
export function recordFields(keys: readonly string[], ids: readonly string[]): RecordField[] {
  const flags = new Set(keys.filter((key) => key.endsWith("Omitted") && keys.includes(key.slice(0, -"Omitted".length))));
  return keys.map((key): RecordField => {
    if (key === "time") return { key, kind: "time", partner: "" };
    if (ids.includes(key)) return { key, kind: "id", partner: "" };
    if (flags.has(key)) return { key, kind: "flag", partner: key.slice(0, -"Omitted".length) };
    if (flags.has(`${key}Omitted`)) return { key, kind: "omittable", partner: `${key}Omitted` };
    if (key === "slow") return { key, kind: "slow", partner: "" };
    return { key, kind: "plain", partner: "" };
  });
}

let lastTime = Number.NaN;
let lastIso = "";

/**
 * `new Date(time).toISOString()`, remembered for the last millisecond asked: a busy log formats the same
 * millisecond many times. @internal
 */
export function isoTime(time: number): string {
  if (time !== lastTime) {
    lastIso = formatIsoTime(time);
    lastTime = time;
  }
  return lastIso;
}

/** A `[name, value]` list as `toJson()` writes it; any other value as it is. */
function jsonValue(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((pair: readonly [string, string]) => ({ name: pair[0], value: pair[1] }));
}

/**
 * `JSON.stringify` of a string. A string with nothing to escape (no quote, backslash, control character or
 * surrogate: every header and address a well-behaved client sends) is written between quotes as it is; the
 * scan stops at the first character that needs JSON's general path.
 */
function quote(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(value);
  }
  return '"' + value + '"';
}

/** The JSON text of a field's value: strings through `quote`, integers as their digits, lists as `{name, value}` objects. */
function text(value: unknown): string {
  if (typeof value === "string") return quote(value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return "" + value;
  if (!Array.isArray(value)) return JSON.stringify(value);
  let list = "[";
  for (let i = 0; i < value.length; i++) {
    const pair = value[i] as readonly [string, string];
    list += (i === 0 ? '{"name":' : ',{"name":') + quote(pair[0]) + ',"value":' + quote(pair[1]) + "}";
  }
  return list + "]";
}

type Slow = { readonly durationMs: number; readonly statements: readonly unknown[]; readonly statementsOmitted: number } | undefined;

/** The generic `assign`: the definition the compiled one follows. @internal */
export function assignFields(record: object, fields: object, plan: readonly RecordField[]): void {
  const target = record as Record<string, unknown>;
  const source = fields as Record<string, unknown>;
  for (const { key, kind, partner } of plan) {
    const value = source[key];
    if (kind === "id") target[key] = value ?? "";
    else if (kind === "omittable") target[key] = source[partner] === true ? undefined : value;
    else target[key] = value;
  }
}

/** The generic `json`: the definition the compiled one follows. @internal */
export function fieldsJson(record: object, plan: readonly RecordField[]): Record<string, unknown> {
  const source = record as Record<string, unknown>;
  const json: Record<string, unknown> = {};
  for (const { key, kind } of plan) {
    const value = source[key];
    if (kind === "time") json[key] = isoTime(value as number);
    else if (kind === "id") {
      if (value !== "") json[key] = value;
    } else if (kind === "flag") {
      if (value === true) json[key] = true;
    } else if (kind === "slow") {
      const slow = value as Slow;
      if (slow === undefined) continue;
      json.durationMs = slow.durationMs;
      json.statements = slow.statements;
      if (slow.statementsOmitted > 0) json.statementsOmitted = slow.statementsOmitted;
    } else if (value !== undefined) json[key] = jsonValue(value);
  }
  return json;
}

/** The generic `line`: the definition the compiled one follows. @internal */
export function fieldsLine(record: object, log: string, plan: readonly RecordField[]): string {
  const source = record as Record<string, unknown>;
  let line = '{"log":' + quote(log);
  for (const { key, kind } of plan) {
    const value = source[key];
    if (kind === "time") line += ',"time":"' + isoTime(value as number) + '"';
    else if (kind === "id") {
      if (value !== "") line += "," + JSON.stringify(key) + ":" + text(value);
    } else if (kind === "flag") {
      if (value === true) line += "," + JSON.stringify(key) + ":true";
    } else if (kind === "slow") {
      const slow = value as Slow;
      if (slow === undefined) continue;
      line += ',"durationMs":' + JSON.stringify(slow.durationMs) + ',"statements":' + JSON.stringify(slow.statements);
      if (slow.statementsOmitted > 0) line += ',"statementsOmitted":' + text(slow.statementsOmitted);
    } else if (value !== undefined) line += "," + JSON.stringify(key) + ":" + text(value);
  }
  return line + "}\n";
}

/** `(record, fields) => { record.a = fields.a; ... }` for the plan, or undefined where code generation is refused. @internal */
export function compileAssign(plan: readonly RecordField[]): RecordCodec["assign"] | undefined {
  const lines = plan.map(({ key, kind, partner }) => {
    const target = `r[${JSON.stringify(key)}]`;
    const value = `f[${JSON.stringify(key)}]`;
    if (kind === "id") return `${target} = ${value} ?? "";`;
    if (kind === "omittable") return `${target} = f[${JSON.stringify(partner)}] === true ? undefined : ${value};`;
    return `${target} = ${value};`;
  });
  return generateFunction([], [], `return (r, f) => {\n${lines.join("\n")}\n};`);
}

/** The `json` of the plan as one function: `j.a = ...; if (...) j.b = ...;`, or undefined where refused. @internal */
export function compileJson(plan: readonly RecordField[]): RecordCodec["json"] | undefined {
  const lines = plan.map(({ key, kind }) => {
    const name = JSON.stringify(key);
    const value = `r[${name}]`;
    switch (kind) {
      case "time":
        return `j[${name}] = isoTime(${value});`;
      case "id":
        return `if (${value} !== "") j[${name}] = ${value};`;
      case "flag":
        return `if (${value} === true) j[${name}] = true;`;
      case "slow":
        return `{ const s = ${value}; if (s !== undefined) { j.durationMs = s.durationMs; j.statements = s.statements; if (s.statementsOmitted > 0) j.statementsOmitted = s.statementsOmitted; } }`;
      default:
        // The test for a list is inline: a call per field would be one more call that V8 might not inline.
        return `{ const v = ${value}; if (v !== undefined) j[${name}] = Array.isArray(v) ? jsonValue(v) : v; }`;
    }
  });
  return generateFunction(
    ["isoTime", "jsonValue"],
    [isoTime, jsonValue],
    `return (r) => {\nconst j = {};\n${lines.join("\n")}\nreturn j;\n};`,
  );
}

/** The `line` of the plan as one concatenation, or undefined where refused. @internal */
export function compileLine(plan: readonly RecordField[]): RecordCodec["line"] | undefined {
  // Strings and integers, nearly every value, are written inline (`quote`, or the digits); the rest through `text`.
  const valueText = (value: string): string =>
    `(typeof ${value} === "string" ? quote(${value}) : typeof ${value} === "number" && Number.isSafeInteger(${value}) ? "" + ${value} : text(${value}))`;
  const parts = plan.map(({ key, kind }) => {
    const name = JSON.stringify(key);
    const value = `r[${name}]`;
    const prefix = JSON.stringify(`,${name}:`);
    switch (kind) {
      case "time":
        return `',"time":"' + isoTime(${value}) + '"'`;
      case "id":
        return `(${value} === "" ? "" : ${prefix} + ${valueText(value)})`;
      case "flag":
        return `(${value} === true ? ${JSON.stringify(`,${name}:true`)} : "")`;
      case "slow":
        return `slowText(${value})`;
      default:
        return `(${value} === undefined ? "" : ${prefix} + ${valueText(value)})`;
    }
  });
  return generateFunction(
    ["isoTime", "text", "quote", "slowText"],
    [isoTime, text, quote, slowText],
    `return (r, log) => '{"log":' + quote(log) + ${parts.join(" + ")} + "}\\n";`,
  );
}

/** A slow request's fields in a line, '' for none. */
function slowText(slow: Slow): string {
  if (slow === undefined) return "";
  return (
    ',"durationMs":' +
    JSON.stringify(slow.durationMs) +
    ',"statements":' +
    JSON.stringify(slow.statements) +
    (slow.statementsOmitted > 0 ? ',"statementsOmitted":' + text(slow.statementsOmitted) : "")
  );
}

/**
 * The codec of one record class, worked out from its first instance (see `RecordCodec`); `ids` are its fields
 * that are left out when ''. `compiled: false` gives the generic functions (for tests). @internal
 */
export class LazyRecordCodec {
  readonly #ids: readonly string[];
  readonly #compiled: boolean;
  #codec: RecordCodec | undefined;

  constructor(ids: readonly string[] = ["requestId"], compiled = true) {
    this.#ids = ids;
    this.#compiled = compiled;
  }

  /** The codec, built from `record`'s keys the first time (call it before the record's fields are set). */
  of(record: object): RecordCodec {
    return (this.#codec ??= this.#build(Object.keys(record)));
  }

  #build(keys: readonly string[]): RecordCodec {
    const plan = recordFields(keys, this.#ids);
    return {
      keys,
      assign: (this.#compiled ? compileAssign(plan) : undefined) ?? ((record, fields) => assignFields(record, fields, plan)),
      json: (this.#compiled ? compileJson(plan) : undefined) ?? ((record) => fieldsJson(record, plan)),
      line: (this.#compiled ? compileLine(plan) : undefined) ?? ((record, log) => fieldsLine(record, log, plan)),
    };
  }
}
