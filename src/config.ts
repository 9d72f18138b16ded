/**
 * Configuration: the environment, read once at start, validated, and turned into a typed object.
 * A bad value stops the process with a message naming the variable (docs/configuration.md).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import net from 'node:net';
import { z } from 'zod';
import { SCOPES, type Scope } from './common/scopes';

/** The project root (where package.json is), whether we run from `src/` (tests) or `dist/src/`. */
export const projectRoot: string = (() => {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${__dirname}`);
    dir = parent;
  }
  return dir;
})();

/** true/false, 1/0, yes/no, in any case (`TRUE`, `Yes`: what other tools and templates write). */
const bool = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * A whole number in [min, max]. An empty value (what `${VAR}` in a compose file or a template gives
 * for an unset variable) is refused like any other bad value: coerced, it was 0, which turns many
 * settings off (REQUEST_TIMEOUT_MS, SUBSCRIPTION_KEEPALIVE_MS) or PORT to a random port. Any other bad
 * value is one issue saying what the setting takes: zod's own checks said `expected number, received
 * NaN` for `PORT=abc`, and two issues (one of them about 2^53) for a value past the safe integers.
 */
const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .min(1, { message: 'is empty: give a whole number, or unset it for its default' })
    .transform((value, ctx) => {
      const n = Number(value);
      if (Number.isInteger(n) && n >= min && n <= max) return n;
      ctx.addIssue({
        code: 'custom',
        message: `must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    });

/** What `request.ip` is taken from (docs/deployment.md#behind-a-load-balancer); see `trustProxy` below. */
export type TrustProxy = false | number | string[];

/** The address names proxy-addr (Fastify's trustProxy) knows, besides addresses and CIDR ranges. */
const PROXY_ADDRESS_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY (issue 28, item 4): `false` (the default: the socket's address is the client's), a
 * number of hops (the client is the address that many proxies back, counted from the right of
 * `X-Forwarded-For`), or a comma-separated list of proxy addresses/CIDR ranges (the client is the
 * first address from the right that is not one of them). `true` means 1 hop: it used to mean "trust
 * every entry", which lets a client name any address by sending its own `X-Forwarded-For`, since a
 * load balancer appends to what the client sent rather than replacing it.
 */
const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const v = value.trim().toLowerCase();
  if (['false', 'no', '0', ''].includes(v)) return false;
  if (['true', 'yes'].includes(v)) return 1;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops <= 32) return hops;
  }
  const entries = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => {
    if (PROXY_ADDRESS_NAMES.has(e)) return false;
    const [address, prefix, ...rest] = e.split('/');
    const family = net.isIP(address ?? '');
    if (family === 0 || rest.length > 0) return true;
    if (prefix === undefined) return false;
    return !/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128);
  });
  if (entries.length === 0 || bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be false, true (one proxy), a number of proxy hops (0-32), or a comma-separated list of proxy ' +
        `addresses and CIDR ranges (loopback, linklocal, uniquelocal allowed)${bad.length ? `; not understood: ${bad.join(', ')}` : ''}`,
    });
    return z.NEVER;
  }
  return entries;
});

/** An ISO 8601 date (`2027-07-01`, midnight UTC) or date-time with an offset, to whole seconds. */
const instant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: 'must be an ISO 8601 date (2027-07-01) or date-time with offset (2027-07-01T00:00:00Z)',
  })
  .transform((v) => new Date(Math.floor(Date.parse(v) / 1000) * 1000));

/** A URI reference for a Link header: absolute (https://...) or from the root (/docs...). */
const linkTarget = z
  .string()
  .regex(/^(https?:\/\/[^\s<>"]+|\/[^\s<>"]*)$/, 'must be an http(s) URL or a path starting with /');

/** `*`, or a comma-separated list of origins (scheme://host[:port]); empty means no cross-origin access. */
const origins = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every((o) => o === '*' || (/^https?:\/\/[^/\s]+$/.test(o) && URL.canParse(o))), {
    message: 'must be * or comma-separated origins like https://app.example.com (no path, no trailing slash)',
  })
  .refine((list) => !list.includes('*') || list.length === 1, { message: '* cannot be combined with origins' })
  // As a browser serialises its origin (a lowercase host, no default port), which is what is compared:
  // `https://App.Example.com:443` would otherwise never match the `https://app.example.com` it means.
  .transform((list) => list.map((o) => (o === '*' ? o : new URL(o).origin)));

/** The audience of development tokens when AUTH_JWT_AUDIENCE is unset (`npm run token`). */
export const DEV_TOKEN_AUDIENCE = 'petstore';

/** Defaults of the deprecation lifecycle of GET /pets/{petId} (docs/rest.md). */
export const PETS_PATH_DEPRECATION_DEFAULT = '2026-11-01T00:00:00Z';
export const PETS_PATH_SUNSET_DEFAULT = '2027-07-01T00:00:00Z';
export const DEPRECATION_DOCS_URL_DEFAULT = '/docs#/Pets/getPetById';

