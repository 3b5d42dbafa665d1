/**
 * Binary values: entities hold a `Uint8Array`; the drivers and Node's encoders want a `Buffer`. The view
 * shares the bytes, so nothing is copied.
 */

/** A `Buffer` over the same bytes as `bytes` (itself when it already is one). */
export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
