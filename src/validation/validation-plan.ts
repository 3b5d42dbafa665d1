import { MappingError, type ValidationFailure } from "../errors.js";
import type { ColumnMapping, EntityMapping } from "../mapping/entity-mapping.js";
import { planPerMapping } from "../mapping/entity-mapping.js";
import { Lazy } from "../mapping/lazy.js";
import type { RawMember } from "../mapping/metadata-store.js";
import { wireNameOf } from "../mapping/wire-name.js";
import { compareDecimalText, decimalTextOf } from "../values/decimal-text.js";
import { columnFitChecks } from "./column-fit.js";
import { isValidEmailAddress } from "./email-address.js";
import { textLength } from "./text-length.js";
import { ValidationKey, type NumericLimit, type RuleDeclaration } from "./validation-decorators.js";
import { ValidationMessages } from "./validation-messages.js";
import { generateFunction } from "../generated-code.js";

/** One compiled rule of one column: answers the failure message, or undefined when the value passes. */
type Check = (value: unknown) => string | undefined;

/** The compiled rules of one column. @internal */
export interface ColumnRules {
  readonly column: ColumnMapping;
  /** The wire name its failures report. */
  readonly property: string;
  readonly checks: readonly Check[];
}

/** A custom validator method. */
type ValidatorMethod = (this: object, errors: unknown, context: unknown) => unknown;

/**
 * The validation of one entity class, compiled once when the class is mapped: the rules of each column
 * (in declaration order, each rule in the order written) and the `@Validator` methods. Every misuse of a
 * validation decorator, and every invalid `@Regex`, is a `MappingError` raised here.
 */
export class ValidationPlan {
  /** The columns with rules. */
  readonly columns: readonly ColumnRules[];
  /** The readers of the `@Validator` methods of an instance, in declaration order. */
  readonly validators: readonly ((entity: object) => ValidatorMethod)[];
  /**
   * The failures of the column rules of an entity, in the order `checkColumns` finds them; undefined, with nothing
   * allocated, when every value passes. Compiled for the class where the platform allows code generation.
   */
  readonly failuresOf: (entity: object) => ValidationFailure[] | undefined;

  /** @internal */
  constructor(mapping: EntityMapping, members: ReadonlyMap<string, RawMember>) {
    const entity = mapping.name;
    const byName = new Map<string, ColumnMapping>();
    for (const column of mapping.columns) byName.set(column.property, column);
    const columns: ColumnRules[] = [];
    const names = new Map<ColumnMapping, string>();
    const validators: ((entity: object) => ValidatorMethod)[] = [];
    for (const member of members.values()) {
      const property = member.name.startsWith("#") ? member.name.slice(1) : member.name;
      if (member.annotations.has(ValidationKey.validator)) {
        if (member.kind !== "method" || member.isStatic) throw new MappingError(ValidationMessages.validatorNotMethod(entity, member.name));
        validators.push(member.get as (entity: object) => ValidatorMethod);
      }
      const rules = ((member.annotations.get(ValidationKey.rule) ?? []) as RuleDeclaration[]).slice().reverse();
      const displayNames = (member.annotations.get(ValidationKey.displayName) ?? []) as string[];
      if (rules.length === 0 && displayNames.length === 0) continue;
      const column = member.kind === "field" ? byName.get(property) : undefined;
      if (column === undefined)
        throw new MappingError(ValidationMessages.notOnColumn(entity, member.name, rules[0]?.rule ?? "DisplayName"));
      if (displayNames.length > 1) throw new MappingError(ValidationMessages.duplicate(entity, member.name, "DisplayName"));
      const name = displayNames[0] ?? column.columnName;
      names.set(column, name);
      const seen = new Set<string>();
      const checks = rules.map((declaration) => {
        if (seen.has(declaration.rule)) throw new MappingError(ValidationMessages.duplicate(entity, member.name, declaration.rule));
        seen.add(declaration.rule);
        return compile(declaration, column, name, entity, member.name);
      });
      if (checks.length > 0) columns.push({ column, property: wireNameOf(column), checks });
    }
    // The column's own limits come after its rules, so a rule's message is listed first.
    for (const column of mapping.columns) {
      const fit = columnFitChecks(column, names.get(column) ?? column.columnName);
      if (fit.length === 0) continue;
      const index = columns.findIndex((rules) => rules.column === column);
      if (index < 0) columns.push({ column, property: wireNameOf(column), checks: fit });
      else columns[index] = { column, property: columns[index].property, checks: [...columns[index].checks, ...fit] };
    }
    this.columns = columns;
    this.validators = validators;
    this.failuresOf = compileColumnChecks(columns) ?? ((target) => columnFailures(columns, target));
  }

