/**
 * The statement that shows a connection reaches its database: valid and free of side effects on every
 * engine Tenon supports. Readiness checks run it.
 */
export const probeStatement = "SELECT 1";
