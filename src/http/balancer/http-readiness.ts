/**
 * What `GET <base>/ready` asks before it answers 200 (the balancer routes: docs/http.md). The HTTP core knows nothing
 * of databases: the application, or the ORM side (`DatabaseReadiness` in `tenon/http`'s CRUD part), says
 * whether this process can serve. Set it on `HttpServer.readiness`.
 */
export interface HttpReadiness {
  /**
   * Resolves when this process can serve requests; rejects when it cannot (the database is unreachable, a
   * dependency is missing). The rejection's text never reaches the client: `/ready` answers 503 with a fixed
   * reason, and the error goes to the log writer's `writeError`. A check that takes longer than
   * `HttpServer.readinessTimeout` counts as failed.
   */
  check(): Promise<void>;
}
