import type { TextFault } from "../values/text.js";

/**
 * Every text of the validation layer, in one place: the default messages of the rules (each names the
 * `@DisplayName` of the field, else its column name) and the mapping errors of misplaced decorators.
 */
export const ValidationMessages = {
  required: (name: string) => `${name} is required.`,
  maxLength: (name: string, length: number) => `${name} must be at most ${length} characters long.`,
  minLength: (name: string, length: number) => `${name} must be at least ${length} characters long.`,
  maxValue: (name: string, limit: string) => `${name} must be at most ${limit}.`,
  minValue: (name: string, limit: string) => `${name} must be at least ${limit}.`,
  greater: (name: string, limit: string) => `${name} must be greater than ${limit}.`,
  less: (name: string, limit: string) => `${name} must be less than ${limit}.`,
  range: (name: string, min: string, max: string) => `${name} must be between ${min} and ${max}.`,
  regex: (name: string) => `${name} does not have the required format.`,
  email: (name: string) => `${name} is not a valid e-mail address.`,
  columnSize: (name: string, size: number) => `${name} does not fit its column: at most ${size} characters (Unicode code points).`,
  decimalDoesNotFit: (name: string, precision: number, scale: number) =>
    `${name} does not fit its column: a decimal of ${precision} digits with ${scale} after the point.`,
  integerDoesNotFit: (name: string, min: bigint | number, max: bigint | number) =>
    `${name} does not fit its column: an integer from ${min} to ${max}.`,
  floatDoesNotFit: (name: string) => `${name} does not fit its column: a finite number.`,
  unstorableText: (name: string, fault: TextFault) =>
    fault === "nul"
      ? `${name} contains a NUL character (U+0000), which cannot be stored.`
      : `${name} contains a lone UTF-16 surrogate, which is not a character and cannot be stored.`,

  notOnColumn: (entity: string, member: string, rule: string) =>
    `${entity}: @${rule} on ${member}: validation decorators apply to mapped column fields only.`,
  wrongKind: (entity: string, member: string, rule: string, kind: string, wanted: string) =>
    `${entity}: @${rule} on ${member} needs a ${wanted} column, not ${kind}.`,
  duplicate: (entity: string, member: string, rule: string) => `${entity}: @${rule} is applied more than once to ${member}.`,
  badLength: (entity: string, member: string, rule: string) =>
    `${entity}: @${rule} on ${member} needs a length that is a non-negative integer.`,
  badLimit: (entity: string, member: string, rule: string) =>
    `${entity}: @${rule} on ${member} needs finite numeric limits (a number or a bigint).`,
  badRange: (entity: string, member: string) => `${entity}: @Range on ${member} has a minimum above its maximum.`,
  badRegex: (entity: string, member: string, pattern: string, reason: string) =>
    `${entity}: @Regex on ${member} has an invalid pattern /${pattern}/: ${reason}`,
  validatorNotMethod: (entity: string, member: string) => `${entity}: @Validator on ${member}: it applies to instance methods only.`,
  unknownProperty: (entity: string, property: string) =>
    `${entity}: a validator added an error for ${property}, which is not a mapped member.`,
} as const;
