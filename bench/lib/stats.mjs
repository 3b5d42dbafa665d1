// Small statistics for the summary.

/** The median of the finite numbers in `xs`, or null when there is none. */
export function median(xs) {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 === 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/**
 * One run measured as several slices: requests per second over all of them; p50, p90 and p99 the medians of
 * the slices' (wrk reports percentiles, not histograms, so they cannot be merged exactly); the server's CPU time
 * summed; the slices kept.
 */
export function combineSlices(slices) {
  const requests = slices.reduce((a, r) => a + r.requests, 0);
  const seconds = slices.reduce((a, r) => a + (r.rps > 0 ? r.requests / r.rps : 0), 0);
  const sum = (key) => slices.reduce((a, r) => a + (r[key] ?? 0), 0);
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    requests,
    errors: sum("errors"),
    non2xx: sum("non2xx"),
    cpuNs: slices.some((r) => r.cpuNs == null) ? null : sum("cpuNs"),
    p50Ms: median(slices.map((r) => r.p50Ms)),
    p90Ms: median(slices.map((r) => r.p90Ms)),
    p99Ms: median(slices.map((r) => r.p99Ms)),
    meanMs: median(slices.map((r) => r.meanMs)),
    maxMs: Math.max(...slices.map((r) => r.maxMs)),
    slices: slices.map((r) => Math.round(r.rps)),
  };
}

/**
 * Per scenario and contender: the median over rounds of requests per second, of the ratio to the
 * baseline measured in the same round, of the server's CPU per request and its ratio (baseline's over the
 * contender's, same round), of p50/p99, start-up and peak RSS; plus the rounds themselves.
 */
export function summarize(scenarios, runs) {
  return scenarios.map((s) => (s.variants ? summarizePaired(s, runs) : summarizePlain(s, runs)));
}

/**
 * A paired scenario: per contender, the median over rounds of the measured variant's requests per second
 * divided by the reference variant's (the first) in the same round, and each variant's median.
 */
function summarizePaired(s, runs) {
  const [reference, ...measured] = s.variants.map((v) => v.label);
  const contenders = {};
  for (const c of s.contenders) {
    const mine = runs.filter((r) => r.scenario === s.id && r.contender === c);
    if (mine.length === 0) continue;
    const rounds = [...new Set(mine.map((r) => r.round))];
    const variants = {};
    for (const v of s.variants.map((x) => x.label)) {
      const these = mine.filter((r) => r.variant === v);
      variants[v] = {
        rps: median(these.map((r) => r.rps)),
        cpuUs: median(these.map((r) => r.cpuUs)),
        p50Ms: median(these.map((r) => r.p50Ms)),
        p99Ms: median(these.map((r) => r.p99Ms)),
      };
    }
    const ratios = {};
    for (const v of measured) {
      // Per round: the measured variant's throughput over the reference's, and the reference's CPU per request
      // over the measured one's (so that both read the same way: below 1 costs more).
      const pairs = rounds.map((round) => [
        mine.find((r) => r.round === round && r.variant === reference),
        mine.find((r) => r.round === round && r.variant === v),
      ]);
      const perRound = pairs.map(([a, b]) => (a && b && a.rps > 0 ? b.rps / a.rps : null));
      const cpuPerRound = pairs.map(([a, b]) => (a?.cpuUs > 0 && b?.cpuUs > 0 ? a.cpuUs / b.cpuUs : null));
      ratios[v] = { median: median(perRound), rounds: perRound, cpu: median(cpuPerRound), cpuRounds: cpuPerRound };
    }
    contenders[c] = {
      variants,
      ratios,
      errors: mine.reduce((a, r) => a + r.errors, 0),
      requests: mine.reduce((a, r) => a + r.requests, 0),
      rounds: rounds.length,
    };
  }
  return { id: s.id, title: s.title, db: s.db ?? "sqlite", paired: true, reference, measured, contenders };
}

function summarizePlain(s, runs) {
  {
    const contenders = {};
    for (const c of s.contenders) {
      const mine = runs.filter((r) => r.scenario === s.id && r.contender === c);
      if (mine.length === 0) continue;
      const baseOf = (r) => runs.find((b) => b.scenario === s.id && b.contender === "raw" && b.round === r.round);
      const ratios = mine.map((r) => {
        const base = baseOf(r);
        return base && base.rps > 0 ? r.rps / base.rps : null;
      });
      // The baseline's CPU per request over this contender's, so that it reads like the throughput ratio.
      const cpuRatios = mine.map((r) => {
        const base = baseOf(r);
        return base?.cpuUs > 0 && r.cpuUs > 0 ? base.cpuUs / r.cpuUs : null;
      });
      contenders[c] = {
        rps: median(mine.map((r) => r.rps)),
        ratio: median(ratios),
        cpuUs: median(mine.map((r) => r.cpuUs)),
        cpuRatio: median(cpuRatios),
        p50Ms: median(mine.map((r) => r.p50Ms)),
        p99Ms: median(mine.map((r) => r.p99Ms)),
        startupMs: median(mine.map((r) => r.startupMs)),
        peakRssMiB: median(mine.map((r) => r.peakRssMiB)),
        errors: mine.reduce((a, r) => a + r.errors, 0),
        requests: mine.reduce((a, r) => a + r.requests, 0),
        rounds: mine.length,
      };
    }
    return { id: s.id, title: s.title, db: s.db ?? "sqlite", connections: s.connections, rows: s.rows, relatesTo: s.relatesTo, contenders };
  }
}
