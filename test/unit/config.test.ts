import { ConfigError, loadConfig } from '../../src/config';

describe('configuration', () => {
  it('defaults to the embedded database under ./data with Sandbox on in development', () => {
    const config = loadConfig({});
    expect(config.database).toEqual({ kind: 'pglite', dataDir: expect.stringMatching(/[/\\]data$/) });
    expect(config.port).toBe(4000);
    expect(config.graphql).toEqual({
      explorer: 'sandbox',
      landingPage: true,
      introspection: true,
      jit: true,
      federation: false,
      batchMax: 10,
    });
  });

  it('uses PostgreSQL when DATABASE_URL is set, and turns Sandbox off in production unless asked', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://u@h:5432/db',
      GRAPHQL_INTROSPECTION: 'true',
    });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgresql://u@h:5432/db',
      poolSize: 10,
      connectTimeoutMs: 5_000,
      statementTimeoutMs: 15_000,
      pgbouncer: false,
      readYourWritesMs: 5_000,
      replicaCheckMs: 1_000,
    });
    expect(config.graphql).toEqual({
      explorer: 'off',
      landingPage: false,
      introspection: true,
      jit: true,
      federation: false,
      batchMax: 10,
    });
  });

  it('reads the production topology: a pooler, a direct URL, replicas', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://app@pgbouncer:6432/petstore?pgbouncer=true',
      DATABASE_DIRECT_URL: 'postgresql://app@primary:5432/petstore',
      DATABASE_REPLICA_URLS: 'postgresql://app@replica1:5432/petstore, postgresql://app@replica2:5432/petstore',
      DB_READ_YOUR_WRITES_MS: '8000',
    });
    expect(config.database).toMatchObject({
      pgbouncer: true,
      directUrl: 'postgresql://app@primary:5432/petstore',
      replicaUrls: ['postgresql://app@replica1:5432/petstore', 'postgresql://app@replica2:5432/petstore'],
      readYourWritesMs: 8000,
    });
  });

  it('refuses topology variables that are not PostgreSQL URLs, or without DATABASE_URL', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgresql://h/db', DATABASE_REPLICA_URLS: 'postgresql://r/db,mysql://x' }),
    ).toThrow(/DATABASE_REPLICA_URLS: must be comma-separated postgresql:\/\/ URLs/);
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgresql://h/db' })).toThrow(
      /DATABASE_URL: must be set when DATABASE_DIRECT_URL or DATABASE_REPLICA_URLS is/,
    );
  });

  it('picks the explorer with EXPLORER (GRAPHQL_LANDING_PAGE still works)', () => {
    expect(loadConfig({ EXPLORER: 'graphiql' }).graphql).toMatchObject({ explorer: 'graphiql', landingPage: true });
    expect(loadConfig({ EXPLORER: 'off' }).graphql).toMatchObject({ explorer: 'off', landingPage: false });
    expect(loadConfig({ NODE_ENV: 'production', EXPLORER: 'sandbox' }).graphql.explorer).toBe('sandbox');
    expect(loadConfig({ GRAPHQL_LANDING_PAGE: 'false' }).graphql.explorer).toBe('off');
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_LANDING_PAGE: 'true' }).graphql.explorer).toBe('sandbox');
    expect(() => loadConfig({ EXPLORER: 'playground' })).toThrow(/EXPLORER/);
  });

  it('executes with graphql-jit unless GRAPHQL_JIT=false', () => {
    expect(loadConfig({ GRAPHQL_JIT: 'false' }).graphql.jit).toBe(false);
    expect(() => loadConfig({ GRAPHQL_JIT: 'sometimes' })).toThrow(/GRAPHQL_JIT/);
  });

  it('serves a federation subgraph only with GRAPHQL_FEDERATION=true', () => {
    expect(loadConfig({}).graphql.federation).toBe(false);
    expect(loadConfig({ GRAPHQL_FEDERATION: 'true' }).graphql.federation).toBe(true);
    expect(() => loadConfig({ GRAPHQL_FEDERATION: 'v2' })).toThrow(/GRAPHQL_FEDERATION/);
  });

  it('reads booleans in any case, and still refuses what is not one', () => {
    expect(loadConfig({ MIGRATE_ON_START: 'FALSE' }).migrateOnStart).toBe(false);
    expect(loadConfig({ GRAPHQL_JIT: 'No' }).graphql.jit).toBe(false);
    expect(loadConfig({ GRAPHQL_FEDERATION: ' True ' }).graphql.federation).toBe(true);
    expect(() => loadConfig({ MIGRATE_ON_START: 'sometimes' })).toThrow(/MIGRATE_ON_START/);
    expect(() => loadConfig({ MIGRATE_ON_START: '' })).toThrow(/MIGRATE_ON_START/);
  });

  it('refuses an empty number (an unset variable in a template) rather than reading 0', () => {
    for (const name of [
      'PORT',
      'REQUEST_TIMEOUT_MS',
      'SUBSCRIPTION_KEEPALIVE_MS',
      'API_KEY_CACHE_TTL_MS',
      'GRAPHQL_MAX_ALIASES',
    ]) {
      for (const empty of ['', '  ']) {
        expect(() => loadConfig({ [name]: empty })).toThrow(new RegExp(`${name}: is empty`));
      }
    }
    expect(loadConfig({ PORT: ' 4001 ' }).port).toBe(4001);
  });

  it('caches API keys for 60 s unless API_KEY_CACHE_TTL_MS says otherwise (0: no cache)', () => {
    expect(loadConfig({}).apiKeys).toEqual({ cacheTtlMs: 60_000 });
    expect(loadConfig({ API_KEY_CACHE_TTL_MS: '0' }).apiKeys).toEqual({ cacheTtlMs: 0 });
    expect(() => loadConfig({ API_KEY_CACHE_TTL_MS: '-1' })).toThrow(/API_KEY_CACHE_TTL_MS/);
    expect(() => loadConfig({ API_KEY_CACHE_TTL_MS: 'soon' })).toThrow(/API_KEY_CACHE_TTL_MS/);
  });

  it('fixes the heap growing factor at 50 % unless HEAP_GROWING_PERCENT says otherwise (0: V8 decides)', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(50);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '300' }).heapGrowingPercent).toBe(300);
    for (const bad of ['301', '-1', '1.5', 'lots'])
      expect(() => loadConfig({ HEAP_GROWING_PERCENT: bad })).toThrow(/HEAP_GROWING_PERCENT/);
  });

  it("leaves V8's allocation-site pretenuring off unless HEAP_PRETENURING=true", () => {
    expect(loadConfig({}).heapPretenuring).toBe(false);
    expect(loadConfig({ HEAP_PRETENURING: 'true' }).heapPretenuring).toBe(true);
    expect(() => loadConfig({ HEAP_PRETENURING: 'sometimes' })).toThrow(/HEAP_PRETENURING/);
  });

  it('names every bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', GRAPHQL_LANDING_PAGE: 'maybe' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', GRAPHQL_LANDING_PAGE: 'maybe' });
    } catch (error) {
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/DATABASE_URL: must be a postgresql:\/\/ URL/);
      expect((error as Error).message).toMatch(/GRAPHQL_LANDING_PAGE/);
    }
  });

  it('counts requests unless RATE_LIMIT_COST_BUDGET is set, with budgets per scope', () => {
    expect(loadConfig({}).rateLimit.costBudget).toBeNull();
    expect(
      loadConfig({
        RATE_LIMIT_COST_BUDGET: '50000',
        RATE_LIMIT_COST_BUDGET_BY_SCOPE: 'admin=1000000, orders:write=200000',
      }).rateLimit.costBudget,
    ).toEqual({ points: 50000, byScope: { admin: 1000000, 'orders:write': 200000 } });
  });

  it('refuses a cost budget an allowed operation could never fit in, and unknown scopes', () => {
    expect(() => loadConfig({ RATE_LIMIT_COST_BUDGET: '1000' })).toThrow(
      /RATE_LIMIT_COST_BUDGET: must be at least GRAPHQL_MAX_COST/,
    );
    expect(() => loadConfig({ RATE_LIMIT_COST_BUDGET: '50000', RATE_LIMIT_COST_BUDGET_BY_SCOPE: 'root=1' })).toThrow(
      /RATE_LIMIT_COST_BUDGET_BY_SCOPE: "root=1" is not scope=points/,
    );
    expect(() => loadConfig({ RATE_LIMIT_COST_BUDGET_BY_SCOPE: 'admin=100000' })).toThrow(
      /RATE_LIMIT_COST_BUDGET_BY_SCOPE: needs RATE_LIMIT_COST_BUDGET/,
    );
  });
});
