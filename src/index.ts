/**
 * `tenon`: entity mapping, the ORM session, JSON, validation and events.
 * @packageDocumentation
 */
export * from "./errors.js";
