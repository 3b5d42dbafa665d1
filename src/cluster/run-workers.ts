import cluster, { type Worker } from "node:cluster";
import { ClusterMessages } from "./cluster-messages.js";
import { checkedMetricsOptions, clusterMetricsVariable, type HttpMetricsOptions, loadPromClient } from "../http/operations/http-metrics.js";
import { type MetricsListener, openMetricsListener } from "../http/operations/metrics-listener.js";

/** How `runWorkers` runs and supervises the worker processes. */
export interface RunWorkersOptions {
  /** How many worker processes serve (at least 1). */
  readonly workers: number;
  /**
   * Runs once in the primary before the first worker is forked (schema, seed rows): work that must not run
   * in every worker, nor again when a worker is replaced. A failure stops the start.
   */
  readonly prepare?: () => Promise<void> | void;
  /** The signal that restarts the workers one at a time (default `SIGHUP`; null: none). */
  readonly rollingRestartSignal?: NodeJS.Signals | null;
  /** How long a worker may take to stop after SIGTERM before it is killed, in ms (default 30000). */
  readonly stopTimeout?: number;
  /** How long a new worker may take to start before it counts as failed, in ms (default 60000). */
  readonly startTimeout?: number;
  /** The first delay before a dead worker is replaced, in ms (default 100); it doubles while workers die young, up to 30 s. */
  readonly restartDelay?: number;
  /** Where the primary reports what it does (default `console.log`). */
  readonly log?: (message: string) => void;
  /**
   * Serve the workers' Prometheus metrics, summed, from the primary (port, token, and optionally
   * `bindAddress` and `path`, as `HttpServer.metrics`). The workers' servers need `metrics` set too (their
   * pools and process figures); they then answer the primary instead of listening themselves. Needs the
   * optional peer dependency `prom-client`.
   */
  readonly metrics?: Pick<HttpMetricsOptions, "port" | "bindAddress" | "path" | "token">;
}

/** What a worker's start function answers: the way to stop what it started. */
export interface RunningWorker {
  /** Stops serving (an `HttpServer`'s drain and stop, then closing the database); the worker then exits 0. */
  stop(): Promise<void>;
}

/** The primary's handle on its workers. */
export interface WorkerSupervisor {
  /** The process ids of the workers serving now. */
  readonly pids: readonly number[];
  /** The port the primary serves the workers' summed metrics on (0 without `metrics`). */
  readonly metricsPort: number;
  /** Replaces the workers one at a time: a new one is started and serving before an old one is stopped. */
  rollingRestart(): Promise<void>;
  /** Stops every worker (SIGTERM, then SIGKILL after `stopTimeout`) and answers whether all exited with 0. */
  stop(): Promise<boolean>;
}

const readyMessage = "tenon:worker-ready";
const youngMs = 10000;
const maxRestartDelayMs = 30000;

/**
 * Serves an application from several processes with `node:cluster` (the workers share the listening port;
 * the primary hands each new connection to a worker in turn, so there is no balancer of Tenon's own).
 *
 * In the primary: runs `prepare`, forks `workers` copies of the current program, and supervises them: a
 * worker that dies is replaced, `rollingRestartSignal` (SIGHUP) replaces them one at a time without refusing
 * a request, and SIGTERM or SIGINT stops every worker and exits (0 when every worker exited 0). Answers the
 * supervisor once every worker serves.
 *
 * In a worker: calls `startWorker` (open the database, `await server.start()`), stops what it answered on
 * SIGTERM or SIGINT and exits 0 (1 when stopping failed), and ignores the rolling-restart signal, which is
 * the primary's. Answers undefined once started.
 *
 * Call it at the top level of the program, the same way in both roles.
 */
export async function runWorkers(
  options: RunWorkersOptions,
  startWorker: () => Promise<RunningWorker>,
): Promise<WorkerSupervisor | undefined> {
  if (!Number.isInteger(options.workers) || options.workers < 1) throw new RangeError(ClusterMessages.invalidWorkerCount(options.workers));
  if (cluster.isWorker) {
    await runAsWorker(startWorker, options.rollingRestartSignal === undefined ? "SIGHUP" : options.rollingRestartSignal);
    return undefined;
  }
  const supervisor = new Supervisor(options);
  await options.prepare?.();
  await supervisor.serveMetrics();
  await supervisor.start();
  return supervisor;
}

