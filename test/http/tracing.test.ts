/**
 * OpenTelemetry traces (README, "Operations"): a real server process configured by the standard
 * OTEL_* variables exports to a local OTLP/HTTP receiver (JSON encoding) run by the test.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { adminKeyFor, runScript, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';
import { pollUntil } from '../helpers/poll';

/** Waits (up to `withinMs`) until `done` holds; the assertions after it say what was missing. */
const poll = (done: () => boolean, withinMs = 20_000) =>
  pollUntil(
    async () => done(),
    (v) => v,
    withinMs,
  );

jest.setTimeout(120_000);

const NESTED = 'query Nested { pets(first: 5) { edges { node { name category { name } inventory { quantity } } } } }';

describe('traces exported to an OTLP/HTTP collector', () => {
  let receiver: OtlpReceiver;
  let server: ServerProcess | undefined;
  let env: Record<string, string>;
  let auth: Record<string, string>;
  let petId: string;
  let cleanup: () => Promise<void> = async () => undefined;

  const post = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${server!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth, ...headers },
      body: JSON.stringify({ query }),
    }).then(async (r) => (await r.json()) as { data?: any; errors?: unknown[] });

  /** The spans of one trace, once its server span (the last to end) has arrived. */
  const traceOf = async (traceId: string): Promise<ReceivedSpan[]> => {
    await poll(() => receiver.spans.some((s) => s.traceId === traceId && s.kind === 2));
    return receiver.spans.filter((s) => s.traceId === traceId);
  };
  const statementOf = (s: ReceivedSpan) => String(s.attributes['db.query.text'] ?? '');
  const descendants = (spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] => {
    const below = spans.filter((s) => s.parentSpanId === root.spanId);
    return below.flatMap((s) => [s, ...descendants(spans, s)]);
  };

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'petstore-under-test',
      // Export every 100 ms instead of every 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    if (usingPostgres()) {
      const database = await createPostgresDatabase();
      env.DATABASE_URL = database.url;
      cleanup = database.drop;
    } else {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-traces-'));
      env.PGLITE_DATA_DIR = dataDir;
      cleanup = async () => fs.rmSync(dataDir, { recursive: true, force: true });
    }
    auth = await adminKeyFor(env);
    server = await startServerProcess(env);
    const category = await post('mutation { createCategory(input: { name: "Traced" }) { id } }');
    const categoryId = category.data.createCategory.id as string;
    for (const name of ['Rex', 'Tom']) {
      const pet = await post(`mutation { createPet(input: { name: "${name}", categoryId: "${categoryId}" }) { id } }`);
      expect(pet.errors).toBeUndefined();
      petId = pet.data.createPet.id as string;
    }
  });

  afterAll(async () => {
    await server?.stop();
    await receiver.close();
    await cleanup();
  });

  it("continues the caller's trace: server span, GraphQL operation span, SQL spans under it, ids in the logs", async () => {
    const traceId = crypto.randomBytes(16).toString('hex');
    const callerSpanId = crypto.randomBytes(8).toString('hex');
    const requestId = `trace-test-${crypto.randomBytes(4).toString('hex')}`;
    const result = await post(NESTED, { traceparent: `00-${traceId}-${callerSpanId}-01`, 'x-request-id': requestId });
    expect(result.errors).toBeUndefined();
    expect(result.data.pets.edges.length).toBeGreaterThanOrEqual(2);

    const spans = await traceOf(traceId);
    // Every span carries the caller's trace id, and the service's name.
    expect(spans.every((s) => s.resource['service.name'] === 'petstore-under-test')).toBe(true);

    // The server span is the child of the caller's span, named by the route pattern.
    const serverSpans = spans.filter((s) => s.kind === 2);
    expect(serverSpans).toHaveLength(1);
    const serverSpan = serverSpans[0]!;
    expect(serverSpan.parentSpanId).toBe(callerSpanId);
    expect(serverSpan.name).toBe('POST /graphql');
    expect(serverSpan.attributes['http.route']).toBe('/graphql');

    // The GraphQL operation span under it: name, type, document hash (SHA-256 of the query, as APQ).
    const operation = spans.find((s) => s.parentSpanId === serverSpan.spanId && s.name === 'query Nested');
    expect(operation).toBeDefined();
    expect(operation!.attributes).toMatchObject({
      'graphql.operation.name': 'Nested',
      'graphql.operation.type': 'query',
      'graphql.document.hash': crypto.createHash('sha256').update(NESTED).digest('hex'),
    });

    // The SQL statements under the operation: the page of pets, then one batch per relation.
    const sql = descendants(spans, operation!).filter((s) => s.name.startsWith('pg.query'));
    const statements = sql.map(statementOf);
    expect(statements.some((t) => /\bpets?\b/i.test(t))).toBe(true);
    expect(statements.some((t) => /categor/i.test(t))).toBe(true);
    expect(statements.some((t) => /inventor/i.test(t))).toBe(true);
    expect(sql.every((s) => s.kind === 3 && s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    // On PostgreSQL each statement names the pool it ran on (primary, replica-N: docs/postgres-topologies.md).
    if (usingPostgres()) expect(sql.map((s) => s.attributes['db.pool'])).toEqual(sql.map(() => 'primary'));
    // No resolver spans unless asked for (GRAPHQL_RESOLVER_SPANS).
    expect(spans.filter((s) => s.name.startsWith('resolve '))).toEqual([]);

    // Every log line of the request carries the trace id and a span id next to its request id.
    await poll(() => server!.output.some((l) => l.includes(requestId)), 5_000);
    const lines = server!.output.map((l) => JSON.parse(l)).filter((l) => l.reqId === requestId);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) {
      expect(line.trace_id).toBe(traceId);
      expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('starts a new trace for a request without traceparent, and records a failed operation as an error', async () => {
    const requestId = `trace-test-${crypto.randomBytes(4).toString('hex')}`;
    const result = await post('query Broken { pet(id: "1") { nope } }', { 'x-request-id': requestId });
    expect(result.errors).toHaveLength(1);
    await poll(() => server!.output.some((l) => l.includes(requestId) && l.includes('trace_id')), 5_000);
    const traceId = server!.output.map((l) => JSON.parse(l)).find((l) => l.reqId === requestId).trace_id as string;
    const spans = await traceOf(traceId);
    const serverSpan = spans.find((s) => s.kind === 2)!;
    expect(serverSpan.parentSpanId).toBe('');
    const operation = spans.find((s) => s.parentSpanId === serverSpan.spanId)!;
    // Refused by validation: no operation name is known, the codes are recorded, the status is an error.
    expect(operation.name).toBe('graphql');
    expect(operation.attributes['graphql.error.codes']).toEqual(['VALIDATION_FAILED']);
    expect(operation.status.code).toBe(2);
  });

  it('keeps credentials in the query string out of the server span, as out of the logs', async () => {
    const traceId = crypto.randomBytes(16).toString('hex');
    const secret = `s3cr3t-${crypto.randomBytes(6).toString('hex')}`;
    const query = encodeURIComponent('{ pets(first: 1) { edges { node { id } } } }');
    const response = await fetch(
      `${server!.url}/graphql?query=${query}&access_token=${secret}&x_api_key=${secret}&refreshToken=${secret}`,
      { headers: { traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01` } },
    );
    expect(response.status).toBe(200);
    const spans = await traceOf(traceId);
    const serverSpan = spans.find((s) => s.kind === 2)!;
    expect(String(serverSpan.attributes['url.query'])).toContain('access_token=');
    expect(JSON.stringify(spans)).not.toContain(secret);
  });

  it('names the operation of a request refused by a request step (the plugins after the steps still run)', async () => {
    // Refused in didResolveOperation by the scope check, one of the service's request steps
    // (src/common/graphql/request-steps.ts); the tracing plugin comes after the steps' plugin and
    // names the span in the same hook, so the refusal must not stop Apollo before it.
    const traceId = crypto.randomBytes(16).toString('hex');
    // Anonymous: without the suite's key.
    const response = await fetch(`${server!.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({ query: `mutation Refused { deletePet(id: "${petId}") { id } }` }),
    });
    const result = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    const spans = await traceOf(traceId);
    const operation = spans.find((s) => s.name === 'mutation Refused');
    expect(operation?.attributes['graphql.operation.type']).toBe('mutation');
    expect(operation?.attributes['graphql.error.codes']).toEqual(['UNAUTHENTICATED']);
    expect(operation?.status.code).toBe(2);
  });

  it("traces a write's transaction and its statements under the mutation", async () => {
    const traceId = crypto.randomBytes(16).toString('hex');
    const result = await post(
      // updatePet runs an interactive transaction (the store writes are single SQL-function calls).
      `mutation Restock { updatePet(id: "${petId}", input: { name: "Traced" }) { name } }`,
      {
        traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01`,
      },
    );
    expect(result.errors).toBeUndefined();
    const spans = await traceOf(traceId);
    const operation = spans.find((s) => s.name === 'mutation Restock')!;
    const below = descendants(spans, operation);
    const texts = below.filter((s) => s.name.startsWith('pg.query')).map(statementOf);
    expect(texts.some((t) => /UPDATE/i.test(t))).toBe(true);
    if (usingPostgres()) {
      // Prisma's driver adapter runs the transaction on a pg client: BEGIN ... COMMIT are statements.
      expect(texts.some((t) => /^BEGIN/i.test(t))).toBe(true);
      expect(texts.some((t) => /^COMMIT/i.test(t))).toBe(true);
    } else {
      // PGlite: one span for the transaction, its statements under it.
      const transaction = below.find((s) => s.name === 'pg.transaction');
      expect(transaction).toBeDefined();
      expect(descendants(spans, transaction!).some((s) => /UPDATE/i.test(statementOf(s)))).toBe(true);
    }
  });

  it('adds a span per resolver call when GRAPHQL_RESOLVER_SPANS=true', async () => {
    await server!.stop();
    server = await startServerProcess({ ...env, GRAPHQL_RESOLVER_SPANS: 'true' });
    const traceId = crypto.randomBytes(16).toString('hex');
    const result = await post(NESTED, { traceparent: `00-${traceId}-${crypto.randomBytes(8).toString('hex')}-01` });
    expect(result.errors).toBeUndefined();
    const spans = await traceOf(traceId);
    const operation = spans.find((s) => s.name === 'query Nested')!;
    const resolvers = descendants(spans, operation).filter((s) => s.name.startsWith('resolve '));
    expect(resolvers.map((s) => s.name)).toContain('resolve Query.pets');
    const category = resolvers.filter((s) => s.name === 'resolve Pet.category');
    expect(category.length).toBe(result.data.pets.edges.length);
    expect(category.map((s) => s.attributes['graphql.field.path'])).toContain('pets.edges.0.node.category');
  });
});

describe('tracing off', () => {
  it('loads no OpenTelemetry SDK module when no OTEL_* variable asks for tracing', () => {
    // The built service's first import and its app, in a fresh process with an empty environment.
    const script = `
      require('./dist/src/telemetry/preload.js');
      require('./dist/src/app.js');
      const loaded = Object.keys(require.cache).filter((k) => k.includes('@opentelemetry'))
        .map((k) => k.split('node_modules/')[1].split('/').slice(0, 2).join('/'));
      process.stdout.write(JSON.stringify([...new Set(loaded)]));`;
    const root = path.resolve(__dirname, '..', '..');
    const run = spawnSync(process.execPath, ['-e', script], {
      cwd: root,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    // The API alone (a few kB of no-op tracer, which prom-client loads too); no SDK, no instrumentation.
    expect(JSON.parse(run.stdout)).toEqual(['@opentelemetry/api']);
  });
});

describe('a collector that accepts connections and never answers', () => {
  it('does not hold a graceful stop: exit 0 well within SHUTDOWN_TIMEOUT_MS, the lost spans said', async () => {
    const sockets = new Set<net.Socket>();
    const collector = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as net.AddressInfo;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-traces-hung-'));
    try {
      const server = await startServerProcess({
        PGLITE_DATA_DIR: dataDir,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect((await fetch(`${server.url}/graphql?query=%7B__typename%7D`)).status).toBe(200);
      const started = Date.now();
      // SHUTDOWN_TIMEOUT_MS is 10 s by default: the exporter's own timeout (10 s) ran past it.
      expect(await server.stop()).toBe(0);
      expect(Date.now() - started).toBeLessThan(8000);
      const lines = server.output.map((l) => JSON.parse(l) as { msg: string });
      expect(lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining(['stopped', 'traces not exported: the collector did not answer in time']),
      );
      expect(lines.map((l) => l.msg)).not.toContainEqual(expect.stringMatching(/killed by timeout/));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => collector.close(resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('OTEL_* values the SDK would have ignored', () => {
  it('stop the start with one line naming each variable, exit 1', async () => {
    const result = await runScript('src/main.js', [], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http',
      OTEL_TRACES_SAMPLER: 'ratio',
      OTEL_TRACES_SAMPLER_ARG: '10%',
      OTEL_TRACES_EXPORTER: 'otlp,jaeger',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration:',
      '  OTEL_EXPORTER_OTLP_ENDPOINT: must be an http(s) URL of an OTLP collector, e.g. http://collector:4318',
      '  OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/protobuf, http/json, grpc',
      expect.stringMatching(/^ {2}OTEL_TRACES_SAMPLER: must be one of always_on, .*parentbased_traceidratio$/),
      '  OTEL_TRACES_EXPORTER: must be among otlp, zipkin, console, none',
      '  OTEL_TRACES_SAMPLER_ARG: must be the ratio of traces sampled, from 0 to 1 (0.1 for 10 %), not "10%"',
    ]);
  });
});
