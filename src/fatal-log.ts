/**
 * The lines a process writes when it cannot start (the server, the primary of its workers, the
 * migrate command): one line a person can act on per problem, each invalid variable of a
 * ConfigError its own line. JSON in production, like every other line, so that a log pipeline reads
 * why the process stopped; plain text for a person at a terminal otherwise. Kept free of the
 * server's modules: the cluster primary (src/cluster.ts) loads this and the configuration only.
 */
import { pino } from 'pino';
import { ConfigError } from './config';

/** One fatal line: what a person reads, and the setting it names when one is the fix. */
export interface FatalLine {
  message: string;
  setting?: string;
}

/**
 * Whether fatal lines are JSON: in production (unless LOG_FORMAT=pretty) and wherever
 * LOG_FORMAT=json. Read from the environment: the configuration itself may be what failed.
 */
export function fatalLinesAreJson(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.LOG_FORMAT === 'json') return true;
  return env.NODE_ENV === 'production' && env.LOG_FORMAT !== 'pretty';
}

/**
 * Writes why the start failed to stderr and returns (the caller exits 1). A ConfigError is one line
 * per invalid variable; `explain` turns the other failures a person can fix into one line (null for
 * one nobody explained yet, written as `<what> could not start: <error>`, its stack following at
 * LOG_LEVEL=debug in plain text and always in the JSON line's `err`). JSON lines have pino's shape:
 * `level` 60, `time`, `pid`, `hostname`, `msg`, and `setting` when one is named.
 */
export function writeFatal(
  error: unknown,
  explain: (error: unknown) => FatalLine | null = () => null,
  { what = 'petstore gateway', env = process.env }: { what?: string; env?: NodeJS.ProcessEnv } = {},
): void {
  const lines: FatalLine[] =
    error instanceof ConfigError
      ? error.issues.map((i) => ({ message: `Invalid configuration: ${i.setting}: ${i.message}`, setting: i.setting }))
      : [explain(error)].filter((l): l is FatalLine => l !== null);
  const unexplained = `${what} could not start: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  if (fatalLinesAreJson(env)) {
    // Synchronous: the caller exits right after.
    const log = pino({ level: 'fatal' }, pino.destination({ dest: 2, sync: true }));
    if (lines.length) for (const line of lines) log.fatal(line.setting ? { setting: line.setting } : {}, line.message);
    else log.fatal({ err: error }, unexplained);
    return;
  }
  if (error instanceof ConfigError) console.error(error.message);
  else if (lines.length) for (const line of lines) console.error(line.message);
  else {
    console.error(unexplained);
    if (/^(debug|trace)$/i.test(env.LOG_LEVEL ?? '')) console.error(error);
    else console.error('(run with LOG_LEVEL=debug for the details)');
  }
}

/**
 * A progress line of a command (the migrate command's "applying migration 2 of 7"), on stderr: JSON
 * at info level where fatal lines are JSON (production), so that its log is one format; plain text
 * for a person at a terminal otherwise.
 */
export function writeProgress(message: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!fatalLinesAreJson(env)) {
    console.error(message);
    return;
  }
  progressLog ??= pino({ level: 'info' }, pino.destination({ dest: 2, sync: true }));
  progressLog.info(message);
}

let progressLog: ReturnType<typeof pino> | undefined;

/**
 * Node's process warnings of a command (node-postgres' on sslmode=require: nine plain lines on
 * stderr) as one line of its log: JSON at warn level where fatal lines are JSON (production), as the
 * server logs them (src/server.ts); Node's own plain text otherwise.
 */
export function logWarningsAsLines(env: NodeJS.ProcessEnv = process.env): void {
  if (!fatalLinesAreJson(env)) return;
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    warningLog ??= pino({ level: 'warn' }, pino.destination({ dest: 2, sync: true }));
    warningLog.warn({ warning: { name: warning.name, code: warning.code } }, warning.message);
  });
}

let warningLog: ReturnType<typeof pino> | undefined;
