/**
 * Node.js 20 has no `Symbol.metadata`; TC39 standard decorators need it for `context.metadata`. This module
 * defines it once, before any decorated class is evaluated (every decorator module imports it first).
 */
const symbolWithMetadata = Symbol as { metadata?: symbol };
symbolWithMetadata.metadata ??= Symbol.for("Symbol.metadata");

export {};