/** `admin=1000000,orders:write=200000`: a cost budget per scope (docs/cost-limits.md). */
const scopeBudgets = z.string().transform((v, ctx) => {
  const budgets: Partial<Record<Scope, number>> = {};
  for (const item of v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([a-z:]+)=(\d{1,13})$/.exec(item);
    const scope = match?.[1] as Scope | undefined;
    if (!match || !scope || !SCOPES.includes(scope)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" is not scope=points with a scope of ${SCOPES.join(', ')} (e.g. admin=1000000)`,
      });
      return z.NEVER;
    }
    budgets[scope] = Number(match[2]);
  }
  return budgets;
});

/**
 * Whether pg can read `url`: it parses a connection string as a URL (pg-connection-string, which first
 * encodes spaces and stray `%`, and allows `user@/db`, no host), so a user name or password holding `#`,
 * `/`, `?` or `[` unencoded, or a port past 65535, failed the start with "could not start: TypeError:
 * Invalid URL" once the database was opened. The value is never echoed: it may hold a password.
 */
function pgReadsUrl(url: string): boolean {
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url;
  return URL.canParse(text, 'postgres://base') || URL.canParse(text.replace('@/', '@___DUMMY___/'), 'postgres://base');
}
const NOT_A_PG_URL =
  'is not a URL (percent-encode # / ? @ [ in the user name and password: # as %23, / as %2F; a port is at most 65535)';

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: int(0, 65535).default(4000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL (leave it unset for the embedded database)')
      .refine(pgReadsUrl, NOT_A_PG_URL)
      .optional(),
    // Production topologies (docs/postgres-topologies.md): a pooler in front of the primary, a direct
    // session for LISTEN and migrations, read replicas.
    DATABASE_DIRECT_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL of the primary, not through a pooler')
      .refine(pgReadsUrl, NOT_A_PG_URL)
      .optional(),
    DATABASE_REPLICA_URLS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((u) => u.trim())
          .filter(Boolean),
      )
      .refine((list) => list.every((u) => /^postgres(ql)?:\/\//.test(u)), {
        message: 'must be comma-separated postgresql:// URLs of streaming replicas',
      })
      .refine((list) => list.every(pgReadsUrl), NOT_A_PG_URL)
      .optional(),
    DB_READ_YOUR_WRITES_MS: int(0, 3_600_000).default(5_000),
    DB_REPLICA_CHECK_MS: int(100, 600_000).default(1_000),
    PGLITE_DATA_DIR: z.string().min(1).default('./data'),
    DB_POOL_SIZE: int(1, 200).default(10),
    DB_STARTUP_RETRY_MS: int(0, 3_600_000).default(30_000),
    EXPLORER: z.enum(['sandbox', 'graphiql', 'off']).optional(),
    // Bounds on every wait for PostgreSQL (docs/operations.md).
    DB_CONNECT_TIMEOUT_MS: int(100, 600_000).default(5_000),
    DB_STATEMENT_TIMEOUT_MS: int(100, 3_600_000).default(15_000),
    READINESS_TIMEOUT_MS: int(100, 60_000).default(2_000),
    GRAPHQL_LANDING_PAGE: bool.optional(),
    GRAPHQL_INTROSPECTION: bool.optional(),
    GRAPHQL_JIT: bool.default(true),
    // A Federation v2 subgraph on /graphql: `_service` and `_entities` (docs/federation.md).
    GRAPHQL_FEDERATION: bool.default(false),
    // Operations in one batched request (a JSON array); 1 turns batching off (docs/clients.md).
    GRAPHQL_BATCH_MAX: int(1, 100).default(10),
    SHUTDOWN_TIMEOUT_MS: int(100, 600_000).default(10_000),
    TRUST_PROXY: trustProxy.default(false),
    // Limits (docs/keys-scopes-limits.md).
    BODY_LIMIT_BYTES: int(1024, 100 * 1024 * 1024).default(1024 * 1024),
    REQUEST_TIMEOUT_MS: int(0, 600_000).default(30_000),
    GRAPHQL_MAX_DEPTH: int(1, 100).default(10),
    GRAPHQL_MAX_ALIASES: int(0, 1000).default(15),
    GRAPHQL_MAX_DIRECTIVES: int(0, 1000).default(50),
    GRAPHQL_MAX_TOKENS: int(10, 100_000).default(1000),
    GRAPHQL_MAX_COST: int(1, 10_000_000).default(20_000),
    GRAPHQL_MAX_INPUT_DEPTH: int(1, 1000).default(32),
    RATE_LIMIT_MAX: int(1, 10_000_000).default(300),
    RATE_LIMIT_WINDOW_MS: int(100, 86_400_000).default(60_000),
    // Points per window per caller (docs/cost-limits.md); unset: requests are counted, not costs.
    RATE_LIMIT_COST_BUDGET: int(1, 1_000_000_000_000).optional(),
    RATE_LIMIT_COST_BUDGET_BY_SCOPE: scopeBudgets.optional(),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL (leave it unset for in-memory counters)')
      .optional(),
    RATE_LIMIT_REDIS_PREFIX: z.string().min(1).max(100).default('petstore-rl:'),
    API_KEY_CACHE_TTL_MS: int(0, 86_400_000).default(60_000),
    // Access tokens from an OpenID Connect provider (docs/identity.md); unset: API keys only.
    AUTH_JWT_ISSUER: z.url({ protocol: /^https?$/, error: 'must be the issuer URL (https://...)' }).optional(),
    AUTH_JWT_AUDIENCE: z.string().min(1).optional(),
    AUTH_JWT_JWKS_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    AUTH_JWT_CLOCK_TOLERANCE_S: int(0, 300).default(30),
    AUTH_JWT_FETCH_TIMEOUT_MS: int(100, 30_000).default(3_000),
    AUTH_JWKS_COOLDOWN_MS: int(0, 3_600_000).default(30_000),
    // Development tokens (`npm run token`), trusted outside production only.
    AUTH_DEV_TOKENS: bool.default(false),
    AUTH_DEV_KEY_FILE: z.string().min(1).default('dev-token-key.json'),
    SECURITY_HEADERS: bool.default(true),
    PETS_PATH_DEPRECATION_DATE: instant.default(new Date(PETS_PATH_DEPRECATION_DEFAULT)),
    PETS_PATH_SUNSET_DATE: instant.default(new Date(PETS_PATH_SUNSET_DEFAULT)),
    DEPRECATION_DOCS_URL: linkTarget.default(DEPRECATION_DOCS_URL_DEFAULT),
    CORS_ORIGINS: origins.default([]),
    // GraphQL subscriptions over WebSocket (docs/subscriptions.md).
    SUBSCRIPTIONS_PER_CONNECTION: int(1, 1000).default(20),
    SUBSCRIPTION_CONNECTIONS_PER_KEY: int(1, 1_000_000).default(50),
    SUBSCRIPTION_CONNECTIONS_PER_ADDRESS: int(1, 1_000_000).default(100),
    SUBSCRIPTION_KEEPALIVE_MS: int(0, 600_000).default(12_000),
    SUBSCRIPTION_BUFFERED_EVENTS: int(1, 100_000).default(100),
    SUBSCRIPTION_MAX_BUFFERED_BYTES: int(16 * 1024, 256 * 1024 * 1024).default(1024 * 1024),
    SUBSCRIPTION_MESSAGE_MAX_BYTES: int(1024, 100 * 1024 * 1024).default(64 * 1024),
    // Observability (docs/operations.md).
    METRICS_PORT: int(0, 65535).default(0),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    METRICS_MAX_OPERATION_NAMES: int(1, 10_000).default(100),
    GRAPHQL_RESOLVER_SPANS: bool.default(false),
    // Trusted documents (docs/trusted-documents.md).
    TRUSTED_DOCUMENTS: z.enum(['off', 'allow', 'enforce']).default('off'),
    TRUSTED_DOCUMENTS_FILE: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .optional(),
    // The older name of CACHE_PUBLIC_MAX_AGE_S (trusted documents had their own): still read.
    TRUSTED_DOCUMENTS_CACHE_MAX_AGE_S: int(0, 31_536_000).optional(),
    // HTTP caching and the response cache (docs/caching.md).
    CACHE_PUBLIC_MAX_AGE_S: int(0, 31_536_000).optional(),
    RESPONSE_CACHE_TTL_S: int(0, 86_400).default(0),
    RESPONSE_CACHE_MAX_BYTES: int(1024 * 1024, 16 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
    RESPONSE_CACHE_REDIS_PREFIX: z.string().min(1).max(100).default('petstore-rc:'),
    // Deployment (docs/deployment.md): worker processes on one port, migrations as their own step.
    WEB_CONCURRENCY: z
      .string()
      .regex(
        /^(auto|[1-9]\d{0,3})$/,
        'must be a number of worker processes (1, 2, ...) or auto (one per CPU available)',
      )
      .optional(),
    MIGRATE_ON_START: bool.default(true),
    // The V8 old generation's growth between collections (src/heap.ts, docs/deployment.md "Memory").
    HEAP_GROWING_PERCENT: int(0, 300).default(50),
    // V8's allocation-site pretenuring (src/heap.ts): off unless asked for.
    HEAP_PRETENURING: bool.default(false),
  })
  .refine((e) => e.PETS_PATH_SUNSET_DATE > e.PETS_PATH_DEPRECATION_DATE, {
    path: ['PETS_PATH_SUNSET_DATE'],
    message: 'must be later than PETS_PATH_DEPRECATION_DATE',
  })
  .refine((e) => e.DATABASE_URL || (!e.DATABASE_DIRECT_URL && !e.DATABASE_REPLICA_URLS?.length), {
    path: ['DATABASE_URL'],
    message: 'must be set when DATABASE_DIRECT_URL or DATABASE_REPLICA_URLS is (they belong to a PostgreSQL server)',
  })
  .refine((e) => e.TRUSTED_DOCUMENTS === 'off' || (e.TRUSTED_DOCUMENTS_FILE?.length ?? 0) > 0, {
    path: ['TRUSTED_DOCUMENTS_FILE'],
    message: 'is required when TRUSTED_DOCUMENTS is allow or enforce (one or more manifest paths, comma-separated)',
  })
  .refine((e) => e.RATE_LIMIT_COST_BUDGET === undefined || e.RATE_LIMIT_COST_BUDGET >= e.GRAPHQL_MAX_COST, {
    path: ['RATE_LIMIT_COST_BUDGET'],
    message: 'must be at least GRAPHQL_MAX_COST: an operation the cost limit lets through must fit in a fresh window',
  })
  .refine(
    (e) =>
      e.RATE_LIMIT_COST_BUDGET_BY_SCOPE === undefined ||
      (e.RATE_LIMIT_COST_BUDGET !== undefined &&
        Object.values(e.RATE_LIMIT_COST_BUDGET_BY_SCOPE).every((n) => n >= e.GRAPHQL_MAX_COST)),
    {
      path: ['RATE_LIMIT_COST_BUDGET_BY_SCOPE'],
      message: 'needs RATE_LIMIT_COST_BUDGET, and every budget must be at least GRAPHQL_MAX_COST',
    },
  )
  .refine((e) => e.DATABASE_URL || e.WEB_CONCURRENCY === undefined || e.WEB_CONCURRENCY === '1', {
    path: ['WEB_CONCURRENCY'],
    message:
      'needs DATABASE_URL (PostgreSQL): the embedded database is opened by one process only; unset WEB_CONCURRENCY or set it to 1',
  })
  .refine((e) => e.METRICS_PORT === 0 || e.METRICS_PORT !== e.PORT, {
    path: ['METRICS_PORT'],
    message: 'must differ from PORT: metrics are never served on the public port',
  })
  .refine((e) => !e.AUTH_JWT_ISSUER === !e.AUTH_JWT_AUDIENCE, {
    path: ['AUTH_JWT_AUDIENCE'],
    message: 'AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE go together (the audience your provider puts in access tokens)',
  })
  .refine((e) => !e.AUTH_JWT_JWKS_URL || e.AUTH_JWT_ISSUER, {
    path: ['AUTH_JWT_JWKS_URL'],
    message: 'needs AUTH_JWT_ISSUER',
  })
  .refine((e) => !(e.AUTH_DEV_TOKENS && e.NODE_ENV === 'production'), {
    path: ['AUTH_DEV_TOKENS'],
    message:
      'must not be on in production: anyone holding the development key (a file on this machine) could sign in as anyone',
  });

