/**
 * `tenon/postgres`: the postgres engine.
 * @packageDocumentation
 */
export {};
