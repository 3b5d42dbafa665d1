import { Buffer } from "node:buffer";

/**
 * A piece of streamed body that many responses send alike (one event of a change stream, sent to every client
 * that may see it): its text encoded once, and framed once as a chunk of a chunked body, so that writing it to
 * each response (`HttpStreamSink.writePiece`) costs one write of bytes made beforehand, not an encoding and a
 * framing per response.
 */
export class HttpStreamPiece {
  /** The piece framed as one chunk of a chunked body: its size in hex, CRLF, its bytes, CRLF (RFC 9112, 7.1). */
  readonly chunk: Buffer;
  /** The piece's bytes as UTF-8 (a view into `chunk`, not a copy). */
  readonly bytes: Buffer;

  /** The piece of `text` (not empty: a chunk of size 0 would end the body). */
  constructor(text: string) {
    const size = Buffer.byteLength(text, "utf8");
    const head = `${size.toString(16)}\r\n`;
    // A buffer of its own, not a slice of Node.js's shared pool: a piece may be kept as long as a hub keeps its record.
    const chunk = Buffer.allocUnsafeSlow(head.length + size + 2);
    chunk.write(head, 0, "latin1");
    chunk.write(text, head.length, "utf8");
    chunk[chunk.length - 2] = 0x0d;
    chunk[chunk.length - 1] = 0x0a;
    this.chunk = chunk;
    this.bytes = chunk.subarray(head.length, head.length + size);
  }
}