export interface AuthConfig {
  /** An OpenID Connect provider's access tokens (AUTH_JWT_*); null: none. */
  jwt: {
    issuer: string;
    audience: string;
    /** The JWKS's URL; null: found through `<issuer>/.well-known/openid-configuration`. */
    jwksUrl: string | null;
    clockToleranceS: number;
    /** Longest wait for the provider (discovery, JWKS). */
    fetchTimeoutMs: number;
    /** Least time between two JWKS fetches (an unknown `kid` refetches at most this often). */
    cooldownMs: number;
  } | null;
  /** Development tokens (`npm run token`), signed by the key in `keyFile`; null: not trusted. */
  dev: { keyFile: string; audience: string } | null;
}

export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string | null }
  | {
      kind: 'postgres';
      url: string;
      poolSize: number;
      /**
       * Longest wait for a pooled connection (a free one, or a new one to be opened), and for any
       * one statement (and for an open transaction to send its next one); the defaults of
       * DB_CONNECT_TIMEOUT_MS / DB_STATEMENT_TIMEOUT_MS when absent.
       */
      connectTimeoutMs?: number;
      statementTimeoutMs?: number;
      /**
       * DATABASE_URL goes through a transaction-mode pooler (`?pgbouncer=true`, Prisma's convention):
       * no named prepared statements, no startup parameters, no session state between transactions.
       */
      pgbouncer?: boolean;
      /** The primary itself, not pooled (DATABASE_DIRECT_URL): LISTEN and migrations use it. */
      directUrl?: string;
      /** Streaming replicas (DATABASE_REPLICA_URLS): reads go there (src/db/read-routing.ts). */
      replicaUrls?: string[];
      /** After a caller writes, its reads go to the primary for this long (DB_READ_YOUR_WRITES_MS). */
      readYourWritesMs?: number;
      /** How often each replica is checked; one that fails is out until a check succeeds (DB_REPLICA_CHECK_MS). */
      replicaCheckMs?: number;
    };

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
  /** `pretty`: coloured, one readable line per event (development); `json`: pino's JSON lines. */
  logFormat: 'pretty' | 'json';
  database: DatabaseConfig;
  /** How long start-up keeps retrying a PostgreSQL server that does not answer yet; 0: no retry. */
  databaseStartupRetryMs: number;
  graphql: {
    /**
     * What a browser gets at GET /graphql (graphql/explorer.ts): Apollo Sandbox, falling back to the
     * bundled GraphiQL when the Sandbox cannot load (`sandbox`); the bundled GraphiQL only
     * (`graphiql`); or nothing (`off`).
     */
    explorer: Explorer;
    /** The explorer is on (`explorer !== 'off'`). */
    landingPage: boolean;
    introspection: boolean;
    /** Execute with graphql-jit (compiled operations, cached) instead of graphql-js (jit-gateway.ts). */
    jit: boolean;
    /**
     * Serve a Federation v2 subgraph (`_service`, `_entities`, src/schema/federation.ts); off: the
     * schema is exactly schema.graphql.
     */
    federation: boolean;
    /** Most operations in one batched request; 1 refuses batches (src/policy/batching.ts). */
    batchMax: number;
  };
  shutdownTimeoutMs: number;
  /** How long /readyz waits for the database before answering 503. */
  readinessTimeoutMs: number;
  /**
   * Which `X-Forwarded-*` entries to believe (Fastify's `trustProxy`): false (none), a number of proxy
   * hops in front of the gateway, or a list of proxy addresses and CIDR ranges.
   */
  trustProxy: TrustProxy;
  limits: {
    bodyBytes: number;
    /** Time to receive a whole request (Fastify `requestTimeout`); 0 turns it off. */
    requestTimeoutMs: number;
    depth: number;
    aliases: number;
    directives: number;
    tokens: number;
    cost: number;
    /** Deepest nesting of objects and lists in variables (and any JSON input), checked before anything walks them. */
    inputDepth: number;
  };
  rateLimit: {
    max: number;
    windowMs: number;
    redisUrl: string | null;
    redisPrefix: string;
    /**
     * GraphQL operations charged their cost against a budget of points per window (src/graphql/
     * cost-budget.ts); null: only requests are counted. A caller gets the largest budget among
     * `points` and those of its scopes in `byScope`.
     */
    costBudget: { points: number; byScope: Partial<Record<Scope, number>> } | null;
  };
  /**
   * The in-process cache of authenticated API keys (src/modules/auth/api-key.cache.ts): the longest
   * an entry is used without reading the key again; 0 turns the cache off.
   */
  apiKeys: { cacheTtlMs: number };
  /** Who may sign in with an access token (docs/identity.md, src/modules/auth/access-token.ts). */
  auth: AuthConfig;
  securityHeaders: boolean;
  rest: RestConfig;
  /** Origins allowed to call from a browser (CORS): `'*'`, a list, or none (an empty list). */
  cors: { origins: '*' | string[] };
  /** GraphQL subscriptions over WebSocket (src/subscriptions/subscriptions.ts). */
  subscriptions: {
    perConnection: number;
    connectionsPerKey: number;
    connectionsPerAddress: number;
    /** Interval of WebSocket pings; a peer that does not answer within one more is dropped. 0: off. */
    keepAliveMs: number;
    /** Events held for one subscription whose client reads too slowly; beyond it, the connection is closed. */
    bufferedEvents: number;
    /** Bytes a connection may have waiting to be sent (every message, pongs included); beyond it, closed (1013). */
    maxBufferedBytes: number;
    /**
     * The largest message a client may send (1009 beyond). Its own bound, not BODY_LIMIT_BYTES: a
     * subscription holds its subscribe message (variables and all) for as long as it is open.
     */
    maxMessageBytes: number;
    /**
     * Whether a browser page whose Origin is the request's own Host may connect without being listed
     * in CORS_ORIGINS: outside production only (the Host header is the client's to choose: DNS rebinding).
     */
    sameHostOrigin: boolean;
  };
  /**
   * Prometheus metrics on a port of their own (src/telemetry/metrics.ts); `port` 0 means off.
   * `maxOperationNames`: distinct GraphQL operation names kept as labels before `__other`.
   */
  metrics: { port: number; host: string; maxOperationNames: number };
  /** Tracing (OTEL_* variables, src/telemetry/tracing.ts): a span per field resolver when true. */
  tracing: { resolverSpans: boolean };
  /**
   * Trusted documents (src/policy/trusted-documents.ts): `off`, `allow` (listed documents skip
   * parsing, validation and the cost check; others run as usual) or `enforce` (others are refused,
   * except for `admin` keys). `files`: manifests, absolute paths. Their answers' cache headers are
   * every read's (`cache`, below).
   */
  trustedDocuments: { mode: TrustedDocumentsMode; files: string[] };
  /**
   * HTTP caching of GraphQL reads and the response cache (src/graphql/response-cache.ts):
   * `publicMaxAgeS` the max-age of anonymous public reads (0: `no-cache`), `responseTtlS` the
   * response cache's entry lifetime (0: off), `maxBytes` its in-process bound, `redisPrefix` its
   * keys' prefix in Redis (REDIS_URL).
   */
  cache: { publicMaxAgeS: number; responseTtlS: number; maxBytes: number; redisPrefix: string };
  /**
   * Worker processes serving the one port (WEB_CONCURRENCY; `auto`: one per CPU available); more
   * than 1 runs src/cluster.ts's primary, which forks them. Always 1 on the embedded database.
   */
  workers: number;
  /**
   * Apply pending migrations at start (MIGRATE_ON_START, default true). false: start-up never
   * changes the schema, and refuses to start while migrations are pending (src/db/open.ts).
   */
  migrateOnStart: boolean;
  /**
   * How far V8 lets the old generation grow past what a full collection left live before the next
   * one, in percent (HEAP_GROWING_PERCENT, default 50); 0: V8's own heuristics (src/heap.ts).
   */
  heapGrowingPercent: number;
  /**
   * V8's allocation-site pretenuring (HEAP_PRETENURING, default false): off, objects are born young
   * whatever their allocation site did before (src/heap.ts).
   */
  heapPretenuring: boolean;
  /**
   * Settings of an earlier release that this one no longer reads, found set: each is named in a
   * warning at start (REMOVED_SETTINGS), so an environment carried over an upgrade is not silently
   * half-ignored.
   */
  removedSettings: ConfigIssue[];
}