/** The worker's side: start, report ready to the primary, stop on a signal. */
async function runAsWorker(startWorker: () => Promise<RunningWorker>, restartSignal: NodeJS.Signals | null): Promise<void> {
  let running: RunningWorker | undefined;
  let stopRequested = false;
  const stop = async (): Promise<void> => {
    if (running === undefined) return;
    const stopping = running;
    running = undefined;
    try {
      await stopping.stop();
      process.exit(0);
    } catch (error) {
      console.error(ClusterMessages.workerStopFailed(process.pid, error));
      process.exit(1);
    }
  };
  // In place before the start, so that a signal during it is not the default exit: it stops once started.
  const onStopSignal = (): void => {
    stopRequested = true;
    void stop();
  };
  process.on("SIGTERM", onStopSignal);
  process.on("SIGINT", onStopSignal);
  if (restartSignal !== null) process.on(restartSignal, () => {});
  running = await startWorker();
  if (stopRequested) {
    await stop();
    return;
  }
  process.send?.(readyMessage);
}

/** The primary's side. */
class Supervisor implements WorkerSupervisor {
  readonly #options: RunWorkersOptions;
  readonly #log: (message: string) => void;
  /** Workers that serve (reported ready) and have not been asked to stop. */
  readonly #serving = new Set<Worker>();
  /** Workers asked to stop: their exit is expected, not a death to repair. */
  readonly #retiring = new Set<Worker>();
  readonly #startedAt = new Map<Worker, number>();
  #restartDelay: number;
  #stopping: Promise<boolean> | undefined;
  #restarting: Promise<void> | undefined;
  #metrics: MetricsListener | undefined;

  constructor(options: RunWorkersOptions) {
    this.#options = options;
    this.#log = options.log ?? ((message) => console.log(message));
    this.#restartDelay = options.restartDelay ?? 100;
  }

  get pids(): readonly number[] {
    return [...this.#serving].map((worker) => worker.process.pid ?? 0);
  }

  get metricsPort(): number {
    return this.#metrics?.port ?? 0;
  }

  /** With `metrics`: serves the sum of the workers' registries (prom-client's cluster protocol). */
  async serveMetrics(): Promise<void> {
    if (this.#options.metrics === undefined) return;
    const endpoint = checkedMetricsOptions(this.#options.metrics);
    const prom = await loadPromClient();
    const aggregator = new prom.AggregatorRegistry();
    this.#metrics = await openMetricsListener(endpoint, async () => ({
      text: await aggregator.clusterMetrics(),
      contentType: aggregator.contentType,
    }));
  }

