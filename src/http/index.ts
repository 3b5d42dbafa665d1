/**
 * `tenon/http`: the HTTP server, controllers and routing, authentication, CORS, logging, and the generic
 * entity reader and writer.
 * @packageDocumentation
 */
export {};