  /** Checks every column rule of `entity`, adding each failure to `failures`. */
  checkColumns(entity: object, failures: { push(failure: ValidationFailure): void }): void {
    const found = this.failuresOf(entity);
    if (found !== undefined) for (const failure of found) failures.push(failure);
  }
}

/** The failures of the column rules of `entity`, or undefined: the definition the compiled checker follows. @internal */
export function columnFailures(columns: readonly ColumnRules[], entity: object): ValidationFailure[] | undefined {
  let failures: ValidationFailure[] | undefined;
  for (const { column, property, checks } of columns) {
    const value = column.get(entity);
    for (const check of checks) {
      const message = check(value);
      if (message !== undefined) (failures ??= []).push({ property, column: column.columnName, message });
    }
  }
  return failures;
}

/**
 * `columnFailures` as one function built for the class: a statement per rule, each calling its own check, so that
 * V8 keeps every call site monomorphic (the generic loop calls every check from one site). Nothing of the mapping
 * but indexes enters the text. Undefined where the platform refuses code generation.
 * @internal
 */
export function compileColumnChecks(columns: readonly ColumnRules[]): ((entity: object) => ValidationFailure[] | undefined) | undefined {
  const parameters: string[] = [];
  const values: unknown[] = [];
  const statements: string[] = [];
  columns.forEach(({ column, property, checks }, i) => {
    parameters.push(`get${i}`, `property${i}`, `column${i}`);
    values.push(column.get, property, column.columnName);
    statements.push(`value = get${i}(entity);`);
    checks.forEach((check, j) => {
      parameters.push(`check${i}_${j}`);
      values.push(check);
      statements.push(
        `message = check${i}_${j}(value);`,
        `if (message !== undefined) (failures ??= []).push({ property: property${i}, column: column${i}, message });`,
      );
    });
  });
  return generateFunction(
    parameters,
    values,
    `return function failuresOf(entity) {\n  let failures, value, message;\n  ${statements.join("\n  ")}\n  return failures;\n};`,
  );
}

const numericKinds = new Set(["int32", "int64", "float", "decimal"]);

