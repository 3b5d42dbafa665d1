/**
 * Short ASCII texts built a byte at a time (a UUID, an ISO date): written into a scratch buffer and read as one
 * string. Building them from pieces makes a string of many parts, which whatever writes it out (a response
 * header, JSON, a statement's parameter) then has to copy into one; one read of the bytes costs a few hundred
 * instructions and leaves a flat string.
 * @internal
 */

/** Node's Buffer has had `latin1Slice` (what `toString("latin1")` calls after looking the encoding up) on every line Tenon runs on. */
type Latin1Slicing = { latin1Slice(start: number, end: number): string };

/** A function answering the first `length` bytes of `buffer` as a string (each byte one character), read at each call. */
export function latin1Reader(buffer: Buffer, length: number): () => string {
  if (typeof (buffer as unknown as Partial<Latin1Slicing>).latin1Slice === "function") {
    const slicing = buffer as unknown as Latin1Slicing;
    return () => slicing.latin1Slice(0, length);
  }
  return () => buffer.toString("latin1", 0, length);
}
