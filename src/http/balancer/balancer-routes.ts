import { HttpController, type HttpControllerClass } from "../exchange/http-controller.js";
import { HttpNotReadyError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";
import { AuthorizationType, Get, HttpAuthorizationType } from "../routing/route-decorators.js";
import type { HttpReadiness } from "./http-readiness.js";

/** What the balancer routes of one running server read: its readiness check and whether it drains. @internal */
export interface BalancerState {
  readonly readiness: HttpReadiness | undefined;
  /** Milliseconds a readiness check may take before it counts as failed. */
  readonly readinessTimeout: number;
  /** Set by `stop()`: from then on `/ready` answers 503 while requests are still served. */
  draining: boolean;
}

/** The body of a positive answer of `/live` and `/ready`. */
const okBody = { status: "ok" } as const;

/**
 * The controller of `GET <base>/live` and `GET <base>/ready`, made for one server so that its handlers read
 * that server's state. Both routes are anonymous whatever the server's authentication: a load balancer
 * sends no credentials. `/live` touches nothing (the process answers, so it is alive); `/ready` answers 503
 * while the server drains and when the readiness check fails or does not answer in time.
 * @internal
 */
export function balancerController<C>(state: BalancerState): HttpControllerClass<C> {
  class BalancerController extends HttpController<C> {
    @Get("live")
    @AuthorizationType(HttpAuthorizationType.None)
    live(): typeof okBody {
      return okBody;
    }

    @Get("ready")
    @AuthorizationType(HttpAuthorizationType.None)
    async ready(): Promise<typeof okBody> {
      if (state.draining) throw new HttpNotReadyError(HttpMessages.notReadyDraining);
      if (state.readiness !== undefined) await checkInTime(state.readiness, state.readinessTimeout);
      if (state.draining) throw new HttpNotReadyError(HttpMessages.notReadyDraining);
      return okBody;
    }
  }
  return BalancerController;
}

/** Runs the check, bounded in time; any failure becomes an `HttpNotReadyError` whose cause only the log sees. */
async function checkInTime(readiness: HttpReadiness, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([readiness.check().then(() => "ready" as const), timeout]);
    if (outcome === "timeout") throw new HttpNotReadyError(HttpMessages.notReadyTimeout(timeoutMs));
  } catch (error) {
    if (error instanceof HttpNotReadyError) throw error;
    throw new HttpNotReadyError(HttpMessages.notReadyCheckFailed, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
