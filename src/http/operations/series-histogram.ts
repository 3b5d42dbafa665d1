/**
 * A metric as prom-client's `Registry` and `AggregatorRegistry` read it (`registerMetric`): a name, a help
 * text, a type, how workers' values are aggregated, and `get()`. @internal
 */
export interface CollectedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge" | "histogram";
  readonly aggregator: "sum" | "max" | "min";
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
  }>;
}

/** One labelled series of a histogram: its buckets, sum and count, updated without allocation. @internal */
export class HistogramSeries {
  /** The series' labels (without `le`). */
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative), one more than the bounds for +Inf. */
  readonly buckets: Float64Array;
  /** The sum of the observed values. */
  sum = 0;
  /** The number of observations. */
  count = 0;
  readonly #bounds: readonly number[];

  constructor(labels: Readonly<Record<string, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.buckets = new Float64Array(bounds.length + 1);
  }

  /** Counts one observation. */
  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.buckets[i]++;
    this.sum += value;
    this.count++;
  }
}

/**
 * A Prometheus histogram whose series are found once and then updated in place: prom-client's own
 * `Histogram.observe` validates and hashes its labels on every call, which the request path cannot afford.
 * Exposed through prom-client's registry like any other metric. @internal
 */
export class SeriesHistogram {
  readonly #name: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  readonly #series: HistogramSeries[] = [];

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.#name = name;
    this.#help = help;
    this.#bounds = bounds;
  }

  /** A new series with these labels (the caller keeps it: this is the cold path). */
  series(labels: Readonly<Record<string, string>>): HistogramSeries {
    const series = new HistogramSeries(labels, this.#bounds);
    this.#series.push(series);
    return series;
  }

  /** The histogram as prom-client reads it. */
  get metric(): CollectedMetric {
    const name = this.#name;
    const help = this.#help;
    const bounds = this.#bounds;
    const all = this.#series;
    return {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: async () => {
        const values: { labels: Record<string, string | number>; value: number; metricName?: string }[] = [];
        for (const series of all) {
          let cumulative = 0;
          for (let i = 0; i < bounds.length; i++) {
            cumulative += series.buckets[i];
            values.push({ labels: { ...series.labels, le: bounds[i] }, value: cumulative, metricName: `${name}_bucket` });
          }
          values.push({ labels: { ...series.labels, le: "+Inf" }, value: series.count, metricName: `${name}_bucket` });
          values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${name}_sum` });
          values.push({ labels: { ...series.labels }, value: series.count, metricName: `${name}_count` });
        }
        return { name, help, type: "histogram", aggregator: "sum", values };
      },
    };
  }
}

/** A counter or gauge whose values are read when it is scraped. @internal */
export function collectedMetric(
  name: string,
  help: string,
  type: "counter" | "gauge",
  read: () => readonly { readonly labels: Readonly<Record<string, string>>; readonly value: number }[],
  aggregator: "sum" | "max" | "min" = "sum",
): CollectedMetric {
  return {
    name,
    help,
    type,
    aggregator,
    get: async () => ({
      name,
      help,
      type,
      aggregator,
      values: read().map(({ labels, value }) => ({ labels: { ...labels }, value })),
    }),
  };
}
