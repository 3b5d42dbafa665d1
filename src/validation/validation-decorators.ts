import "../mapping/symbol-metadata.js";
import { annotateMember } from "../mapping/metadata-store.js";

/** The annotation keys of the validation decorators (see metadata-store.ts). @internal */
export const ValidationKey = {
  rule: Symbol("tenon.ValidationRule"),
  displayName: Symbol("tenon.DisplayName"),
  validator: Symbol("tenon.Validator"),
} as const;

/** A numeric limit of a rule: an integer or a double; a bigint for int64 limits beyond 2^53. */
export type NumericLimit = number | bigint;

/** One validation rule as declared on a field. @internal */
export type RuleDeclaration =
  | { readonly rule: "Required"; readonly message: string | undefined }
  | { readonly rule: "MaxLength" | "MinLength"; readonly length: number; readonly message: string | undefined }
  | { readonly rule: "MaxValue" | "MinValue" | "Greater" | "Less"; readonly limit: NumericLimit; readonly message: string | undefined }
  | { readonly rule: "Range"; readonly min: NumericLimit; readonly max: NumericLimit; readonly message: string | undefined }
  | { readonly rule: "Regex"; readonly pattern: string | RegExp; readonly message: string | undefined }
  | { readonly rule: "Email"; readonly message: string | undefined };

/** A validation decorator of a mapped field whose values are of type `V`. */
export type ValidationDecorator<V> = <This>(value: undefined, context: ClassFieldDecoratorContext<This, V>) => void;

function rule<V>(declaration: RuleDeclaration): ValidationDecorator<V> {
  return (_value, context) => annotateMember(context, ValidationKey.rule, declaration);
}

/**
 * The field must have a value: not null, not an empty or whitespace-only string, not 0
 * (numbers, int64, decimals), not an empty blob, and a `Lazy<T>` must have a key (not null, not 0).
 * A boolean `false` is a value.
 */
export function Required(message?: string): ValidationDecorator<unknown> {
  return rule({ rule: "Required", message });
}

/** The text has at most `length` characters (grapheme clusters, not bytes or UTF-16 units). Null passes. */
export function MaxLength(length: number, message?: string): ValidationDecorator<string | null> {
  return rule({ rule: "MaxLength", length, message });
}

/** The text has at least `length` characters (grapheme clusters). Null passes; an empty string is checked. */
export function MinLength(length: number, message?: string): ValidationDecorator<string | null> {
  return rule({ rule: "MinLength", length, message });
}

/** A numeric value (int32, int64, float or decimal column) at most `limit`. Null passes. */
export function MaxValue(limit: NumericLimit, message?: string): ValidationDecorator<unknown> {
  return rule({ rule: "MaxValue", limit, message });
}

/** A numeric value at least `limit`. Null passes. */
export function MinValue(limit: NumericLimit, message?: string): ValidationDecorator<unknown> {
  return rule({ rule: "MinValue", limit, message });
}

/** A numeric value strictly greater than `limit`. Null passes. */
export function Greater(limit: NumericLimit, message?: string): ValidationDecorator<unknown> {
  return rule({ rule: "Greater", limit, message });
}

/** A numeric value strictly less than `limit`. Null passes. */
export function Less(limit: NumericLimit, message?: string): ValidationDecorator<unknown> {
  return rule({ rule: "Less", limit, message });
}

/** A numeric value between `min` and `max`, both included. Null passes. */
export function Range(min: NumericLimit, max: NumericLimit, message?: string): ValidationDecorator<unknown> {
  return rule({ rule: "Range", min, max, message });
}

/**
 * The text matches the regular expression, anchored exactly as written: `[0-9]+` finds digits anywhere,
 * `^[0-9]+$` demands only digits. A string pattern is compiled without flags; pass a `RegExp` for flags
 * (`g` and `y` are dropped). An invalid pattern is a `MappingError` when the class is mapped. Null passes;
 * an empty string is checked.
 */
export function Regex(pattern: string | RegExp, message?: string): ValidationDecorator<string | null> {
  return rule({ rule: "Regex", pattern, message });
}

/**
 * The text is a valid e-mail address by the WHATWG HTML grammar (see email-address.ts). Null and the empty
 * string pass (add `@Required` to demand an address).
 */
export function Email(message?: string): ValidationDecorator<string | null> {
  return rule({ rule: "Email", message });
}

/** The human-readable name of the field used by the default messages. It takes no message. */
export function DisplayName(name: string): ValidationDecorator<unknown> {
  return (_value, context) => annotateMember(context, ValidationKey.displayName, name);
}

/**
 * Marks an instance method of the entity as a custom validator. It is called after the
 * field rules on every insert and update, as `method(errors, context)`, and may be async; it reports
 * failures with `errors.add(property, message)`.
 */
export function Validator<This>(_method: (this: This, ...args: never[]) => unknown, context: ClassMethodDecoratorContext<This>): void {
  annotateMember(context as ClassMethodDecoratorContext, ValidationKey.validator, true);
}
