// The hostile requests: a named corpus of known attacks and mistakes, and a fast-check generator of
// malformed requests built from the same ingredients.
import fc from "fast-check";
import type { Step } from "./raw-exchange.js";

/** Bearer tokens the requests may carry. */
export interface Tokens {
  readonly guest: string;
  readonly admin: string;
}

/** One corpus case. */
export interface HostileCase {
  readonly name: string;
  readonly steps: readonly Step[];
  /** Half-close after the steps (default true). */
  readonly halfClose?: boolean;
  /** The statuses allowed for the first answer (default: anything below 500, or no answer and a close). */
  readonly expect?: readonly number[];
  /** The server must close the connection within the bound (default true). */
  readonly mustClose?: boolean;
  /** The time the server has after the last step (default 5000 ms). */
  readonly boundMs?: number;
  /** Wait only for this many complete answers (for cases whose connection may stay open). */
  readonly answers?: number;
}

const crlf = "\r\n";
const get = (target: string, headers: readonly string[] = ["Host: x"]): string =>
  `GET ${target} HTTP/1.1${crlf}${headers.map((h) => h + crlf).join("")}${crlf}`;
const post = (target: string, body: string | Buffer, headers: readonly string[] = []): Buffer =>
  Buffer.concat([
    Buffer.from(
      `POST ${target} HTTP/1.1${crlf}Host: x${crlf}Content-Type: application/json${crlf}Content-Length: ${Buffer.byteLength(body)}${crlf}${headers.map((h) => h + crlf).join("")}${crlf}`,
    ),
    Buffer.isBuffer(body) ? body : Buffer.from(body),
  ]);
const pauseEach = (text: string, ms: number): Step[] => [...text].flatMap((char) => [char, { pause: ms }]);

