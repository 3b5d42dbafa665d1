/**
 * Decimal text: the one grammar, normalisation and comparison of the exact decimals Tenon holds as text
 * (`"-12.50"`). Decimal and int64 values are never rounded through a double, so every layer that reads,
 * compares or writes them goes through these functions.
 */

/** A plain decimal: optional minus, digits, optional point and digits; no exponent, no plus sign. */
const plainDecimal = /^(-?)(\d+)(?:\.(\d+))?$/;
/** A plain decimal whose integer or fraction digits may be missing (`.5`, `5.`), as comparison accepts. */
const looseDecimal = /^(-?)(\d*)(?:\.(\d*))?$/;
/** What an engine may hand back for a decimal: a plain decimal or one with an exponent (a REAL). */
const driverDecimal = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Whether `text` is a plain decimal (`-12.50`, `3`): no exponent, no plus sign, no spaces. */
export function isDecimalText(text: string): boolean {
  return plainDecimal.test(text);
}

/**
 * Compares two plain decimal texts exactly (`"-12.50"`, `"3"`): answers -1, 0 or 1, or NaN when either is
 * not a plain decimal. Used for decimal and int64 values, which are never rounded through a double.
 */
export function compareDecimalText(a: string, b: string): number {
  const x = looseDecimal.exec(a.trim());
  const y = looseDecimal.exec(b.trim());
  if (x === null || y === null) return Number.NaN;
  const parts = (m: RegExpExecArray): [number, string, string] => {
    const whole = (m[2] ?? "").replace(/^0+/, "");
    const fraction = (m[3] ?? "").replace(/0+$/, "");
    const sign = whole === "" && fraction === "" ? 0 : m[1] === "-" ? -1 : 1;
    return [sign, whole, fraction];
  };
  const [sa, wa, fa] = parts(x);
  const [sb, wb, fb] = parts(y);
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  let magnitude: number;
  if (wa.length !== wb.length) magnitude = wa.length < wb.length ? -1 : 1;
  else if (wa !== wb) magnitude = wa < wb ? -1 : 1;
  else {
    const width = Math.max(fa.length, fb.length);
    const pa = fa.padEnd(width, "0");
    const pb = fb.padEnd(width, "0");
    magnitude = pa === pb ? 0 : pa < pb ? -1 : 1;
  }
  return sa * magnitude;
}

/** The plain decimal text of a number or bigint, without an exponent. */
export function decimalTextOf(value: number | bigint): string {
  if (typeof value === "bigint") return value.toString();
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (match === null) return text;
  const mantissa = match[2] + (match[3] ?? "");
  const point = 1 + Number(match[4]);
  if (point <= 0) return `${match[1]}0.${"0".repeat(-point)}${mantissa}`;
  if (point >= mantissa.length) return match[1] + mantissa + "0".repeat(point - mantissa.length);
  return `${match[1]}${mantissa.slice(0, point)}.${mantissa.slice(point)}`;
}

/**
 * A decimal text with exactly `scale` digits after the point, or undefined when the text is not a plain
 * decimal, has more integer digits than `precision - scale`, or has non-zero digits beyond `scale`
 * (an exact column never rounds silently).
 */
export function normalizeExactDecimal(text: string, precision: number, scale: number): string | undefined {
  const match = plainDecimal.exec(text);
  if (match === null) return undefined;
  const whole = match[2].replace(/^0+(?=\d)/, "");
  const fraction = match[3] ?? "";
  if (/[1-9]/.test(fraction.slice(scale))) return undefined;
  if (whole !== "0" && whole.length > precision - scale) return undefined;
  const kept = fraction.slice(0, scale).padEnd(scale, "0");
  const result = scale > 0 ? `${whole}.${kept}` : whole;
  return match[1] === "-" && /[1-9]/.test(result) ? `-${result}` : result;
}

/**
 * `normalizeExactDecimal` of a value as an entity or a filter holds it: a text (trimmed), a bigint or a
 * finite number; anything else does not fit.
 */
export function exactDecimalOf(value: unknown, precision: number, scale: number): string | undefined {
  const text =
    typeof value === "string"
      ? value.trim()
      : typeof value === "bigint" || (typeof value === "number" && Number.isFinite(value))
        ? decimalTextOf(value)
        : "";
  return normalizeExactDecimal(text, precision, scale);
}

/**
 * Writes a decimal read from an engine with exactly `scale` digits after the point, so every engine returns
 * the same text. Extra digits (a REAL column of the embedded engine, say) are rounded half away from zero;
 * an exponent (`1.5e+21`, a REAL's text) is expanded exactly from the text, never through a double.
 */
export function normalizeDecimal(text: string, scale: number | undefined): string {
  const trimmed = text.trim();
  const match = driverDecimal.exec(trimmed);
  if (match === null || scale === undefined || (match[2] === "" && (match[3] ?? "") === "")) return text;
  let whole = match[2] || "0";
  let fraction = match[3] ?? "";
  if (match[4] !== undefined) {
    const exponent = Number(match[4]);
    // A REAL's exponent is at most 308; anything far beyond is not a number an engine hands back.
    if (Math.abs(exponent) > 400) return text;
    [whole, fraction] = shiftPoint(whole, fraction, exponent);
  }
  const negative = match[1] === "-";
  let units = BigInt(whole + fraction.padEnd(scale, "0").slice(0, scale));
  if (fraction.length > scale && fraction.charCodeAt(scale) >= 53 /* "5" */) units += 1n;
  return decimalTextOfUnits(negative ? -units : units, scale);
}

/** Moves the decimal point of `whole.fraction` by `exponent` places (to the right when positive). */
function shiftPoint(whole: string, fraction: string, exponent: number): [string, string] {
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return ["0", "0".repeat(-point) + digits];
  if (point >= digits.length) return [digits + "0".repeat(point - digits.length), ""];
  return [digits.slice(0, point), digits.slice(point)];
}

/**
 * The value of a plain decimal text scaled by 10^scale, as an exact integer (`"12.5"`, scale 2: `1250n`),
 * or undefined when the text is not a plain decimal or has non-zero digits beyond `scale`.
 */
export function scaledUnitsOf(text: string, scale: number): bigint | undefined {
  const match = plainDecimal.exec(text);
  if (match === null) return undefined;
  const fraction = match[3] ?? "";
  if (/[1-9]/.test(fraction.slice(scale))) return undefined;
  const units = BigInt(match[2] + fraction.slice(0, scale).padEnd(scale, "0"));
  return match[1] === "-" ? -units : units;
}

/** The decimal text of `units` / 10^scale with exactly `scale` digits after the point (`1250n`, 2: `"12.50"`). */
export function decimalTextOfUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const result = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${result}` : result;
}
