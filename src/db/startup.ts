/**
 * Start-up for people: progress lines they can read, and each failure a person can fix (a database
 * that does not answer, a missing database, a port in use, a data directory that cannot be written)
 * answered by one line naming the setting and the fix, instead of a stack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { ConfigError, describeDbUrl, pgbouncerFlag, type Config } from '../config';
import { DatabaseInUseError, DatabaseTopologyError, driverUrl } from './database';
import { MigrationError } from './migrate';
import { writeFatal } from '../fatal-log';
import { explainListenError } from '../port-check';

/** A failure explained for a person: main.ts prints the message alone and exits 1. */
export class StartupError extends Error {
  override name = 'StartupError';
  /** The setting the message names and whose value is the fix (a fatal JSON line carries it). */
  readonly setting?: string;
  constructor(message: string, options: { setting?: string } = {}) {
    super(message);
    if (options.setting) this.setting = options.setting;
  }
}

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  return describeDbUrl(url, 'DATABASE_URL');
}

/** How often the wait for PostgreSQL says it is still waiting. */
const WAIT_PROGRESS_MS = 5_000;

/** PostgreSQL errors that waiting will not fix: wrong database, user or password, or a bad URL. */
// 42704 at connection start: a setting of the startup packet the server does not know (PLANNER_OPTIONS).
const PERMANENT_PG_CODES = new Set(['3D000', '28P01', '28000', '42501', '42704']);

const errorCode = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

/**
 * The PostgreSQL code of a login that PgBouncer refused. PgBouncer answers every refusal with SQLSTATE
 * 08P01 (connection exception: the class a server still starting answers with, which start-up waits
 * for), whether it is a wrong password, an unknown user or database, or a server it cannot reach yet;
 * only its message tells them apart. Without this, a wrong password behind the pooler was waited on
 * for DB_STARTUP_RETRY_MS and then reported as a server that cannot be reached.
 */
function loginCode(error: unknown): string | undefined {
  const code = errorCode(error);
  if (code !== '08P01') return code;
  const message = (error as Error).message ?? '';
  // "no such database: x" (PgBouncer's own), `database "x" does not exist` (the server's, passed on).
  if (/^no such database\b|^database ".*" does not exist/i.test(message)) return '3D000';
  // "password authentication failed", "SASL authentication failed", `"trust" authentication failed`
  // (a user not in auth_file), "no such user", or the server's `role "x" does not exist` passed on;
  // never "server login has been failing, ..." (PgBouncer's own login to the server: its config).
  if (/^\S+ authentication failed|^no such user\b|^role ".*" does not exist/i.test(message)) return '28P01';
  return code;
}

/**
 * Waits until the PostgreSQL server of `url` accepts a connection: a server that starts after this
 * process (containers started together) is retried with backoff (0.25 s doubling up to 5 s) for up
 * to `retryMs`. Answers that waiting cannot fix (no such database, login refused) end it at once.
 * Throws StartupError naming DATABASE_URL and what failed.
 */
