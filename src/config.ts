/**
 * Configuration: the environment, read once at start, validated, and turned into a typed object.
 * A bad value stops the process with a message naming the variable (see README, "Configuration").
 */
import path from 'node:path';
import fs from 'node:fs';
import { z } from 'zod';

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

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: int(0, 65535).default(4000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL (leave it unset for the embedded database)')
    .optional(),
  PGLITE_DATA_DIR: z.string().min(1).default('./data'),
  DB_POOL_SIZE: int(1, 200).default(10),
  GRAPHQL_LANDING_PAGE: bool.optional(),
  GRAPHQL_INTROSPECTION: bool.optional(),
  SHUTDOWN_TIMEOUT_MS: int(100, 600_000).default(10_000),
  TRUST_PROXY: bool.default(false),
  // Limits (README, "API keys, scopes and limits").
  BODY_LIMIT_BYTES: int(1024, 100 * 1024 * 1024).default(1024 * 1024),
  REQUEST_TIMEOUT_MS: int(0, 600_000).default(30_000),
  GRAPHQL_MAX_DEPTH: int(1, 100).default(10),
  GRAPHQL_MAX_ALIASES: int(0, 1000).default(15),
  GRAPHQL_MAX_DIRECTIVES: int(0, 1000).default(50),
  GRAPHQL_MAX_TOKENS: int(10, 100_000).default(1000),
  GRAPHQL_MAX_COST: int(1, 10_000_000).default(5000),
  RATE_LIMIT_MAX: int(1, 10_000_000).default(300),
  RATE_LIMIT_WINDOW_MS: int(100, 86_400_000).default(60_000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL (leave it unset for in-memory counters)')
    .optional(),
  RATE_LIMIT_REDIS_PREFIX: z.string().min(1).max(100).default('petstore-rl:'),
  SECURITY_HEADERS: bool.default(true),
});

export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string | null }
  | { kind: 'postgres'; url: string; poolSize: number };

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
  database: DatabaseConfig;
  graphql: { landingPage: boolean; introspection: boolean };
  shutdownTimeoutMs: number;
  trustProxy: boolean;
  limits: {
    bodyBytes: number;
    /** Time to receive a whole request (Fastify `requestTimeout`); 0 turns it off. */
    requestTimeoutMs: number;
    depth: number;
    aliases: number;
    directives: number;
    tokens: number;
    cost: number;
  };
  rateLimit: { max: number; windowMs: number; redisUrl: string | null; redisPrefix: string };
  securityHeaders: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.DB_POOL_SIZE }
      : { kind: 'pglite', dataDir: path.resolve(projectRoot, e.PGLITE_DATA_DIR) },
    // Sandbox and introspection help developers; in production they are off unless asked for.
    graphql: {
      landingPage: e.GRAPHQL_LANDING_PAGE ?? !production,
      introspection: e.GRAPHQL_INTROSPECTION ?? !production,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    limits: {
      bodyBytes: e.BODY_LIMIT_BYTES,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      depth: e.GRAPHQL_MAX_DEPTH,
      aliases: e.GRAPHQL_MAX_ALIASES,
      directives: e.GRAPHQL_MAX_DIRECTIVES,
      tokens: e.GRAPHQL_MAX_TOKENS,
      cost: e.GRAPHQL_MAX_COST,
    },
    rateLimit: {
      max: e.RATE_LIMIT_MAX,
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      redisUrl: e.REDIS_URL ?? null,
      redisPrefix: e.RATE_LIMIT_REDIS_PREFIX,
    },
    securityHeaders: e.SECURITY_HEADERS,
  };
}
