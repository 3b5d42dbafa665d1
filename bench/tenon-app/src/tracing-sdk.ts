// BENCH_TRACING=sdk: tracing measured as a team runs it, with the OpenTelemetry SDK registered (async-hooks
// context, W3C propagation, a batch processor) and an exporter that drops what it is given, so that the
// figure is Tenon's spans and the SDK's bookkeeping, not an exporter's network. The SDK packages are the
// root project's dev dependencies.
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";

/** An exporter that accepts every batch and keeps nothing. */
class DroppingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}

/** Registers the SDK as the process's tracer provider, context manager and propagator. */
export function registerTracingSdk(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DroppingExporter())] }));
}
