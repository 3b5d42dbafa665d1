// The entities module the command tests pass to `tenon schema --entities`.
export { Maker, Tag, Widget } from "./schema-fixtures.js";
/** Not an entity: the command ignores exports without @Table. */
export const notAnEntity = 42;
