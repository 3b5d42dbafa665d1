/**
 * `tenon/mariadb`: the mariadb engine.
 * @packageDocumentation
 */
export {};