/** The corpus; `slowMs` is the server's headers and body timeout, to bound the trickles. */
export function hostileCorpus(tokens: Tokens, slowMs: number): HostileCase[] {
  const slow = { boundMs: slowMs + 5000 };
  const admin = `Authorization: Bearer ${tokens.admin}`;
  const guest = `Authorization: Bearer ${tokens.guest}`;
  return [
    // Bad request lines.
    { name: "garbage instead of a request line", steps: ["GARBAGE\r\n\r\n"], expect: [400] },
    { name: "a request line without a target", steps: ["GET\r\n\r\n"], expect: [400] },
    { name: "an HTTP/0.9 request line", steps: ["GET /api/health\r\n\r\n"], expect: [200, 400] },
    {
      name: "HTTP/2.0 on an HTTP/1.1 connection",
      steps: [`GET /api/health HTTP/2.0${crlf}Host: x${crlf}${crlf}`],
      expect: [200, 400, 505],
    },
    { name: "a lower-case method", steps: [`get /api/health HTTP/1.1${crlf}Host: x${crlf}${crlf}`], expect: [400] },
    { name: "a method of 10,000 letters", steps: [`${"A".repeat(10000)} /api/health HTTP/1.1${crlf}Host: x${crlf}${crlf}`] },
    { name: "a target of 20 KiB", steps: [get(`/api/${"a".repeat(20000)}`)], expect: [431, 400, 401, 414] },
    { name: "a NUL byte in the target", steps: ["GET /api/hea\0lth HTTP/1.1\r\nHost: x\r\n\r\n"], expect: [400] },
    { name: "a space inside the target", steps: ["GET /api/he alth HTTP/1.1\r\nHost: x\r\n\r\n"], expect: [400] },
    { name: "bare LF line ends", steps: ["GET /api/health HTTP/1.1\nHost: x\n\n"], expect: [200, 400] },
    { name: "an absolute-form target naming another host", steps: [get("http://evil.example/api/health")], expect: [200] },
    { name: "an asterisk target on GET", steps: [get("*")], expect: [400, 401, 404] },
    { name: "HTTP/1.1 without Host", steps: [`GET /api/health HTTP/1.1${crlf}${crlf}`], expect: [400] },
    { name: "two Host headers", steps: [get("/api/health", ["Host: a", "Host: b"])], expect: [200, 400] },
    // Header floods, oversized and duplicate headers.
    { name: "one header of 100 KiB", steps: [get("/api/health", ["Host: x", `X-Big: ${"b".repeat(100000)}`])], expect: [431] },
    {
      name: "5,000 small headers",
      steps: [get("/api/health", ["Host: x", ...Array.from({ length: 5000 }, (_, i) => `X-H${i}: v`)])],
      expect: [431],
    },
    {
      name: "900 tiny headers under the size and count limits",
      steps: [get("/api/health", ["Host: x", ...Array.from({ length: 900 }, () => "a:b")])],
      expect: [200],
    },
    // Node.js 20 reads them all; the parser of Node.js 22, 24 and 26 refuses a head of 1,000 header lines or more.
    {
      name: "1,900 tiny headers under the size limit",
      steps: [get("/api/health", ["Host: x", ...Array.from({ length: 1900 }, () => "a:b")])],
      expect: [200, 431],
    },
    { name: "a header line without a colon", steps: [get("/api/health", ["Host: x", "NoColonHere"])], expect: [400] },
    { name: "an obsolete folded header line", steps: [get("/api/health", ["Host: x", "X-A: one", " folded"])], expect: [200, 400] },
    { name: "a CR alone inside a header value", steps: [get("/api/health", ["Host: x", "X-A: a\rb"])], expect: [400] },
    { name: "two different Content-Lengths", steps: [post("/api/logon", "{}", ["Content-Length: 5"])], expect: [400] },
    {
      name: "Content-Length and Transfer-Encoding together",
      steps: [post("/api/logon", "0\r\n\r\n", ["Transfer-Encoding: chunked"])],
      expect: [400],
    },
    {
      name: "an unknown Transfer-Encoding",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Transfer-Encoding: gzip, xchunked${crlf}${crlf}abc`],
      expect: [400, 501],
    },
    {
      name: "two Authorization headers, the first one broken",
      steps: [get("/api/companies", ["Host: x", "Authorization: Bearer broken", guest])],
      expect: [401],
    },
    // Invalid UTF-8 and percent-encoding.
    {
      name: "invalid UTF-8 bytes in the target",
      steps: [
        Buffer.concat([Buffer.from("GET /api/companies/\xff\xfe"), Buffer.from(` HTTP/1.1${crlf}Host: x${crlf}${guest}${crlf}${crlf}`)]),
      ],
      expect: [400, 404],
    },
    {
      name: "invalid UTF-8 in a header value",
      steps: [
        Buffer.concat([
          Buffer.from(`GET /api/health HTTP/1.1${crlf}Host: x${crlf}X-A: `),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from(`${crlf}${crlf}`),
        ]),
      ],
      expect: [200, 400],
    },
    {
      name: "invalid UTF-8 in a JSON body",
      steps: [post("/api/logon", Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))],
      expect: [400, 401],
    },
    { name: "a lone percent sign", steps: [get("/api/companies/%", ["Host: x", guest])], expect: [400, 404] },
    { name: "a bad percent escape", steps: [get("/api/companies/%zz", ["Host: x", guest])], expect: [400, 404] },
    { name: "an overlong UTF-8 slash", steps: [get("/api/companies/%c0%af", ["Host: x", guest])], expect: [400, 404] },
    { name: "a percent-encoded invalid UTF-8 byte", steps: [get("/api/companies/%ff", ["Host: x", guest])], expect: [400, 404] },
    { name: "a percent-encoded NUL", steps: [get("/api/companies/%00", ["Host: x", guest])], expect: [400, 404] },
    // Path traversal and %2F tricks.
    { name: "dot segments to /etc/passwd", steps: [get("/api/../../../etc/passwd", ["Host: x", guest])], expect: [404] },
    { name: "encoded dot segments", steps: [get("/api/%2e%2e/%2e%2e/etc/passwd", ["Host: x", guest])], expect: [404] },
    { name: "%2F joining two segments into one", steps: [get("/api/companies%2F1", ["Host: x", guest])], expect: [404] },
    { name: "%2F inside an id", steps: [get("/api/companies/1%2F2", ["Host: x", guest])], expect: [400] },
    { name: "a backslash traversal", steps: [get("/api/..\\..\\windows\\win.ini", ["Host: x", guest])], expect: [400, 404] },
    { name: "doubled slashes", steps: [get("//api//companies//1", ["Host: x", guest])], expect: [200, 404] },
    { name: "an id beyond 32 bits", steps: [get("/api/companies/99999999999", ["Host: x", guest])], expect: [400] },
    // Lying Content-Length, endless chunked bodies.
    {
      name: "a Content-Length larger than the body, then a half-close",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: 100${crlf}${crlf}{"a":1}`],
    },
    {
      name: "a Content-Length larger than the body, then silence",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: 100${crlf}${crlf}{"a":1}`],
      halfClose: false,
      expect: [408],
      ...slow,
    },
    {
      name: "a Content-Length smaller than the body",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: 2${crlf}${crlf}{}GARBAGE AFTER THE BODY`],
      expect: [400, 401],
    },
    {
      name: "a negative Content-Length",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: -1${crlf}${crlf}`],
      expect: [400],
    },
    {
      name: "a Content-Length that is not a number",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: abc${crlf}${crlf}`],
      expect: [400],
    },
    {
      name: "a Content-Length of 20 digits",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: 99999999999999999999${crlf}${crlf}`],
      expect: [400, 413],
    },
    {
      name: "a Content-Length above the ceiling",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: 2000000${crlf}${crlf}`],
      expect: [413],
    },
    {
      name: "an endless chunked body",
      steps: [
        `POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Transfer-Encoding: chunked${crlf}${crlf}`,
        ...Array.from({ length: 1200 }, () => `400${crlf}${"x".repeat(1024)}${crlf}`),
      ],
      halfClose: false,
    },
    {
      name: "a chunk size that overflows",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Transfer-Encoding: chunked${crlf}${crlf}fffffffffffffffffff${crlf}x${crlf}`],
      expect: [400],
    },
    {
      name: "a chunk size that is not hexadecimal",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Transfer-Encoding: chunked${crlf}${crlf}zz${crlf}x${crlf}0${crlf}${crlf}`],
      expect: [400],
    },
    {
      name: "a chunk-extension flood",
      steps: [
        `POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Transfer-Encoding: chunked${crlf}${crlf}1;${"e".repeat(30000)}${crlf}x${crlf}0${crlf}${crlf}`,
      ],
      expect: [413],
    },
    // Slow trickles.
    {
      name: "headers trickled a byte every 200 ms",
      steps: pauseEach(`GET /api/health HTTP/1.1${crlf}Host: x${crlf}X-Slow: ${"s".repeat(100)}${crlf}${crlf}`, 200),
      halfClose: false,
      expect: [408],
      ...slow,
    },
    { name: "half a request line, then silence", steps: ["GET /api/hea"], halfClose: false, expect: [408], ...slow },
    { name: "a connection that never sends a byte", steps: [], halfClose: false, ...slow },
    {
      name: "a body trickled a byte a second",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Content-Length: 1000${crlf}${crlf}`, ...pauseEach("{".repeat(30), 1000)],
      halfClose: false,
      expect: [408],
      ...slow,
    },
    // Method-override games (the demo refuses overrides).
    {
      name: "a POST overridden to DELETE",
      steps: [post("/api/companies/1/1", "{}", ["X-HTTP-Method-Override: DELETE", admin])],
      expect: [400],
    },
    { name: "a POST overridden to CONNECT", steps: [post("/api/companies", "{}", ["X-HTTP-Method: CONNECT", admin])], expect: [400] },
    { name: "a GET carrying an override header", steps: [get("/api/health", ["Host: x", "X-Method-Override: DELETE"])], expect: [200] },
    {
      name: "three different override headers",
      steps: [
        post("/api/companies/select", "{}", ["X-HTTP-Method-Override: PUT", "X-HTTP-Method: DELETE", "X-Method-Override: GET", guest]),
      ],
      expect: [400],
    },
    // Methods and expectations.
    // CONNECT without credentials: 401 first, as for every method no route answers; with them, 405.
    { name: "CONNECT", steps: [`CONNECT evil.example:443 HTTP/1.1${crlf}Host: evil.example:443${crlf}${crlf}`], expect: [401] },
    {
      name: "CONNECT from a known caller",
      steps: [`CONNECT evil.example:443 HTTP/1.1${crlf}Host: evil.example:443${crlf}${admin}${crlf}${crlf}`],
      expect: [405],
    },
    { name: "TRACE", steps: [get("/api/health").replace("GET", "TRACE")], expect: [401, 405] },
    { name: "an unknown method", steps: [get("/api/health").replace("GET", "BREW")], expect: [400, 401, 405] },
    { name: "an unsupported expectation", steps: [post("/api/logon", "{}", ["Expect: 102-maybe"])], expect: [417] },
    {
      name: "100-continue above the ceiling",
      steps: [`POST /api/logon HTTP/1.1${crlf}Host: x${crlf}Expect: 100-continue${crlf}Content-Length: 5000000${crlf}${crlf}`],
      expect: [413],
    },
    // Many requests at once.
    {
      name: "200 pipelined requests in one write",
      steps: [Array.from({ length: 200 }, () => get("/api/health")).join("")],
      halfClose: false,
      expect: [200],
      mustClose: false,
      answers: 200,
    },
  ];
}

const knownPaths = [
  "/api/health",
  "/api/live",
  "/api/ready",
  "/api/logon",
  "/api/companies",
  "/api/companies/1",
  "/api/companies/select",
  "/api/companies/metadata",
  "/api/employees/3",
  "/api/orders/1",
  "/api/orders/select",
  "/api/employee-directory/select",
  "/api/admin/whoami",
  "/api/nowhere",
  "/",
];

const pathMutation = fc.constantFrom(
  "",
  "",
  "",
  "/",
  "/..",
  "/../..",
  "/%2e%2e",
  "%2F1",
  "/1%2F2",
  "/%",
  "/%zz",
  "/%c0%af",
  "/%ff%fe",
  "/%00",
  "/\xff",
  "//",
  "/99999999999",
  "/-1",
  "/0x10",
  "?x=%",
  "?a=1&a=2&__proto__=x",
  `/${"z".repeat(3000)}`,
);

/** Mostly `usual`, sometimes `odd`: most requests get past the parser and reach routing, authentication and handlers. */
function mostly<T>(usual: readonly T[], odd: readonly T[], oddWeight = 1): fc.Arbitrary<T> {
  return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...usual) }, { weight: oddWeight, arbitrary: fc.constantFrom(...odd) });
}

const methods = mostly(
  ["GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE"],
  ["CONNECT", "get", "BREW", "G\0T", ""],
);
const versions = mostly(["HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0"], ["HTTP/2.0", "HTTP/1.1x", "http/1.1", ""]);
const bodies = fc.oneof(
  fc.constant(""),
  fc.constant("{}"),
  fc.constant('{"username":"guest","password":"guest"}'),
  fc.constant('{"where":[{"columnName":"name","condition":"LIKE","value":"A%"}],"limit":5}'),
  fc.constant('{"where":[{"or":[{"or":[{"or":[{"or":[{"or":[{"columnName":"id","condition":"=","value":1}]}]}]}]}]}]}'),
  fc.constant(`${"[".repeat(5000)}${"]".repeat(5000)}`),
  fc.constant('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
  fc.constant('{"name":"\\ud800","email":"a@b.c"}'),
  fc.constant('{"id":2147483648,"creditLimit":1e400,"name":"x"}'),
  fc.constant("\xff\xfe\xfd"),
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
);

const headerLine = (tokens: Tokens): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(`Authorization: Bearer ${tokens.guest}`, `Authorization: Bearer ${tokens.admin}`) },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        `Authorization: Bearer ${tokens.admin.slice(0, -3)}abc`,
        "Authorization: Basic !!!not-base64!!!",
        "Authorization: Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.",
        "Content-Type: application/json",
        "Content-Type: text/plain; charset=latin1",
        "X-Forwarded-For: 203.0.113.9, 10.0.0.1",
        "X-Forwarded-For: [::1]:80, garbage",
        "X-HTTP-Method-Override: DELETE",
        "X-Method-Override: PUT",
        "Expect: 100-continue",
        "Expect: nothing",
        "Connection: close",
        "Connection: upgrade",
        "Upgrade: websocket",
        "Origin: https://evil.example",
        "Host: other.example",
        "If-Match: *",
        `X-Long: ${"l".repeat(8000)}`,
      ),
    },
    // Lines the parser refuses: a second, different length, a length that is no number, a second framing.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "Transfer-Encoding: chunked",
        "Transfer-Encoding: identity",
        "Content-Length: 0",
        "Content-Length: 5",
        "Content-Length: -3",
        "Content-Length: 1e3",
        "NoColon",
        " folded",
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{0,20}$/), fc.string({ maxLength: 40, unit: "binary" }))
        .map(([name, value]) => `${name}: ${value}`),
    },
  );

/** A generated request: the bytes and a description. */
export interface GeneratedRequest {
  readonly bytes: Buffer;
  readonly method: string;
}

/** The generator of malformed (and some well-formed) requests. */
export function hostileRequests(tokens: Tokens): fc.Arbitrary<GeneratedRequest> {
  return fc
    .record({
      method: methods,
      path: fc.constantFrom(...knownPaths),
      mutation: pathMutation,
      version: versions,
      host: mostly([true], [false]),
      headers: fc.array(headerLine(tokens), { maxLength: 5 }),
      body: bodies,
      length: mostly(["exact", "exact", "exact", "none", "chunked"], ["more", "less", "chunked-broken"], 3),
      lineEnd: mostly(["\r\n"], ["\n"]),
    })
    .map(({ method, path, mutation, version, host, headers, body, length, lineEnd }) => {
      const lines = [`${method} ${path}${mutation} ${version}`.trimEnd()];
      if (host) lines.push("Host: x");
      lines.push(...headers);
      const bodyBytes = Buffer.from(body, "latin1").length === Buffer.byteLength(body) ? Buffer.from(body) : Buffer.from(body, "utf8");
      let payload: Buffer = bodyBytes;
      if (length === "exact") lines.push(`Content-Length: ${bodyBytes.length}`);
      else if (length === "more") lines.push(`Content-Length: ${bodyBytes.length + 17}`);
      else if (length === "less") lines.push(`Content-Length: ${Math.max(0, bodyBytes.length - 3)}`);
      else if (length === "chunked" || length === "chunked-broken") {
        lines.push("Transfer-Encoding: chunked");
        const size = length === "chunked" ? bodyBytes.length.toString(16) : "g1";
        payload = Buffer.concat([Buffer.from(`${size}\r\n`), bodyBytes, Buffer.from(length === "chunked" ? "\r\n0\r\n\r\n" : "\r\n")]);
      }
      const head = Buffer.from(lines.join(lineEnd) + lineEnd + lineEnd, "latin1");
      return { bytes: Buffer.concat([head, payload]), method };
    });
}
