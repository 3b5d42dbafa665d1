// Made on the first text that is not plain ASCII: creating it loads ICU's break rules (about 14 ms at start-up).
let segmenter: Intl.Segmenter | undefined;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the class is "ASCII without CR", control characters included on purpose.
const plainAscii = /^[\x00-\x0c\x0e-\x7f]*$/;

/**
 * The length of a text in user-perceived characters: extended grapheme clusters (Unicode UAX #29, through
 * `Intl.Segmenter`). An emoji with modifiers, a flag, a letter with combining marks and CR LF each count as
 * one, whatever their UTF-16 or UTF-8 size.
 */
export function textLength(text: string): number {
  if (plainAscii.test(text)) return text.length;
  let count = 0;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const _ of segmenter.segment(text)) count++;
  return count;
}