/**
 * Variables earlier releases read and this one does not, with what took their place. Set, they
 * change nothing: the start warns, naming each (src/server.ts, src/cluster.ts).
 */
export const REMOVED_SETTINGS: Readonly<Record<string, string>> = {
  GRAPHQL_READ_PLANNER:
    'is no longer read (removed): every read goes through the read compiler, with no other read path to ' +
    'switch to (docs/read-compiler.md); remove it from the environment',
};

export type TrustedDocumentsMode = 'off' | 'allow' | 'enforce';

/** The legacy REST paths: the deprecation lifecycle of GET /pets/{petId}. */
export interface RestConfig {
  petsPath: {
    /** Sent as `Deprecation: @<unix seconds>` (RFC 9745). */
    deprecatedAt: Date;
    /** Sent as `Sunset: <HTTP-date>` (RFC 8594); from this instant on the path answers 410 GONE. */
    sunsetAt: Date;
    /** Target of `Link: <...>; rel="deprecation"`: where a person reads about the deprecation. */
    docsUrl: string;
  };
}

export type Explorer = 'sandbox' | 'graphiql' | 'off';

/** One invalid variable: its name and what is wrong with it. */
/**
 * Names each removed setting found set in a warning: once per start, by the process that starts
 * (the primary of WEB_CONCURRENCY workers, src/cluster.ts, or the one process, src/server.ts).
 */