function compile(declaration: RuleDeclaration, column: ColumnMapping, name: string, entity: string, member: string): Check {
  const kind = column.type.kind;
  const custom = declaration.message;
  const fail = (text: string): never => {
    throw new MappingError(text);
  };
  const needs = (wanted: "string" | "numeric"): void => {
    const ok = wanted === "string" ? kind === "string" : numericKinds.has(kind);
    if (!ok) fail(ValidationMessages.wrongKind(entity, member, declaration.rule, kind, wanted));
  };
  const limitOf = (limit: NumericLimit): NumericLimit => {
    if (typeof limit === "bigint" || (typeof limit === "number" && Number.isFinite(limit))) return limit;
    return fail(ValidationMessages.badLimit(entity, member, declaration.rule));
  };
  switch (declaration.rule) {
    case "Required": {
      const message = custom ?? ValidationMessages.required(name);
      return (value) => (isEmpty(value, kind) ? message : undefined);
    }
    case "MaxLength":
    case "MinLength": {
      needs("string");
      const length = declaration.length;
      if (!Number.isInteger(length) || length < 0) fail(ValidationMessages.badLength(entity, member, declaration.rule));
      if (declaration.rule === "MaxLength") {
        const message = custom ?? ValidationMessages.maxLength(name, length);
        return (value) => (typeof value === "string" && value.length > length && textLength(value) > length ? message : undefined);
      }
      const message = custom ?? ValidationMessages.minLength(name, length);
      return (value) => (typeof value === "string" && (value.length < length || textLength(value) < length) ? message : undefined);
    }
    case "MaxValue":
    case "MinValue":
    case "Greater":
    case "Less": {
      needs("numeric");
      const limit = limitOf(declaration.limit);
      const text = decimalTextOf(limit);
      const rule = declaration.rule;
      const message =
        custom ??
        (rule === "MaxValue"
          ? ValidationMessages.maxValue(name, text)
          : rule === "MinValue"
            ? ValidationMessages.minValue(name, text)
            : rule === "Greater"
              ? ValidationMessages.greater(name, text)
              : ValidationMessages.less(name, text));
      const passes =
        rule === "MaxValue"
          ? (c: number) => c <= 0
          : rule === "MinValue"
            ? (c: number) => c >= 0
            : rule === "Greater"
              ? (c: number) => c > 0
              : (c: number) => c < 0;
      const compare = comparer(limit);
      return (value) => (value === null || value === undefined || passes(compare(value)) ? undefined : message);
    }
    case "Range": {
      needs("numeric");
      const min = limitOf(declaration.min);
      const max = limitOf(declaration.max);
      if (compareDecimalText(decimalTextOf(min), decimalTextOf(max)) > 0) fail(ValidationMessages.badRange(entity, member));
      const message = custom ?? ValidationMessages.range(name, decimalTextOf(min), decimalTextOf(max));
      const low = comparer(min);
      const high = comparer(max);
      return (value) => (value === null || value === undefined || (low(value) >= 0 && high(value) <= 0) ? undefined : message);
    }
    case "Regex": {
      needs("string");
      const pattern = declaration.pattern;
      let regex: RegExp;
      try {
        regex = typeof pattern === "string" ? new RegExp(pattern) : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
      } catch (error) {
        return fail(
          ValidationMessages.badRegex(entity, member, typeof pattern === "string" ? pattern : pattern.source, (error as Error).message),
        );
      }
      const message = custom ?? ValidationMessages.regex(name);
      return (value) => (typeof value === "string" && !regex.test(value) ? message : undefined);
    }
    case "Email": {
      needs("string");
      const message = custom ?? ValidationMessages.email(name);
      return (value) => (typeof value === "string" && value !== "" && !isValidEmailAddress(value) ? message : undefined);
    }
  }
}

/** Compares a column value with a limit: negative, 0 or positive; NaN (failing every rule) when not comparable. */
function comparer(limit: NumericLimit): (value: unknown) => number {
  const text = decimalTextOf(limit);
  const asNumber = Number(limit);
  return (value) => {
    if (typeof value === "number")
      return Number.isNaN(value)
        ? Number.NaN
        : typeof limit === "bigint"
          ? compareDecimalText(decimalTextOf(value), text)
          : value - asNumber;
    if (typeof value === "bigint") return compareDecimalText(value.toString(), text);
    if (typeof value === "string") return compareDecimalText(value, text);
    return Number.NaN;
  };
}

/** Whether a text is empty or white space only: at once when it starts with a printable ASCII character, which is none. */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first > 0x20 && first < 0x7f) return false;
  return text.trim() === "";
}

function isEmpty(value: unknown, kind: string): boolean {
  if (value === null || value === undefined) return true;
  switch (typeof value) {
    case "string":
      return kind === "decimal" ? compareDecimalText(value, "0") === 0 || value.trim() === "" : isBlank(value);
    case "number":
      return value === 0 || Number.isNaN(value);
    case "bigint":
      return value === 0n;
    case "boolean":
      return false;
  }
  if (value instanceof Lazy) return value.id === null || value.id === 0;
  if (value instanceof Uint8Array) return value.byteLength === 0;
  if (value instanceof Date) return Number.isNaN(value.getTime());
  return false;
}

// Misused validation decorators and invalid patterns are refused when the class is mapped.
const plans = planPerMapping((mapping, source) => new ValidationPlan(mapping, source.members));

/** The validation plan of a mapping, compiled once. */
export function validationPlanOf(mapping: EntityMapping): ValidationPlan {
  return plans.of(mapping);
}
