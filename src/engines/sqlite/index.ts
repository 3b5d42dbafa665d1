/**
 * `tenon/sqlite`: the sqlite engine.
 * @packageDocumentation
 */
export {};
