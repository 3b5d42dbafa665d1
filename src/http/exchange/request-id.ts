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
/**
 * Where the digit pairs of the 16 bytes go in `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`: those at an even offset
 * (bytes 0-3, 6-7, 10-15) as one 16-bit store each, in 16-bit units; those at an odd one (bytes 4, 5, 8, 9,
 * after the first and third dash) as two byte stores, in bytes.
 */
const evenBytes = [0, 1, 2, 3, 6, 7, 10, 11, 12, 13, 14, 15];
const evenPairAt = [0, 1, 2, 3, 7, 8, 12, 13, 14, 15, 16, 17];
const oddBytes = [4, 5, 8, 9];
const oddDigitAt = [9, 11, 19, 21];
const batchBytes = Buffer.alloc(36 * idsPerBatch, "-");
/** `batchBytes` in 16-bit units (its own memory, not a slice of Node's pool, so aligned). */
const batchPairs = new Uint16Array(batchBytes.buffer, batchBytes.byteOffset, (36 * idsPerBatch) / 2);
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

/** Draws the random bytes of a batch and writes its ids' text. */
function writeBatch(): void {
  randomFillSync(pool);
  for (let id = 0; id < idsPerBatch; id++) {
    const from = 16 * id;
    pool[from + 6] = (pool[from + 6] & 0x0f) | 0x40; // version 4
    pool[from + 8] = (pool[from + 8] & 0x3f) | 0x80; // variant 10
    const pairs = 18 * id;
    for (let i = 0; i < 12; i++) batchPairs[pairs + evenPairAt[i]] = hexPairs[pool[from + evenBytes[i]]];
    const base = 36 * id;
    for (let i = 0; i < 4; i++) {
      const code = 2 * pool[from + oddBytes[i]];
      const to = base + oddDigitAt[i];
      batchBytes[to] = hexCodes[code];
      batchBytes[to + 1] = hexCodes[code + 1];
    }
  }
  batch = batchTextOf();
}