export function warnRemovedSettings(
  config: Pick<Config, 'removedSettings'>,
  log: { warn(fields: object, message: string): void },
): void {
  for (const { setting, message } of config.removedSettings) log.warn({ setting }, `${setting} ${message}`);
}

export interface ConfigIssue {
  setting: string;
  message: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** Each invalid variable, for one fatal line each (src/startup.ts). */
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  ${i.setting}: ${i.message}`).join('\n')}`);
    this.issues = issues;
  }
}

/**
 * Reads `.env` into `process.env` when the file exists (`ENV_FILE` names another file), before the
 * configuration is read: variables already set in the environment win. Under `NODE_ENV=test` only
 * an explicit `ENV_FILE` is read, so a developer's `.env` never changes what the tests run against.
 * Returns the file read, if any.
 */
export function readEnvFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const explicit = env.ENV_FILE;
  if (explicit === '' || (explicit === undefined && env.NODE_ENV === 'test')) return null;
  const file = path.resolve(projectRoot, explicit ?? '.env');
  if (!fs.existsSync(file)) {
    if (explicit) throw new ConfigError([{ setting: 'ENV_FILE', message: `${file} does not exist` }]);
    return null;
  }
  // Node's own parser (Node >= 20.12); it leaves variables that are already set alone. A directory
  // or an unreadable file named ENV_FILE (or `.env`) is a setting to fix, not a TypeError or EACCES.
  if (fs.statSync(file).isDirectory())
    throw new ConfigError([{ setting: 'ENV_FILE', message: `${file} is a directory, not a file of NAME=value lines` }]);
  try {
    process.loadEnvFile(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError([{ setting: 'ENV_FILE', message: `${file} could not be read (${reason})` }]);
  }
  return file;
}