  async start(): Promise<void> {
    const onStop = (signal: NodeJS.Signals): void => {
      this.#log(ClusterMessages.primaryStopping(signal, this.#serving.size));
      void this.stop().then((clean) => process.exit(clean ? 0 : 1));
    };
    process.on("SIGTERM", onStop);
    process.on("SIGINT", onStop);
    const restartSignal = this.#options.rollingRestartSignal === undefined ? "SIGHUP" : this.#options.rollingRestartSignal;
    if (restartSignal !== null) process.on(restartSignal, () => void this.rollingRestart());
    const started = await Promise.allSettled(Array.from({ length: this.#options.workers }, () => this.#fork()));
    const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failed !== undefined) {
      // No half-started service: the workers that did start are stopped, and the start fails.
      await this.stop();
      throw failed.reason;
    }
    this.#log(ClusterMessages.primaryServing(process.pid, this.pids));
  }

  rollingRestart(): Promise<void> {
    if (this.#stopping !== undefined) return Promise.resolve();
    this.#restarting ??= this.#replaceEach().finally(() => {
      this.#restarting = undefined;
    });
    return this.#restarting;
  }

  async #replaceEach(): Promise<void> {
    const old = [...this.#serving];
    this.#log(ClusterMessages.rollingRestartBegins(old.length));
    for (const worker of old) {
      if (this.#stopping !== undefined) return;
      if (!this.#serving.has(worker)) continue;
      try {
        await this.#fork();
      } catch (error) {
        this.#log(ClusterMessages.rollingRestartAborted(error));
        return;
      }
      await this.#retire(worker);
    }
    this.#log(ClusterMessages.rollingRestartDone(this.pids));
  }

  stop(): Promise<boolean> {
    this.#stopping ??= (async () => {
      const all = [...this.#serving, ...this.#retiring, ...Object.values(cluster.workers ?? {})].filter(
        (worker): worker is Worker => worker !== undefined,
      );
      const codes = await Promise.all([...new Set(all)].map((worker) => this.#retire(worker)));
      await this.#metrics?.close();
      return codes.every((code) => code === 0);
    })();
    return this.#stopping;
  }

  /** Forks a worker and resolves once it serves; rejects when it exits or times out first. */
  #fork(): Promise<Worker> {
    const worker = cluster.fork(this.#options.metrics === undefined ? undefined : { [clusterMetricsVariable]: "1" });
    this.#startedAt.set(worker, Date.now());
    worker.on("exit", (code, signal) => this.#onExit(worker, code, signal));
    const timeoutMs = this.#options.startTimeout ?? 60000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        this.#retiring.add(worker);
        worker.process.kill("SIGKILL");
        reject(new Error(ClusterMessages.workerStartTimedOut(worker.process.pid, timeoutMs)));
      }, timeoutMs);
      const onMessage = (message: unknown): void => {
        if (message !== readyMessage) return;
        cleanup();
        this.#serving.add(worker);
        this.#log(ClusterMessages.workerServing(worker.process.pid));
        resolve(worker);
      };
      const onEarlyExit = (code: number | null): void => {
        cleanup();
        reject(new Error(ClusterMessages.workerExitedBeforeServing(worker.process.pid, code)));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onEarlyExit);
      };
      worker.on("message", onMessage);
      worker.once("exit", onEarlyExit);
    });
  }

  /** Asks a worker to stop and answers its exit code (null when it had to be killed or died by a signal). */
  #retire(worker: Worker): Promise<number | null> {
    this.#serving.delete(worker);
    this.#retiring.add(worker);
    if (worker.isDead()) return Promise.resolve(worker.process.exitCode);
    return new Promise((resolve) => {
      const killer = setTimeout(() => worker.process.kill("SIGKILL"), this.#options.stopTimeout ?? 30000);
      worker.once("exit", (code) => {
        clearTimeout(killer);
        resolve(code);
      });
      worker.process.kill("SIGTERM");
    });
  }

  #onExit(worker: Worker, code: number | null, signal: string | null): void {
    const startedAt = this.#startedAt.get(worker) ?? 0;
    this.#startedAt.delete(worker);
    const expected = this.#retiring.delete(worker);
    const wasServing = this.#serving.delete(worker);
    if (expected || this.#stopping !== undefined) return;
    this.#log(ClusterMessages.workerDied(worker.process.pid, code, signal));
    if (!wasServing) return;
    // A worker that dies soon after its start is likely to die again: wait longer each time, up to a bound.
    const young = Date.now() - startedAt < youngMs;
    const delay = young ? this.#restartDelay : (this.#options.restartDelay ?? 100);
    this.#restartDelay = young ? Math.min(this.#restartDelay * 2, maxRestartDelayMs) : (this.#options.restartDelay ?? 100);
    setTimeout(() => void this.#replace(), delay);
  }

  async #replace(): Promise<void> {
    if (this.#stopping !== undefined) return;
    try {
      await this.#fork();
    } catch (error) {
      this.#log(ClusterMessages.replacementFailed(error));
      setTimeout(() => void this.#replace(), this.#restartDelay);
      this.#restartDelay = Math.min(this.#restartDelay * 2, maxRestartDelayMs);
    }
  }
}