export async function waitForPostgres(
  url: string,
  retryMs: number,
  progress: (msg: string) => void,
  {
    variable = 'DATABASE_URL',
    startupParameters = {},
  }: {
    /** The variable that holds `url`, named in messages. */
    variable?: string;
    /** The startup parameters the pool will send: a pooler refusing them is found here, at start. */
    startupParameters?: Record<string, number | string>;
  } = {},
): Promise<void> {
  const started = Date.now();
  const deadline = started + retryMs;
  let delay = 250;
  let told = false;
  let lastTold = 0;
  for (;;) {
    const client = new Client({
      connectionString: driverUrl(url),
      connectionTimeoutMillis: Math.min(5_000, retryMs || 5_000),
      ...startupParameters,
    });
    client.on('error', () => undefined);
    let standby: boolean;
    try {
      await client.connect();
      standby = (await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows[0]!.standby;
      await client.end();
    } catch (error) {
      await client.end().catch(() => undefined);
      const code = loginCode(error);
      if (
        (code && PERMANENT_PG_CODES.has(code)) ||
        refusedStartupParameter(error) ||
        tlsRefused(error) ||
        passwordMissing(error)
      ) {
        throw explainPostgresError(error, url, variable);
      }
      if (Date.now() >= deadline) {
        throw new StartupError(
          `Cannot reach the PostgreSQL server of ${variable} (${describeUrl(url)})` +
            (retryMs > 0 ? ` after trying for ${Math.round(retryMs / 1000)} s` : '') +
            `: ${(error as Error).message || code}. ` +
            `Start the server, fix ${variable}, or unset DATABASE_URL to use the embedded database ` +
            '(DB_STARTUP_RETRY_MS sets how long start-up waits).',
          { setting: variable },
        );
      }
      if (!told) {
        progress(`waiting for PostgreSQL at ${describeUrl(url)} (${(error as Error).message || code}); retrying`);
        told = true;
        lastTold = Date.now();
      } else if (Date.now() - lastTold >= WAIT_PROGRESS_MS) {
        // A line every few seconds, so a long wait is never silence.
        const waited = Math.round((Date.now() - started) / 1000);
        progress(
          `still waiting for PostgreSQL at ${describeUrl(url)}: ${waited} s of ${Math.round(retryMs / 1000)} s ` +
            `(DB_STARTUP_RETRY_MS); last error: ${(error as Error).message || code}`,
        );
        lastTold = Date.now();
      }
      // The last wait is cut to the deadline, so the last attempt is made at it.
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
      delay = Math.min(delay * 2, 5_000);
      continue;
    }
    if (told) progress('PostgreSQL answers now');
    if (standby) {
      throw new StartupError(
        `${variable} (${describeUrl(url)}) is a standby (pg_is_in_recovery() is true): writes and migrations fail there. ` +
          `Point ${variable} at the primary` +
          (variable === 'DATABASE_URL' ? ', and list the standby in DATABASE_REPLICA_URLS.' : '.'),
        { setting: variable },
      );
    }
    return;
  }
}

function urlHasParameter(url: string, parameter: string): boolean {
  try {
    return new URL(url).searchParams.has(parameter);
  } catch {
    return false;
  }
}

/**
 * The server asks for a password (SCRAM, PostgreSQL 14's default) and the URL gives none: node-postgres
 * fails on its own side with an error that has no SQLSTATE, which start-up took for a server not up
 * yet (waited DB_STARTUP_RETRY_MS, then "Cannot reach"): a secret left out of a template, for one.
 */
function passwordMissing(error: unknown): boolean {
  return /client password must be a (non-empty )?string/.test((error as Error)?.message ?? '');
}

/** The parameter a pooler refused at connection start (PgBouncer: "unsupported startup parameter: X"). */
function refusedStartupParameter(error: unknown): string | null {
  return /unsupported startup parameter:\s*(\S+)/i.exec((error as Error)?.message ?? '')?.[1] ?? null;
}

/**
 * The TLS that the URL's sslmode asks for failed: the server has none, or its certificate is not
 * trusted. Waiting fixes neither.
 */
function tlsRefused(error: unknown): boolean {
  const code = errorCode(error) ?? '';
  return (
    /does not support SSL/i.test((error as Error)?.message ?? '') ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|^ERR_TLS/.test(code)
  );
}

function explainPostgresError(error: unknown, url: string, variable = 'DATABASE_URL'): StartupError {
  const code = loginCode(error);
  const where = describeUrl(url);
  const message = (error as Error).message;
  if (tlsRefused(error)) {
    return new StartupError(
      `The PostgreSQL server of ${variable} (${where}) cannot give the TLS its sslmode asks for: ${message}. ` +
        'node-postgres takes sslmode=prefer, require and verify-ca as verify-full (TLS with a trusted certificate, ' +
        `or no connection): enable TLS on the server with a certificate this machine trusts, or set sslmode=disable in ${variable}.`,
      { setting: variable },
    );
  }
  if (passwordMissing(error)) {
    return new StartupError(
      `The PostgreSQL server of ${variable} (${where}) asks for a password, and ${variable} has none. ` +
        `Put the role's password in ${variable} (postgresql://user:password@host:5432/db, URL-encoded).`,
      { setting: variable },
    );
  }
  const parameter = refusedStartupParameter(error);
  if (parameter && variable === 'DATABASE_DIRECT_URL') {
    return new StartupError(
      `The server of DATABASE_DIRECT_URL (${where}) refused the startup parameter ${parameter}: it is a pooler ` +
        '(PgBouncer). DATABASE_DIRECT_URL must reach the primary itself, not the pooler: LISTEN (subscription events, ' +
        'API-key revocations) and the migration lock need a session of their own. Point it at the PostgreSQL server.',
      { setting: variable },
    );
  }
  if (parameter && pgbouncerFlag(url) && urlHasParameter(url, parameter)) {
    // With ?pgbouncer=true the gateway sends no startup parameter of its own: this one is the URL's.
    return new StartupError(
      `The server of ${variable} (${where}) refused the startup parameter ${parameter}, which ${variable} itself ` +
        `carries: it is a pooler (PgBouncer) that does not accept it. Remove ${parameter} from ${variable} ` +
        `(set what it sets on the role instead: ALTER ROLE ... SET ...), or add ${parameter} to ` +
        'ignore_startup_parameters in pgbouncer.ini.',
      { setting: variable },
    );
  }
  if (parameter) {
    return new StartupError(
      `The server of ${variable} (${where}) refused the startup parameter ${parameter}: it is a pooler (PgBouncer) that ` +
        `does not accept it. Add ?pgbouncer=true to ${variable} (the gateway then sends no startup parameters), ` +
        `or add ${parameter} to ignore_startup_parameters in pgbouncer.ini.`,
      { setting: variable },
    );
  }
  if (code === '42704') {
    // The gateway's own setting (PLANNER_OPTIONS), or one of the URL's `options`, which replace it.
    const ours = message.includes('enable_memoize');
    return new StartupError(
      `The PostgreSQL server of ${variable} (${where}) does not know a setting its sessions start with: ${message}. ` +
        (ours
          ? 'The gateway needs PostgreSQL 14 or later (docs/postgres-topologies.md).'
          : `Fix the options parameter of ${variable}.`),
      { setting: variable },
    );
  }
  if (code === '3D000') {
    const name = (() => {
      try {
        return decodeURIComponent(new URL(url).pathname.slice(1));
      } catch {
        return '';
      }
    })();
    return new StartupError(
      `The database of ${variable} (${where}) does not exist: ${message}. ` +
        `Create it (createdb ${name || '<name>'}, or CREATE DATABASE "${name || '<name>'}") or fix ${variable}.`,
      { setting: variable },
    );
  }
  return new StartupError(
    `PostgreSQL refused the connection of ${variable} (${where}): ${message}. Fix the user, password or grants in ${variable}.`,
    { setting: variable },
  );
}

/** Errors of the file system that a person fixes with permissions or another directory. */
const FILE_ACCESS_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC']);

/**
 * Checks that the embedded database's directory (and its lock file beside it) can be created and
 * written, so that a bad PGLITE_DATA_DIR is one clear line, not PGlite's "failed to initialize".
 */
export function checkDataDirWritable(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
    fs.accessSync(path.dirname(dataDir), fs.constants.W_OK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST' || (code === 'ENOTDIR' && isFile(dataDir))) {
      throw new StartupError(
        `PGLITE_DATA_DIR (${dataDir}) names a file, not a directory. ` +
          'Set PGLITE_DATA_DIR to a directory (it is created when missing), or move the file away.',
        { setting: 'PGLITE_DATA_DIR' },
      );
    }
    if (code && FILE_ACCESS_CODES.has(code)) {
      throw new StartupError(
        `Cannot write the embedded database directory ${dataDir} (PGLITE_DATA_DIR): ${code}. ` +
          'Make it (and its parent, which holds the lock file) writable by this user, or set PGLITE_DATA_DIR to a writable directory.',
        { setting: 'PGLITE_DATA_DIR' },
      );
    }
    throw error;
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export { checkPortFree } from '../port-check';

/**
 * PGlite failing to open an existing directory (its errors are bare: `ErrnoError { errno: 44 }`,
 * "PGlite failed to initialize properly"): most often a first start that was interrupted.
 */
export function explainPgliteFailure(error: unknown, dataDir: string | null): unknown {
  if (!dataDir || error instanceof DatabaseInUseError || error instanceof StartupError) return error;
  const detail = error instanceof Error ? error.message : String((error as { name?: string })?.name ?? error);
  return new StartupError(
    `The embedded database in ${dataDir} (PGLITE_DATA_DIR) could not be opened (${detail}); ` +
      'it may be damaged, e.g. by a first start that was interrupted. Move the directory away to start afresh, ' +
      'or set PGLITE_DATA_DIR to another directory.',
    { setting: 'PGLITE_DATA_DIR' },
  );
}

/** Whether the embedded database in `dataDir` still has to be created (first start). */
export function pgliteIsNew(dataDir: string): boolean {
  return !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
}

/**
 * The one line for an error that stopped the start, or null for an unexpected one (printed in full,
 * with its stack, because nobody knows its fix yet).
 */
export function explainStartupError(
  error: unknown,
  config?: Pick<Config, 'host' | 'port' | 'database' | 'metrics'>,
): string | null {
  if (
    error instanceof ConfigError ||
    error instanceof DatabaseInUseError ||
    error instanceof DatabaseTopologyError ||
    error instanceof StartupError ||
    error instanceof MigrationError
  ) {
    return error.message;
  }
  const code = errorCode(error);
  const listenProblem = config ? explainListenError(error, config) : null;
  if (listenProblem) return listenProblem.message;
  if (code && FILE_ACCESS_CODES.has(code) && config?.database.kind === 'pglite' && config.database.dataDir) {
    return (
      `Cannot write the embedded database directory ${config.database.dataDir} (PGLITE_DATA_DIR): ${(error as Error).message}. ` +
      'Make it writable by this user, or set PGLITE_DATA_DIR to a writable directory.'
    );
  }
  if (config?.database.kind === 'postgres' && code && /^[0-9A-Z]{5}$/.test(code)) {
    return explainPostgresError(error, config.database.url).message;
  }
  return null;
}

/** The setting an explained error names (for the JSON line's `setting` field). */
function settingOf(
  error: unknown,
  config?: Pick<Config, 'host' | 'port' | 'database' | 'metrics'>,
): string | undefined {
  if (error instanceof StartupError) return error.setting;
  const listenProblem = config ? explainListenError(error, config) : null;
  if (listenProblem) return listenProblem.setting;
  if (error instanceof DatabaseInUseError) return 'PGLITE_DATA_DIR';
  if (error instanceof DatabaseTopologyError) return error.setting;
  const code = errorCode(error);
  if (code && FILE_ACCESS_CODES.has(code) && config?.database.kind === 'pglite') return 'PGLITE_DATA_DIR';
  if (config?.database.kind === 'postgres' && code && /^[0-9A-Z]{5}$/.test(code)) return 'DATABASE_URL';
  return undefined;
}

/**
 * Writes why the start failed to stderr (src/fatal-log.ts: one line per problem, JSON in
 * production), the failures a person can fix explained by explainStartupError. `what` names the
 * process in the line of an unexplained failure ("petstore gateway", "migrate").
 */
export function reportStartupFailure(
  error: unknown,
  config?: Pick<Config, 'host' | 'port' | 'database' | 'metrics'>,
  options: { what?: string; env?: NodeJS.ProcessEnv } = {},
): void {
  writeFatal(
    error,
    (e) => {
      const message = explainStartupError(e, config);
      return message === null ? null : { message, setting: settingOf(e, config) };
    },
    options,
  );
}
