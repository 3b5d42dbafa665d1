// The contract check of the demo's end-to-end suites: every exchange a suite made (recorded by
// http-test-client's `recordExchanges`) is compared with the OpenAPI document the demo serves, as a
// validating proxy would: the answer's status must be listed for its path and method, its media type must be
// one the document gives for that status, the API headers it carries must be documented there, and its body
// must validate against the schema (ajv, draft 2020-12); a request that succeeded must have been sent with a
// documented media type and a body that validates against the request schema.
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Answer, Exchange } from "../http/http-test-client.js";

/** The parts of an OpenAPI 3.1 document the check reads. */
interface Document {
  readonly paths: Record<string, Record<string, Operation | undefined>>;
  readonly components: { readonly responses?: Record<string, ResponseObject> };
}
interface MediaObject {
  readonly schema?: unknown;
}
interface ResponseObject {
  readonly $ref?: string;
  readonly content?: Record<string, MediaObject>;
  readonly headers?: Record<string, { readonly required?: boolean }>;
}
interface Operation {
  readonly responses: Record<string, ResponseObject>;
  readonly requestBody?: { readonly content: Record<string, MediaObject> };
}

/**
 * Headers every answer may carry whatever the route, which the document does not repeat per answer: HTTP's
 * own framing, `Server`, the request id, CORS and caching.
 */
const generalHeaders: ReadonlySet<string> = new Set([
  "date",
  "connection",
  "keep-alive",
  "content-length",
  "content-type",
  "content-encoding",
  "transfer-encoding",
  "server",
  "x-request-id",
  "vary",
  "cache-control",
  "access-control-allow-origin",
  "access-control-expose-headers",
]);

