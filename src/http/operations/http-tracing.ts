import type { Context as OtelContext, Span, Tracer } from "@opentelemetry/api";
import type { StatementObserver } from "../../observation/statement-observer.js";
import type { HttpRequest } from "../exchange/http-request.js";
import type { HttpResponse } from "../exchange/http-response.js";
import { statementKindOf } from "./metrics-recorder.js";
import type { RequestObservation } from "../exchange/request-observation.js";

type OtelApi = typeof import("@opentelemetry/api");

/** The name Tenon's tracer is registered under. */
export const tracerName = "tenon";

/** `db.system.name` per engine (OpenTelemetry database semantic conventions). */
const databaseSystems: Readonly<Record<string, string>> = { sqlite: "sqlite", postgres: "postgresql", mariadb: "mariadb" };

/** The header getter of the propagator: the first header of that name, compared without case. */
const headerGetter = {
  keys: (request: HttpRequest): string[] => request.headers.map(([name]) => name.toLowerCase()),
  get: (request: HttpRequest, key: string): string | undefined => request.header(key),
};

/**
 * `@opentelemetry/api`, loaded on first use; undefined when it is not installed (tracing is then a no-op).
 * @internal
 */
export async function loadOpenTelemetry(): Promise<OtelApi | undefined> {
  try {
    return await import("@opentelemetry/api");
  } catch {
    return undefined;
  }
}

/**
 * OpenTelemetry tracing of a server (docs/operations.md): a server span per request, named by method and
 * route template with the stable HTTP semantic-convention attributes, the parent taken from an incoming
 * `traceparent` through the registered propagator; and a client span per SQL statement of a traced request
 * with the database conventions (its text only: parameters are never recorded). Spans go to whatever
 * tracer provider the application registered; without one the API makes them no-ops.
 * @internal
 */
export class HttpTracing implements StatementObserver {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;

  constructor(api: OtelApi) {
    this.#api = api;
    this.#tracer = api.trace.getTracer(tracerName);
  }

  /** Starts the request's server span, a child of the caller's trace when it sent one. */
  begin(observation: RequestObservation, request: HttpRequest): void {
    const api = this.#api;
    const parent = api.propagation.extract(api.ROOT_CONTEXT, request, headerGetter);
    const method = request.method;
    const span = this.#tracer.startSpan(
      method,
      {
        kind: api.SpanKind.SERVER,
        attributes: {
          "http.request.method": method,
          "url.path": request.path,
          "url.scheme": "http",
          "client.address": request.clientIp,
        },
      },
      parent,
    );
    observation.span = api.trace.setSpan(parent, span);
  }

  /** Runs `work` with the request's span as the active one, so that statement spans become its children. */
  run<R>(observation: RequestObservation, work: () => R): R {
    return this.#api.context.with(observation.span as OtelContext, work);
  }

  /** Names the span by its route, records the status, and ends it. */
  end(observation: RequestObservation, request: HttpRequest, response: HttpResponse): void {
    const api = this.#api;
    const span = api.trace.getSpan(observation.span as OtelContext);
    if (span === undefined) return;
    const status = response.statusCode;
    if (observation.route !== "") {
      span.setAttribute("http.route", observation.route);
      span.updateName(`${request.method} ${observation.route}`);
    }
    span.setAttribute("http.response.status_code", status);
    if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end();
  }

  /** @inheritdoc */
  statementStarted(sql: string, system: string): unknown {
    const api = this.#api;
    const active = api.context.active();
    if (api.trace.getSpan(active) === undefined) return undefined;
    const operation = statementKindOf(sql).operation;
    return this.#tracer.startSpan(
      operation ?? "SQL",
      {
        kind: api.SpanKind.CLIENT,
        attributes: {
          "db.system.name": databaseSystems[system] ?? "other_sql",
          ...(operation === undefined ? {} : { "db.operation.name": operation }),
          "db.query.text": sql,
        },
      },
      active,
    );
  }

  /** @inheritdoc */
  statementEnded(token: unknown, error: unknown): void {
    const span = token as Span | undefined;
    if (span === undefined) return;
    if (error !== undefined) {
      span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
      span.setAttribute("error.type", error instanceof Error ? error.constructor.name : "_OTHER");
    }
    span.end();
  }

  /** @inheritdoc */
  retried(): void {}
}
