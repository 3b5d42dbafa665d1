import type { TextFault } from "../values/text.js";

/** Every text of the JSON layer's errors, in one place. */
export const JsonMessages = {
  notAnObject: (entity: string) => `The JSON of ${entity} must be an object.`,
  wrongType: (property: string, expected: string, got: string) => `Property ${property}: expected ${expected}, got ${got}.`,
  notNullable: (property: string) => `Property ${property} cannot be null.`,
  outOfRange: (property: string, expected: string) => `Property ${property}: the value is out of range for ${expected}.`,
  decimalTooPrecise: (property: string, precision: number, scale: number) =>
    `Property ${property}: the value does not fit a decimal of ${precision} digits with ${scale} after the point.`,
  invalidDate: (property: string) =>
    `Property ${property}: expected an ISO-8601 date and time with a time zone (e.g. 2024-05-01T12:00:00Z).`,
  invalidBase64: (property: string) => `Property ${property}: expected base64 text.`,
  unstorableText: (property: string, fault: TextFault) =>
    fault === "nul"
      ? `Property ${property}: the text contains a NUL character (U+0000), which cannot be stored.`
      : `Property ${property}: the text contains a lone UTF-16 surrogate, which is not a character and cannot be stored.`,
  tooManyDetails: (property: string, count: number, max: number) =>
    `Property ${property} carries ${count} items; at most ${max} are accepted in one body.`,
  detailItem: (property: string, index: number, entity: string) => `Property ${property}[${index}]: expected an object of ${entity}.`,
  invalidText: (detail: string) => `The body is not valid JSON: ${detail}`,
  nameClash: (entity: string, member: string, other: string, name: string) =>
    `${entity}: the fields ${other} and ${member} are both written to JSON as "${name}"; give one of them another @JsonName.`,
  jsonNameTwice: (entity: string, member: string) => `${entity}: @JsonName is applied more than once to ${member}.`,
  jsonNameEmpty: (entity: string, member: string) => `${entity}: @JsonName on ${member} needs a non-empty name.`,
  reservedName: (entity: string, member: string) =>
    `${entity}: the field ${member} would be written to JSON as "__proto__", which JavaScript objects cannot hold as a plain key.`,
  notMapped: (entity: string, member: string) =>
    `${entity}: ${member} carries a JSON decorator but is neither a column nor a detail collection.`,
} as const;

/** How a JSON value is described in messages. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