const documentId = "https://tenon.invalid/openapi.json";
const pointerSegment = (segment: string): string => segment.replace(/~/g, "~0").replace(/\//g, "~1");
const baseMediaType = (contentType: string): string => contentType.split(";")[0].trim().toLowerCase();
const isJson = (mediaType: string): boolean => mediaType === "application/json" || mediaType.endsWith("+json");

/** The document's answer and request descriptions, compiled once, and the check of one exchange against them. */
export class OpenApiContract {
  readonly #document: Document;
  readonly #ajv = new Ajv2020({ strict: false, validateFormats: false });
  readonly #templates: { readonly path: string; readonly segments: readonly string[]; readonly literals: number }[];

  constructor(document: unknown) {
    this.#document = document as Document;
    this.#ajv.addSchema({ ...(document as object), $id: documentId });
    this.#templates = Object.keys(this.#document.paths)
      .map((path) => {
        const segments = path.split("/").filter((segment) => segment !== "");
        return { path, segments, literals: segments.filter((segment) => !segment.startsWith("{")).length };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  /** Asserts that every exchange conforms, listing all that do not. */
  assertConform(exchanges: readonly Exchange[]): void {
    const problems = exchanges.flatMap((exchange) =>
      this.problemsOf(exchange).map(
        (problem) => `${exchange.method} ${exchange.path} -> ${exchange.answer.status} ${exchange.answer.text.slice(0, 200)}: ${problem}`,
      ),
    );
    assert.deepEqual(problems, [], `${problems.length} of ${exchanges.length} answers do not conform to the document`);
  }

  /** The document path whose operation `method` answers the request target `target`, if any. */
  operationPathOf(target: string, method: string): string | undefined {
    return this.#pathsOf(target).find((candidate) => this.#document.paths[candidate][method.toLowerCase()] !== undefined);
  }

  /** What does not conform in one exchange (an empty list when it all does). */
  problemsOf(exchange: Exchange): string[] {
    const method = exchange.method.toLowerCase();
    const answer = exchange.answer;
    const candidates = this.#pathsOf(exchange.path);
    const path = this.operationPathOf(exchange.path, method);
    if (path === undefined) {
      // No operation: a path the document does not have is 404, a method its path does not have 405, unless
      // authentication refused the anonymous caller first; each as the catalogue's shared answer.
      const expected = candidates.length === 0 ? [401, 404, 429] : [401, 405, 429];
      if (!expected.includes(answer.status)) return [`no operation ${method} for the path, and the status is not one of ${expected}`];
      // To HEAD, the bodiless variant of the answer where the document has one.
      const head = method === "head" && this.#document.components.responses?.[`Error${answer.status}Head`] !== undefined;
      const name = head ? `Error${answer.status}Head` : `Error${answer.status}`;
      return this.#answerProblems(answer, { $ref: `#/components/responses/${name}` }, "", method === "head");
    }
    const operation = this.#document.paths[path][method] as Operation;
    const response = operation.responses[String(answer.status)];
    if (response === undefined) return [`status ${answer.status} is not documented for ${method} ${path}`];
    const pointer = `/paths/${pointerSegment(path)}/${method}/responses/${answer.status}`;
    const problems = this.#answerProblems(answer, response, pointer, method === "head");
    if (answer.status >= 200 && answer.status < 300) problems.push(...this.#requestProblems(exchange, operation, path, method));
    return problems;
  }

  /** The document paths a request target matches, the most literal segments first. */
  #pathsOf(target: string): string[] {
    const segments = target
      .split("?")[0]
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => {
        try {
          return decodeURIComponent(segment);
        } catch {
          return segment;
        }
      });
    return this.#templates
      .filter(
        (template) =>
          template.segments.length === segments.length &&
          template.segments.every((part, i) => part.startsWith("{") || part.toLowerCase() === segments[i].toLowerCase()),
      )
      .map((template) => template.path);
  }

  #answerProblems(answer: Answer, described: ResponseObject, pointer: string, head: boolean): string[] {
    let response = described;
    if (described.$ref !== undefined) {
      response = this.#document.components.responses?.[described.$ref.split("/").at(-1) ?? ""] as ResponseObject;
      if (response === undefined) return [`${described.$ref} is not in the document`];
      pointer = described.$ref.slice(1);
    }
    const problems: string[] = [];
    const documented = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
    for (const name of Object.keys(answer.headers)) {
      if (!generalHeaders.has(name) && !documented.has(name)) problems.push(`header ${name} is not documented for this answer`);
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required === true && answer.headers[name.toLowerCase()] === undefined) problems.push(`required header ${name} is missing`);
    }
    // A HEAD answer has the headers of its GET and never a body.
    if (head) {
      if (answer.text !== "") problems.push("a HEAD answer has a body");
      if (response.content !== undefined) problems.push("a HEAD answer is described with content");
      return problems;
    }
    if (response.content === undefined) {
      if (answer.text !== "") problems.push("the document gives no body for this answer, and it has one");
      return problems;
    }
    const mediaType = baseMediaType(String(answer.headers["content-type"] ?? ""));
    const key = Object.keys(response.content).find(
      (name) => name === mediaType || name === "*/*" || (name.endsWith("/*") && mediaType.startsWith(name.slice(0, -1))),
    );
    if (key === undefined) {
      problems.push(`media type ${mediaType || "(none)"} is not one of ${Object.keys(response.content).join(", ")}`);
      return problems;
    }
    const validate = this.#ajv.getSchema(`${documentId}#${pointer}/content/${pointerSegment(key)}/schema`);
    if (validate === undefined) return [...problems, `no schema at ${pointer} ${key}`];
    const value = isJson(mediaType) ? parsed(answer.text) : answer.text;
    if (value === invalid) problems.push(`the ${mediaType} body is not JSON`);
    else if (!validate(value)) problems.push(`the body does not fit the schema: ${JSON.stringify(validate.errors)}`);
    return problems;
  }

  /** A request that succeeded: its media type must be documented and its body fit the schema. */
  #requestProblems(exchange: Exchange, operation: Operation, path: string, method: string): string[] {
    const body = exchange.body === undefined ? "" : exchange.body.toString();
    if (body === "") return [];
    if (operation.requestBody === undefined) return [`${method} ${path} takes no body, and one was accepted`];
    const sent = Object.entries(exchange.headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
    const mediaType = baseMediaType(String(sent ?? "application/json"));
    if (operation.requestBody.content[mediaType] === undefined)
      return [`request media type ${mediaType} is not one of ${Object.keys(operation.requestBody.content).join(", ")}`];
    const pointer = `/paths/${pointerSegment(path)}/${method}/requestBody/content/${pointerSegment(mediaType)}/schema`;
    const validate = this.#ajv.getSchema(`${documentId}#${pointer}`);
    if (validate === undefined) return [`no request schema at ${pointer}`];
    const value = isJson(mediaType) ? parsed(body) : body;
    if (value === invalid || validate(value)) return [];
    return [`the accepted request body does not fit the request schema: ${JSON.stringify(validate.errors)}`];
  }
}

const invalid = Symbol("invalid JSON");

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return invalid;
  }
}
