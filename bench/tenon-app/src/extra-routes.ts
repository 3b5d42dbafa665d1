import { Get, HttpController, type HttpServer, Uri } from "tenon/http";

/** S7: registers `count` more controllers, `/r<i>/?` each, to see that route resolution stays flat. */
export function registerExtraRoutes<C>(server: HttpServer<C>, count: number): void {
  for (let i = 0; i < count; i++) {
    @Uri(`/r${i}`)
    class RouteController extends HttpController<C> {
      @Get("?")
      get(id: number): { route: number; id: number } {
        return { route: i, id };
      }
    }
    server.registerController(RouteController);
  }
}
