// TEMPORARY: the HTTP engineer exports HttpServerError from src/http/errors.ts; until it lands the
// logging part uses this stand-in. Switch this file to a re-export when the real one exists.
import { TenonError } from "../../errors.js";

/** A refused server configuration change (SPEC.md ETHttpServerException). */
export class HttpServerError extends TenonError {}
