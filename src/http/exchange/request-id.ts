import { randomFillSync } from "node:crypto";
import { latin1Reader } from "../../values/latin1-text.js";
import { isHeaderName } from "./header-name.js";

/**
 * The longest `X-Request-Id` taken from a caller; a longer one is replaced. Bounded so that a caller cannot
 * make every log record of its requests large.
 */
export const maxRequestIdLength = 128;

/**
 * The characters a caller's `X-Request-Id` may use: letters, digits and `- _ . : + / =` (UUIDs, hex and
 * base64 ids, the ids that proxies and load balancers generate). Nothing that a log line or a header could
 * misread: no space, no quote, no control character.
 */
const requestIdPattern = /^[A-Za-z0-9\-_.:+/=]+$/;

/** True when `value` is a request id this server passes on as sent: 1 to 128 characters of the allowed alphabet. */
export function isWellFormedRequestId(value: string): boolean {
  return value.length > 0 && value.length <= maxRequestIdLength && requestIdPattern.test(value);
}

/**
 * The id of a request: its first `X-Request-Id` header when well-formed, else a fresh random UUID. Reads the
 * raw header list once, comparing lengths before names, so a request without the header costs a scan of
 * lengths and one UUID.
 * @internal
 */
export function requestIdOf(rawHeaders: readonly string[]): string {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (isHeaderName(name, "x-request-id")) {
      const value = rawHeaders[i + 1];
      return isWellFormedRequestId(value) ? value : randomRequestId();
    }
  }
  return randomRequestId();
}

/** The ids written at a time: their random bytes drawn in one call, their text read as one string. */
const idsPerBatch = 64;
/** Random bytes from the platform's cryptographic generator, 16 per id, drawn a batch at a time. */
const pool = new Uint8Array(16 * idsPerBatch);
/**
 * The two hex digits of each byte value as one 16-bit unit, laid out in memory as the two ASCII codes (written
 * through a byte view, so the order is right whatever the platform's byte order).
 */
const hexPairs = new Uint16Array(256);
const hexCodes = new Uint8Array(hexPairs.buffer);
for (let i = 0; i < 256; i++) {
  const hex = i.toString(16).padStart(2, "0");
  hexCodes[2 * i] = hex.charCodeAt(0);
  hexCodes[2 * i + 1] = hex.charCodeAt(1);
}
const batchBytes = Buffer.alloc(36 * idsPerBatch, "-");
/** `batchBytes` in 16-bit units (its own memory, not a slice of Node's pool, so aligned). */
const batchPairs = new Uint16Array(batchBytes.buffer, batchBytes.byteOffset, (36 * idsPerBatch) / 2);
/** `batchBytes` as a plain byte array: a store into a `Buffer` (a subclass) costs more than one into its array. */
const batchCodes = new Uint8Array(batchBytes.buffer, batchBytes.byteOffset, 36 * idsPerBatch);
const batchTextOf = latin1Reader(batchBytes, 36 * idsPerBatch);
/** The text of the current batch's ids, 36 characters each, and the next one to hand out. */
let batch = "";
let next = idsPerBatch;

/**
 * A random (version 4) UUID in its lower-case text form, as `crypto.randomUUID()` writes it, from the same
 * cryptographic generator. Written as bytes 64 at a time and read as one string (latin1-text.ts), each id is
 * then a slice of it: `randomUUID()` joins twenty pieces, which the response's header then has to copy into
 * one, and reading 36 bytes into a string costs the call into Node every time; a slice costs a tenth of that.
 * @internal
 */
export function randomRequestId(): string {
  if (next === idsPerBatch) {
    writeBatch();
    next = 0;
  }
  const at = 36 * next++;
  return batch.slice(at, at + 36);
}

/**
 * Draws the random bytes of a batch and writes its ids' text, each `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`: the digit
 * pairs at an even offset (bytes 0-3, 6-7, 10-15) as one 16-bit store each, those at an odd one (bytes 4, 5, 8, 9,
 * after the first and third dash) as two byte stores. Written out store by store with the arrays in locals: the
 * same work as a loop over tables of offsets took five times as long (each store then loaded two offsets).
 */
function writeBatch(): void {
  randomFillSync(pool);
  const bytes = pool;
  const pairs = batchPairs;
  const codes = batchCodes;
  const hex = hexPairs;
  const digits = hexCodes;
  for (let id = 0; id < idsPerBatch; id++) {
    const from = 16 * id;
    bytes[from + 6] = (bytes[from + 6] & 0x0f) | 0x40; // version 4
    bytes[from + 8] = (bytes[from + 8] & 0x3f) | 0x80; // variant 10
    const pair = 18 * id;
    pairs[pair] = hex[bytes[from]];
    pairs[pair + 1] = hex[bytes[from + 1]];
    pairs[pair + 2] = hex[bytes[from + 2]];
    pairs[pair + 3] = hex[bytes[from + 3]];
    pairs[pair + 7] = hex[bytes[from + 6]];
    pairs[pair + 8] = hex[bytes[from + 7]];
    pairs[pair + 12] = hex[bytes[from + 10]];
    pairs[pair + 13] = hex[bytes[from + 11]];
    pairs[pair + 14] = hex[bytes[from + 12]];
    pairs[pair + 15] = hex[bytes[from + 13]];
    pairs[pair + 16] = hex[bytes[from + 14]];
    pairs[pair + 17] = hex[bytes[from + 15]];
    const at = 36 * id;
    let code = 2 * bytes[from + 4];
    codes[at + 9] = digits[code];
    codes[at + 10] = digits[code + 1];
    code = 2 * bytes[from + 5];
    codes[at + 11] = digits[code];
    codes[at + 12] = digits[code + 1];
    code = 2 * bytes[from + 8];
    codes[at + 19] = digits[code];
    codes[at + 20] = digits[code + 1];
    code = 2 * bytes[from + 9];
    codes[at + 21] = digits[code];
    codes[at + 22] = digits[code + 1];
  }
  batch = batchTextOf();
}
