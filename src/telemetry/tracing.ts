/**
 * Whether tracing is on, decided once by the preload (preload.ts), and the small helpers the rest of
 * the service uses to add its own spans. This file loads only @opentelemetry/api (a few kB, no SDK):
 * with tracing off every helper here is a no-op the callers skip entirely.
 */
import { context, trace, type Span, type Tracer } from '@opentelemetry/api';

let started = false;
let shutdown: (() => Promise<void>) | null = null;

/**
 * Tracing is asked for when the OTEL_* variables name where spans go: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an exporter
 * (`OTEL_TRACES_EXPORTER`, other than `none`). `OTEL_SDK_DISABLED=true` turns it off whatever else
 * is set. Variables that only shape tracing (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, ...) do not
 * turn it on by themselves.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Called by the preload once the SDK has started; `stop` flushes and stops it. */
export function markTracingStarted(stop: () => Promise<void>): void {
  started = true;
  shutdown = stop;
}

/**
 * Exports the spans still buffered and stops the SDK (at the end of a graceful stop), waiting at most
 * `withinMs`: a collector that accepts the connection and never answers held the stop for the
 * exporter's own 10 s, past SHUTDOWN_TIMEOUT_MS, so a clean stop exited 1 ("killed by timeout").
 * Resolves with whether the spans went out in time.
 */
export async function shutdownTracing(withinMs: number): Promise<boolean> {
  const stop = shutdown;
  shutdown = null;
  if (!stop) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, withinMs));
    timer.unref();
  });
  try {
    return await Promise.race([
      stop().then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the SDK runs in this process (the preload started it). */
export function tracingEnabled(): boolean {
  return started;
}

export function tracer(): Tracer {
  return trace.getTracer('petstore-gateway');
}

/** The trace and span ids of the active span, for log lines (pino `mixin`). */
export function traceIds(): { trace_id: string; span_id: string } | Record<string, never> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Runs `fn` inside a new active span, ended (with the error recorded) when its promise settles. */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number>,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
      throw error;
    } finally {
      span.end();
    }
  });
}
