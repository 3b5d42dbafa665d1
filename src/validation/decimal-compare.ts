const decimal = /^(-?)(\d*)(?:\.(\d*))?$/;

/**
 * Compares two plain decimal texts exactly (`"-12.50"`, `"3"`): answers -1, 0 or 1, or NaN when either is
 * not a plain decimal. Used for decimal and int64 values, which are never rounded through a double.
 */
export function compareDecimalText(a: string, b: string): number {
  const x = decimal.exec(a.trim());
  const y = decimal.exec(b.trim());
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

/** The plain decimal text of a number or bigint limit, without an exponent. */
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