/** Query parameters of a PostgreSQL URL that carry a secret (node-postgres and libpq read them). */
const SECRET_URL_PARAMS = ['password', 'sslpassword'];

/** A database URL without its password (in the user part or as `?password=`), for messages and logs. */
export function describeDbUrl(url: string, fallback = '(not a URL)'): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const name of SECRET_URL_PARAMS) if (u.searchParams.has(name)) u.searchParams.set(name, '***');
    return u.toString();
  } catch {
    return fallback;
  }
}

/** `?pgbouncer=true` on a PostgreSQL URL (Prisma's convention for a transaction-mode pooler). */
export function pgbouncerFlag(url: string): boolean {
  try {
    return new URL(url).searchParams.get('pgbouncer') === 'true';
  } catch {
    return false;
  }
}

/** The environment as validated (envSchema's output). */
type Env = z.output<typeof envSchema>;

/**
 * The explorer at GET /graphql. Sandbox and introspection help developers; in production they are
 * off unless asked for. GRAPHQL_LANDING_PAGE (the older setting) still works: false is `off`, true is `sandbox`.
 */
function explorerOf(e: Env, production: boolean): Explorer {
  return (
    e.EXPLORER ??
    (e.GRAPHQL_LANDING_PAGE === undefined
      ? production
        ? 'off'
        : 'sandbox'
      : e.GRAPHQL_LANDING_PAGE
        ? 'sandbox'
        : 'off')
  );
}

