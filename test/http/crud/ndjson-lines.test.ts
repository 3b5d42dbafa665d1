// The line splitter of NDJSON imports: lines assembled across chunk boundaries wherever they fall (inside a
// multi-byte character, between CR and LF), blank lines counted but skipped, and lines that cannot be read
// refused by number.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NdjsonLineError, type NdjsonLine, ndjsonLines } from "../../../src/http/crud/ndjson-lines.js";

async function linesOf(chunks: readonly (string | Buffer)[], max = 1000): Promise<NdjsonLine[]> {
  async function* source(): AsyncGenerator<Buffer> {
    for (const chunk of chunks) yield typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
  }
  const lines: NdjsonLine[] = [];
  for await (const line of ndjsonLines(source(), max)) lines.push(line);
  return lines;
}

/** Every way of cutting `text` into two chunks. */
function everySplit(text: string): Buffer[][] {
  const bytes = Buffer.from(text, "utf8");
  return Array.from({ length: bytes.length + 1 }, (_, at) => [bytes.subarray(0, at), bytes.subarray(at)]);
}

describe("NDJSON lines", () => {
  test("give the same lines wherever the chunks are cut, multi-byte characters and CRLF included", async () => {
    const text = '{"a":"ÄÖÜ 😀"}\r\n\r\n  \n{"b":2}\n{"c":"日本"}';
    const expected = [
      { number: 1, text: '{"a":"ÄÖÜ 😀"}' },
      { number: 4, text: '{"b":2}' },
      { number: 5, text: '{"c":"日本"}' },
    ];
    assert.deepEqual(await linesOf([text]), expected);
    for (const chunks of everySplit(text))
      assert.deepEqual(await linesOf(chunks), expected, chunks.map((c) => c.toString("hex")).join("|"));
    const oneByteAtATime = [...Buffer.from(text, "utf8")].map((byte) => Buffer.from([byte]));
    assert.deepEqual(await linesOf(oneByteAtATime), expected);
  });

  test("an empty body has no lines, and a last line without a line feed is a line", async () => {
    assert.deepEqual(await linesOf([]), []);
    assert.deepEqual(await linesOf(["\n\n"]), []);
    assert.deepEqual(await linesOf(["{}"]), [{ number: 1, text: "{}" }]);
  });

  test("a line that is not UTF-8 is refused by its number", async () => {
    await assert.rejects(
      linesOf([Buffer.from("{}\n"), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]),
      (error: unknown) => error instanceof NdjsonLineError && error.line === 2 && /Line 2 .* not UTF-8/.test(error.message),
    );
  });

  test("a line longer than the limit is refused, also one whose chunks never bring a line feed", async () => {
    await assert.rejects(
      linesOf(["{}\n", `"${"x".repeat(20)}"\n`], 10),
      (error: unknown) => error instanceof NdjsonLineError && error.line === 2,
    );
    const endless = Array.from({ length: 100 }, () => "x".repeat(64));
    await assert.rejects(linesOf(endless, 1000), (error: unknown) => error instanceof NdjsonLineError && error.line === 1);
    assert.deepEqual(await linesOf([`${"y".repeat(10)}\r\n`], 10), [{ number: 1, text: "y".repeat(10) }], "the CR is not counted");
  });
});
