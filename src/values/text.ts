/**
 * Text as the databases see it. A column's size is counted in Unicode code points by every engine Tenon
 * supports (PostgreSQL `varchar(n)`, MariaDB `VARCHAR(n)` in utf8mb4; SQLite is held to the same rule), not
 * in UTF-16 units nor in grapheme clusters. A lone UTF-16 surrogate has no UTF-8 form (MariaDB would store
 * `?`, the others U+FFFD) and PostgreSQL cannot store a NUL character, so neither is accepted anywhere.
 */

/** Why a text cannot be stored unchanged on every engine, or undefined when it can. */
export type TextFault = "nul" | "lone-surrogate";

/** The number of Unicode code points of `text`: a surrogate pair counts once, a lone surrogate once. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

/** Whether `text` has at most `size` code points; cheap for the usual text well within its size. */
export function fitsSize(text: string, size: number): boolean {
  // A code point is one or two UTF-16 units: up to `size` units always fit, beyond twice never.
  if (text.length <= size) return true;
  if (text.length > 2 * size) return false;
  return codePointLength(text) <= size;
}

/**
 * What keeps `text` from being stored the same on every engine: a NUL character (named first when the text
 * has both) or a lone surrogate. One pass over the UTF-16 units: a call of the Unicode-mode expression
 * `/[\x00\p{Cs}]/u` cost about three times the instructions on the short texts of a request body.
 */
export function textFaultOf(text: string): TextFault | undefined {
  let lone = false;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return "nul";
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    lone = true;
  }
  return lone ? "lone-surrogate" : undefined;
}
