import type { PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { type HistogramSeries, SeriesHistogram } from "./series-histogram.js";

type PromClient = typeof import("prom-client");
type Registry = import("prom-client").Registry;

/** The name, help and buckets of prom-client's garbage-collection histogram, which this one replaces. */
const collectionsName = "nodejs_gc_duration_seconds";
const collectionsHelp = "Garbage collection duration by kind, one of major, minor, incremental or weakcb.";
const collectionsBuckets = [0.001, 0.01, 0.1, 1, 2, 5];

/**
 * Registers Node's process figures in `registry`: prom-client's default metrics (CPU, memory, event-loop delay,
 * handles, heap spaces, version) and `nodejs_gc_duration_seconds`, every collection counted. prom-client's own
 * collection histogram records the first entry of each batch Node delivers to an observer, and Node delivers every
 * collection since the last delivery in one batch (dozens after a tight loop of allocations); it also hashes
 * its labels on each. Here the other default collectors are registered one by one (prom-client's `lib/metrics`
 * files, named as `collectDefaultMetrics.metricsList` names them) and the collection histogram is this module's.
 * Should that layout change, prom-client's defaults are registered whole and only its collection histogram is
 * replaced in the registry (its observer then still runs, unseen). Answers the function that stops observing.
 * @internal
 */
export function collectProcessMetrics(prom: PromClient, registry: Registry): () => void {
  if (!collectDefaultsButCollections(prom, registry)) {
    prom.collectDefaultMetrics({ register: registry });
    registry.removeSingleMetric(collectionsName);
  }
  return observeCollections(registry);
}

/**
 * prom-client's default collectors but the collection histogram, registered as `collectDefaultMetrics` does (with its
 * default event-loop precision); false, with nothing registered, when one of them cannot be loaded.
 */
function collectDefaultsButCollections(prom: PromClient, registry: Registry): boolean {
  const names = (prom.collectDefaultMetrics as unknown as { metricsList?: unknown }).metricsList;
  if (!Array.isArray(names) || !names.includes("gc")) return false;
  const collectors: ((registry: Registry, config: object) => void)[] = [];
  try {
    const { createRequire } = process.getBuiltinModule("node:module") as typeof import("node:module");
    const require = createRequire(import.meta.url);
    const base = require.resolve("prom-client").replace(/index\.js$/, "lib/metrics/");
    for (const name of names) {
      if (name === "gc") continue;
      const collector: unknown = require(`${base}${String(name)}.js`);
      if (typeof collector !== "function") return false;
      collectors.push(collector as (registry: Registry, config: object) => void);
    }
  } catch {
    return false;
  }
  const config = { eventLoopMonitoringPrecision: 10 };
  for (const collect of collectors) collect(registry, config);
  return true;
}

/** Registers the collection histogram and starts observing Node's collections; answers the function that stops. */
function observeCollections(registry: Registry): () => void {
  const histogram = new SeriesHistogram(collectionsName, collectionsHelp, collectionsBuckets);
  registry.registerMetric(histogram.metric as never);
  // A kind's series is made at its first collection, so that the exposition names the kinds that happened, as prom-client's did.
  const series = new Map<number, HistogramSeries>();
  const { PerformanceObserver: Observer, constants } = process.getBuiltinModule("node:perf_hooks") as typeof import("node:perf_hooks");
  // The `kind` label of each of Node's collection kinds (`PerformanceEntry.detail.kind`), as prom-client names them.
  const kindNames = new Map<number, string>([
    [constants.NODE_PERFORMANCE_GC_MAJOR, "major"],
    [constants.NODE_PERFORMANCE_GC_MINOR, "minor"],
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental"],
    [constants.NODE_PERFORMANCE_GC_WEAKCB, "weakcb"],
  ]);
  const observer: PerformanceObserver = new Observer((list) => {
    for (const entry of list.getEntries()) {
      const kind = kindOf(entry);
      let kindSeries = series.get(kind);
      if (kindSeries === undefined) {
        kindSeries = histogram.series({ kind: kindNames.get(kind) ?? "unknown" });
        series.set(kind, kindSeries);
      }
      kindSeries.observe(entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}

/** The collection kind of a `gc` entry (`detail.kind`). */
function kindOf(entry: PerformanceEntry): number {
  const detail = (entry as { readonly detail?: { readonly kind?: unknown } | null }).detail;
  return typeof detail?.kind === "number" ? detail.kind : 0;
}
