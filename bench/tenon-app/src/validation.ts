// The validation decorators. TEMPORARY: `tenon` does not export them yet (issue 3 in progress), so they
// come from the built file; once `tenon` exports them this file re-exports them from "tenon".
export { Email, MaxLength, Range, Regex, Required } from "../../../dist/src/validation/validation-decorators.js";
