import { InvalidInputError } from "../../errors.js";
import { CrudMessages } from "./crud-messages.js";

/** One line of an NDJSON body: its number (from 1, blank lines counted) and its text. */
export interface NdjsonLine {
  readonly number: number;
  readonly text: string;
}

/** A line of an NDJSON body that cannot be read (not UTF-8, too long): a 400 that names it; reading stops there. */
export class NdjsonLineError extends InvalidInputError {
  /** The line's number, from 1. */
  readonly line: number;
  /** @param line the line's number. @param message what is wrong with it. */
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

const lineFeed = 0x0a;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * The lines of an NDJSON body as its chunks arrive: split at each LF (a CR before it dropped), blank lines
 * skipped but counted, each decoded as UTF-8 (a leading BOM dropped). A line that is not UTF-8, or longer than
 * `maxLineBytes`, is an `InvalidInputError` (400) naming it: the body cannot be read on from there. Only the
 * line being assembled is held, never the body.
 */
export async function* ndjsonLines(chunks: AsyncIterable<Buffer | Uint8Array>, maxLineBytes: number): AsyncGenerator<NdjsonLine> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let number = 0;
  const take = (piece: Buffer): NdjsonLine | undefined => {
    number++;
    const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
    pending = [];
    pendingLength = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    if (end > maxLineBytes) throw new NdjsonLineError(number, CrudMessages.importLineTooLong(number, maxLineBytes));
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(0, end));
    } catch {
      throw new NdjsonLineError(number, CrudMessages.importLineNotUtf8(number));
    }
    return text.trim() === "" ? undefined : { number, text };
  };
  for await (const received of chunks) {
    const chunk = Buffer.isBuffer(received) ? received : Buffer.from(received.buffer, received.byteOffset, received.byteLength);
    let start = 0;
    for (let feed = chunk.indexOf(lineFeed, start); feed >= 0; feed = chunk.indexOf(lineFeed, start)) {
      const line = take(chunk.subarray(start, feed));
      if (line !== undefined) yield line;
      start = feed + 1;
    }
    if (start < chunk.length) {
      pendingLength += chunk.length - start;
      if (pendingLength > maxLineBytes + 1) throw new NdjsonLineError(number + 1, CrudMessages.importLineTooLong(number + 1, maxLineBytes));
      pending.push(chunk.subarray(start));
    }
  }
  if (pendingLength > 0) {
    const line = take(Buffer.alloc(0));
    if (line !== undefined) yield line;
  }
}
