/**
 * The protocol between whatever disposes a resource and whatever waits for it: a disposal that has nothing
 * left to wait for answers `settledDisposal` (or undefined), and the waiting side, seeing it, goes on at once
 * instead of through a promise reaction. The ORM session answers it when it gave its connection back on the
 * spot; the HTTP server's request pipeline checks for it when it disposes a request's context. Neither side
 * knows the other: both know this module.
 * @internal
 */
export const settledDisposal: Promise<void> = Promise.resolve();

/** True when `disposal` is `settledDisposal`: finished, nothing to wait for. @internal */
export function isSettledDisposal(disposal: unknown): boolean {
  return disposal === settledDisposal;
}