/** PostgreSQL when DATABASE_URL is set (with its pooler, direct URL and replicas), PGlite otherwise. */
function databaseConfig(e: Env): DatabaseConfig {
  return e.DATABASE_URL
    ? {
        kind: 'postgres',
        url: e.DATABASE_URL,
        poolSize: e.DB_POOL_SIZE,
        connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
        pgbouncer: pgbouncerFlag(e.DATABASE_URL),
        ...(e.DATABASE_DIRECT_URL ? { directUrl: e.DATABASE_DIRECT_URL } : {}),
        ...(e.DATABASE_REPLICA_URLS?.length ? { replicaUrls: e.DATABASE_REPLICA_URLS } : {}),
        readYourWritesMs: e.DB_READ_YOUR_WRITES_MS,
        replicaCheckMs: e.DB_REPLICA_CHECK_MS,
      }
    : { kind: 'pglite', dataDir: path.resolve(projectRoot, e.PGLITE_DATA_DIR) };
}

/** Access tokens: JWTs from an identity provider (AUTH_JWT_*), dev tokens signed locally (AUTH_DEV_TOKENS). */
function authConfig(e: Env): AuthConfig {
  return {
    jwt:
      e.AUTH_JWT_ISSUER && e.AUTH_JWT_AUDIENCE
        ? {
            issuer: e.AUTH_JWT_ISSUER,
            audience: e.AUTH_JWT_AUDIENCE,
            jwksUrl: e.AUTH_JWT_JWKS_URL ?? null,
            clockToleranceS: e.AUTH_JWT_CLOCK_TOLERANCE_S,
            fetchTimeoutMs: e.AUTH_JWT_FETCH_TIMEOUT_MS,
            cooldownMs: e.AUTH_JWKS_COOLDOWN_MS,
          }
        : null,
    dev: e.AUTH_DEV_TOKENS
      ? {
          keyFile: path.resolve(projectRoot, e.AUTH_DEV_KEY_FILE),
          audience: e.AUTH_JWT_AUDIENCE ?? DEV_TOKEN_AUDIENCE,
        }
      : null,
  };
}

/** What the OpenTelemetry SDK takes for the OTEL_* variables whose other values it would ignore. */
const OTEL_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];
const OTEL_CHOICES: Record<string, string[]> = {
  OTEL_EXPORTER_OTLP_PROTOCOL: OTEL_PROTOCOLS,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: OTEL_PROTOCOLS,
  OTEL_TRACES_SAMPLER: [
    'always_on',
    'always_off',
    'traceidratio',
    'parentbased_always_on',
    'parentbased_always_off',
    'parentbased_traceidratio',
  ],
};
const OTEL_TRACES_EXPORTERS = ['otlp', 'zipkin', 'console', 'none'];

/**
 * The OTEL_* variables of tracing (read by the SDK, src/telemetry/preload.ts) that it would take
 * silently when wrong: for a value it does not know it falls back to a default, said only on its
 * diagnostic logger, which is off. `OTEL_TRACES_SAMPLER_ARG=10%` sampled every trace, a mistyped
 * protocol sent protobuf, an endpoint that is not a URL exported nothing; each is refused instead.
 * An empty value is the SDK's unset.
 */
