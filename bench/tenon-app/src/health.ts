import { Get, HttpController, Uri } from "tenon/http";

/** S1: a constant JSON answer (and the route the harness polls for start-up). */
@Uri("/health")
export class HealthController<C> extends HttpController<C> {
  @Get()
  health(): { status: string } {
    return { status: "ok" };
  }
}
