// A strict reader of the Prometheus text exposition format (version 0.0.4): what a scraper would accept.
import assert from "node:assert/strict";

/** One sample: its metric name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed exposition: the families declared by `# TYPE` and every sample. */
export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const types = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseValue(text: string, line: string): number {
  // Prometheus reads these as Go's ParseFloat does: case-insensitive (prom-client writes NaN as "Nan")
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  assert.match(text, /^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$/, `a sample value: ${line}`);
  return Number(text);
}

/** The labels of `{a="x",b="y\"z"}`, read character by character with the format's three escapes. */
function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    assert.ok(eq > i, `a label name: ${line}`);
    const name = text.slice(i, eq);
    assert.match(name, labelName, `a label name: ${line}`);
    assert.equal(text[eq + 1], '"', `a quoted label value: ${line}`);
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\\") {
        const next = text[++j];
        assert.ok(next === "\\" || next === '"' || next === "n", `a valid escape: ${line}`);
        value += next === "n" ? "\n" : next;
      } else value += text[j];
    }
    assert.equal(text[j], '"', `a closed label value: ${line}`);
    assert.equal(labels[name], undefined, `no repeated label: ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
  }
  return labels;
}

/** Reads an exposition, failing on any line the text format does not allow. */
export function parseExposition(text: string): Exposition {
  const declared = new Map<string, string>();
  const samples: Sample[] = [];
  assert.ok(text.endsWith("\n"), "the exposition ends with a line feed");
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (match === null) continue; // a comment
      assert.match(match[2], metricName, `a metric name: ${line}`);
      if (match[1] === "TYPE") {
        assert.ok(types.has(match[3]), `a metric type: ${line}`);
        assert.equal(declared.has(match[2]), false, `one TYPE per family: ${line}`);
        declared.set(match[2], match[3]);
      }
      continue;
    }
    const brace = line.indexOf("{");
    const space = brace < 0 ? line.indexOf(" ") : line.indexOf(" ", line.lastIndexOf("}"));
    const name = brace < 0 ? line.slice(0, space) : line.slice(0, brace);
    assert.match(name, metricName, `a metric name: ${line}`);
    const labels = brace < 0 ? {} : parseLabels(line.slice(brace + 1, line.lastIndexOf("}")), line);
    const rest = line.slice(space + 1).split(" ");
    assert.ok(rest.length === 1 || rest.length === 2, `a value and an optional timestamp: ${line}`);
    const family = [...declared.keys()].find(
      (f) =>
        name === f ||
        ((declared.get(f) === "histogram" || declared.get(f) === "summary") &&
          /^(_bucket|_sum|_count)$/.test(name.slice(f.length)) &&
          name.startsWith(f)),
    );
    assert.ok(family !== undefined, `a sample of a declared family: ${line}`);
    if (name.endsWith("_bucket")) assert.ok(labels.le !== undefined, `a bucket has le: ${line}`);
    samples.push({ name, labels, value: parseValue(rest[0], line) });
  }
  return { types: declared, samples };
}

/** The samples called `name` whose labels include `labels`. */
export function samplesOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample called `name` with `labels`. */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(exposition, name, labels);
  assert.equal(found.length, 1, `one sample ${name} ${JSON.stringify(labels)}: ${JSON.stringify(found)}`);
  return found[0].value;
}

/** The distinct series (name and labels) of an exposition. */
export function seriesCount(exposition: Exposition, prefix: string): number {
  return new Set(exposition.samples.filter((s) => s.name.startsWith(prefix)).map((s) => `${s.name}${JSON.stringify(s.labels)}`)).size;
}
