/**
 * Every sentence the worker supervisor writes, in one place.
 * @internal
 */
export const ClusterMessages = {
  invalidWorkerCount: (value: number) => `The number of workers must be an integer of at least 1, not ${value}.`,
  primaryServing: (pid: number, workers: readonly number[]) => `tenon: primary ${pid} serves with workers ${workers.join(", ")}`,
  primaryStopping: (signal: string, workers: number) => `tenon: ${signal}: stopping ${workers} workers`,
  workerServing: (pid: number | undefined) => `tenon: worker ${pid} serving`,
  workerDied: (pid: number | undefined, code: number | null, signal: string | null) =>
    `tenon: worker ${pid} died (exit code ${code}, signal ${signal}); replacing it`,
  workerStartTimedOut: (pid: number | undefined, ms: number) => `tenon: worker ${pid} did not start within ${ms} ms`,
  workerExitedBeforeServing: (pid: number | undefined, code: number | null) =>
    `tenon: worker ${pid} exited with code ${code} before serving`,
  workerStopFailed: (pid: number, error: unknown) => `tenon: worker ${pid} failed to stop cleanly: ${String(error)}`,
  replacementFailed: (error: unknown) => `tenon: a replacement worker failed to start (${String(error)}); trying again`,
  rollingRestartBegins: (workers: number) => `tenon: rolling restart of ${workers} workers`,
  rollingRestartDone: (workers: readonly number[]) => `tenon: rolling restart done; workers ${workers.join(", ")}`,
  rollingRestartAborted: (error: unknown) => `tenon: rolling restart stopped, the old workers keep serving: ${String(error)}`,
} as const;
