/**
 * `tenon/cluster`: serve one application from several processes that share its port (`node:cluster`), with
 * replacement of dead workers, a rolling restart, and one clean stop.
 * @packageDocumentation
 */
export { runWorkers, type RunWorkersOptions, type RunningWorker, type WorkerSupervisor } from "./run-workers.js";
