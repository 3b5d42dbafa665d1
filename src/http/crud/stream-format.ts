import { jsonPlanOf } from "../../json/json-plan.js";
import type { ColumnMapping, EntityMapping } from "../../mapping/entity-mapping.js";
import { type HttpRequest, mediaTypeOf } from "../exchange/http-request.js";

/** The streamed answers a select (and an aggregate) can give besides its JSON page: NDJSON or CSV. */
export type HttpRecordFormat = "ndjson" | "csv";

/** The media type of an NDJSON answer or import body: one JSON value a line. */
export const ndjsonMediaType = "application/x-ndjson";
/** The media type of a CSV answer. */
export const csvMediaType = "text/csv";

const offered: readonly { readonly type: string; readonly format: HttpRecordFormat | undefined }[] = [
  { type: "application/json", format: undefined },
  { type: ndjsonMediaType, format: "ndjson" },
  { type: csvMediaType, format: "csv" },
];

/**
 * The streamed format a request's `Accept` header prefers over JSON, or undefined for the JSON page. Only a
 * header that names `application/x-ndjson` or `text/csv` asks for a stream; then the media type with the
 * highest `q` among `application/json`, `application/x-ndjson` and `text/csv` wins (a range such as `*\/*` or
 * `text/*` gives its `q` to the types it covers; the most specific range decides), a type named exactly winning
 * a tie with one covered only by a range, and JSON winning any other tie.
 */
export function recordFormatOf(request: HttpRequest): HttpRecordFormat | undefined {
  const accept = request.header("accept")?.toLowerCase();
  if (accept === undefined || (!accept.includes("ndjson") && !accept.includes("csv"))) return undefined;
  const ranges = parseAccept(accept);
  let best: HttpRecordFormat | undefined;
  let bestWant: Want = { q: 0, exact: false };
  for (const candidate of offered) {
    const want = wantOf(candidate.type, ranges);
    // Strictly more: JSON, first in the list, keeps any tie it is in.
    if (want.q > bestWant.q || (want.q === bestWant.q && want.exact && !bestWant.exact)) {
      best = candidate.format;
      bestWant = want;
    }
  }
  return bestWant.q === 0 ? undefined : best;
}

/** Whether a request body's `Content-Type` is NDJSON (`application/x-ndjson`, parameters aside, any case). */
export function isNdjson(contentType: string): boolean {
  return mediaTypeOf(contentType) === ndjsonMediaType;
}

interface AcceptRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseAccept(accept: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  for (const part of accept.split(",")) {
    const [range = "", ...parameters] = part.split(";");
    const [type = "", subtype = ""] = range.trim().toLowerCase().split("/");
    if (type === "" || subtype === "") continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name = "", value = ""] = parameter.split("=");
      if (name.trim().toLowerCase() !== "q") continue;
      const parsed = Number(value.trim());
      q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** How much a request wants a media type: `q`, and whether a range names it exactly. */
interface Want {
  readonly q: number;
  readonly exact: boolean;
}

/** The `q` of the most specific range that covers `mediaType` (0 when none does), and whether that range names it. */
function wantOf(mediaType: string, ranges: readonly AcceptRange[]): Want {
  const [type, subtype] = mediaType.split("/");
  let specificity = -1;
  let q = 0;
  for (const range of ranges) {
    const level =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === "*"
          ? 1
          : range.type === "*" && range.subtype === "*"
            ? 0
            : -1;
    if (level > specificity) {
      specificity = level;
      q = range.q;
    }
  }
  return { q, exact: specificity === 2 };
}

/**
 * The columns of an entity's CSV answer: the members its `entityOnly` JSON writes (scalars, and `<name>Id` for a
 * reference), in order, but those `hidden` from the caller by its policy.
 */
export function csvColumnsOf(mapping: EntityMapping, hidden: readonly ColumnMapping[] = []): string[] {
  const columns: string[] = [];
  for (const write of jsonPlanOf(mapping).without(hidden).writes) {
    if (write.kind === "scalar") columns.push(write.name);
    else if (write.kind === "reference") columns.push(write.idName);
  }
  return columns;
}
