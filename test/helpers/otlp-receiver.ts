/**
 * A local OTLP/HTTP trace receiver: OTLP over HTTP with JSON encoding
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) is plain HTTP POSTs to /v1/traces, so no collector binary
 * is needed. Collects every span it receives, flattened.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

function valueOf(v: AnyValue): unknown {
  if (v.arrayValue) return v.arrayValue.values.map(valueOf);
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans?: {
            resource?: { attributes?: KeyValue[] };
            scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: KeyValue[] })[] }[];
          }[];
        };
        for (const rs of payload.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                ...s,
                parentSpanId: s.parentSpanId ?? '',
                attributes: attributesOf(s.attributes),
                status: s.status ?? {},
                resource,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