function otelIssues(env: NodeJS.ProcessEnv): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const value = (name: string) => env[name]?.trim() || undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const url = value(name);
    if (url && !/^https?:$/.test(URL.parse(url)?.protocol ?? ''))
      issues.push({
        setting: name,
        message: 'must be an http(s) URL of an OTLP collector, e.g. http://collector:4318',
      });
  }
  for (const [name, choices] of Object.entries(OTEL_CHOICES)) {
    const v = value(name);
    if (v && !choices.includes(v)) issues.push({ setting: name, message: `must be one of ${choices.join(', ')}` });
  }
  const exporters = value('OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((e) => e.trim());
  if (exporters?.some((e) => !OTEL_TRACES_EXPORTERS.includes(e)))
    issues.push({ setting: 'OTEL_TRACES_EXPORTER', message: `must be among ${OTEL_TRACES_EXPORTERS.join(', ')}` });
  const ratio = value('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== undefined && !(Number(ratio) >= 0 && Number(ratio) <= 1))
    issues.push({
      setting: 'OTEL_TRACES_SAMPLER_ARG',
      message: `must be the ratio of traces sampled, from 0 to 1 (0.1 for 10 %), not ${JSON.stringify(ratio)}`,
    });
  return issues;
}

/** Reads and validates the configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const otel = otelIssues(env);
  if (!parsed.success || otel.length) {
    const issues = parsed.success ? [] : parsed.error.issues;
    throw new ConfigError([...issues.map((i) => ({ setting: i.path.join('.'), message: i.message })), ...otel]);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const explorer = explorerOf(e, production);
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    // Readable logs for a person at a terminal in development; JSON lines wherever a machine reads them.
    logFormat: e.LOG_FORMAT ?? (e.NODE_ENV === 'development' && process.stdout.isTTY ? 'pretty' : 'json'),
    database: databaseConfig(e),
    databaseStartupRetryMs: e.DB_STARTUP_RETRY_MS,
    graphql: {
      explorer,
      landingPage: explorer !== 'off',
      introspection: e.GRAPHQL_INTROSPECTION ?? !production,
      jit: e.GRAPHQL_JIT,
      federation: e.GRAPHQL_FEDERATION,
      batchMax: e.GRAPHQL_BATCH_MAX,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    readinessTimeoutMs: e.READINESS_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    limits: {
      bodyBytes: e.BODY_LIMIT_BYTES,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      depth: e.GRAPHQL_MAX_DEPTH,
      aliases: e.GRAPHQL_MAX_ALIASES,
      directives: e.GRAPHQL_MAX_DIRECTIVES,
      tokens: e.GRAPHQL_MAX_TOKENS,
      cost: e.GRAPHQL_MAX_COST,
      inputDepth: e.GRAPHQL_MAX_INPUT_DEPTH,
    },
    rateLimit: {
      max: e.RATE_LIMIT_MAX,
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      redisUrl: e.REDIS_URL ?? null,
      redisPrefix: e.RATE_LIMIT_REDIS_PREFIX,
      costBudget:
        e.RATE_LIMIT_COST_BUDGET === undefined
          ? null
          : { points: e.RATE_LIMIT_COST_BUDGET, byScope: e.RATE_LIMIT_COST_BUDGET_BY_SCOPE ?? {} },
    },
    apiKeys: { cacheTtlMs: e.API_KEY_CACHE_TTL_MS },
    auth: authConfig(e),
    securityHeaders: e.SECURITY_HEADERS,
    rest: {
      petsPath: {
        deprecatedAt: e.PETS_PATH_DEPRECATION_DATE,
        sunsetAt: e.PETS_PATH_SUNSET_DATE,
        docsUrl: e.DEPRECATION_DOCS_URL,
      },
    },
    cors: { origins: e.CORS_ORIGINS.includes('*') ? '*' : e.CORS_ORIGINS },
    subscriptions: {
      perConnection: e.SUBSCRIPTIONS_PER_CONNECTION,
      connectionsPerKey: e.SUBSCRIPTION_CONNECTIONS_PER_KEY,
      connectionsPerAddress: e.SUBSCRIPTION_CONNECTIONS_PER_ADDRESS,
      keepAliveMs: e.SUBSCRIPTION_KEEPALIVE_MS,
      bufferedEvents: e.SUBSCRIPTION_BUFFERED_EVENTS,
      maxBufferedBytes: e.SUBSCRIPTION_MAX_BUFFERED_BYTES,
      maxMessageBytes: e.SUBSCRIPTION_MESSAGE_MAX_BYTES,
      sameHostOrigin: !production,
    },
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST, maxOperationNames: e.METRICS_MAX_OPERATION_NAMES },
    tracing: { resolverSpans: e.GRAPHQL_RESOLVER_SPANS },
    trustedDocuments: {
      mode: e.TRUSTED_DOCUMENTS,
      files: (e.TRUSTED_DOCUMENTS_FILE ?? []).map((f) => path.resolve(projectRoot, f)),
    },
    cache: {
      // One setting for every public read; the trusted documents' older name still sets it.
      publicMaxAgeS: e.CACHE_PUBLIC_MAX_AGE_S ?? e.TRUSTED_DOCUMENTS_CACHE_MAX_AGE_S ?? 0,
      responseTtlS: e.RESPONSE_CACHE_TTL_S,
      maxBytes: e.RESPONSE_CACHE_MAX_BYTES,
      redisPrefix: e.RESPONSE_CACHE_REDIS_PREFIX,
    },
    workers: workerCount(e.WEB_CONCURRENCY),
    migrateOnStart: e.MIGRATE_ON_START,
    heapGrowingPercent: e.HEAP_GROWING_PERCENT,
    heapPretenuring: e.HEAP_PRETENURING,
    removedSettings: Object.entries(REMOVED_SETTINGS)
      .filter(([setting]) => env[setting] !== undefined)
      .map(([setting, message]) => ({ setting, message })),
  };
}

/** WEB_CONCURRENCY as a number of processes: unset is 1, `auto` the CPUs this process may use. */
function workerCount(value: string | undefined): number {
  if (value === undefined) return 1;
  return value === 'auto' ? Math.max(1, os.availableParallelism()) : Number(value);
}
