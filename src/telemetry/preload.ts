/**
 * Starts the OpenTelemetry SDK when the OTEL_* variables ask for tracing (tracing.ts), before the
 * modules it instruments (node:http, pg) are loaded: it is the first import of main.ts, and can be
 * preloaded instead (`node -r ./dist/src/telemetry/preload.js dist/src/main.js`). When tracing is
 * not asked for, the SDK is not even loaded (no cost at all).
 *
 * Everything else comes from the standard variables, read by the SDK itself:
 * OTEL_EXPORTER_OTLP_ENDPOINT / _PROTOCOL (http/protobuf by default, http/json, grpc),
 * OTEL_TRACES_EXPORTER (otlp, console, ...), OTEL_TRACES_SAMPLER / _ARG, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_PROPAGATORS (W3C tracecontext and baggage by default), ...
 * This process exports traces only: Prometheus metrics are served by prom-client (metrics.ts), so
 * OTEL_METRICS_EXPORTER and OTEL_LOGS_EXPORTER default to `none` here.
 */
import { readEnvFile } from '../config';
import { poolNameOf } from '../db/pool-names';
import { redactUrl } from '../common/redact-url';
import { markTracingStarted, tracingEnabled, tracingRequested } from './tracing';

/** OTEL_* may come from `.env` (main.ts reads it too, and reports a bad ENV_FILE). */
function envFileRead(): void {
  try {
    readEnvFile();
  } catch {
    // main.ts reports it
  }
}

envFileRead();
if (!tracingEnabled() && tracingRequested(process.env)) {
  process.env.OTEL_SERVICE_NAME ??= 'petstore-gateway';
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  // Loaded here only, when tracing is on: the SDK and its exporters are tens of modules.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const probes = new Set(['/healthz', '/readyz']);
  const sdk = new NodeSDK({
    instrumentations: [
      // The server span of every request (W3C traceparent taken from the request), and the client
      // span of outgoing HTTP calls (traceparent passed on). Health probes are not traced: a load
      // balancer polling every second would bury every other trace.
      // `url.query` gets the values of credential-like parameters (`access_token`, `api_key`, ...)
      // redacted as in the request log line (http/request-log.ts), not only the SDK's short list.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => probes.has(req.url ?? ''),
        startIncomingSpanHook: (req) => {
          const url = req.url ?? '';
          const q = url.indexOf('?');
          return q === -1 ? {} : { 'url.query': redactUrl(url).slice(q + 1) };
        },
      }),
      // A span per SQL statement on PostgreSQL (the SQL reader and Prisma's driver adapter both use
      // pg); BEGIN/COMMIT/ROLLBACK of transactions are statements too. Without a parent span (the
      // LISTEN connection, pool housekeeping) nothing is recorded. Pool checkouts and connects get
      // no spans (one or two more per statement, for little: waiting for the pool is a metric).
      // `db.pool` names the pool a statement ran on (primary, replica-N: db/pool-names.ts).
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        ignoreConnectSpans: true,
        requestHook: (span, info) => {
          const pool = poolNameOf(info.connection);
          if (pool) span.setAttribute('db.pool', pool);
        },
      }),
    ],
  });
  sdk.start();
  // main.ts flushes what is buffered at the end of a graceful stop (shutdownTracing).
  markTracingStarted(() => sdk.shutdown());
}
