// An entities module with a decimal no engine can store.
export { TooPrecise } from "./schema-fixtures.js";
