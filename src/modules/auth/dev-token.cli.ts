/**
 * `npm run token -- SUBJECT [--scopes a,b] [--ttl SECONDS]`: prints a development access token for
 * SUBJECT alone on the last line (dev-token.ts, docs/identity.md). A server trusts it when it runs
 * with AUTH_DEV_TOKENS=true (never in production). Without --scopes the token is a customer's.
 */
import { ConfigError, DEV_TOKEN_AUDIENCE, loadConfig, readEnvFile } from '../../config';
import { DEV_TOKEN_ISSUER, loadOrCreateDevKey, signDevToken } from './dev-token';
import { subjectRefusal } from './access-token';
import { SCOPES, type Scope } from '../../common/scopes';
import { parseCliArgs, UsageError } from '../../common/cli-args';

const USAGE = `usage: npm run token -- SUBJECT [--scopes SCOPE[,SCOPE...]] [--ttl SECONDS]
  prints a development access token for SUBJECT (a customer unless --scopes grants staff scopes)
  the server must run with AUTH_DEV_TOKENS=true (refused in production)
scopes: ${SCOPES.join(', ')}`;

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseCliArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { scopes: { type: 'string' }, ttl: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    },
    USAGE,
  );
  if (values.help || positionals.length !== 1 || !positionals[0]) throw new UsageError(USAGE);
  // A token every server would refuse (401) is not printed.
  const refused = subjectRefusal(DEV_TOKEN_ISSUER, positionals[0]);
  if (refused) throw new UsageError(`SUBJECT ${refused}\n${USAGE}`);
  const scopes = (values.scopes ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown scope(s) ${unknown.join(', ')}\n${USAGE}`);
  const ttl = values.ttl === undefined ? 3600 : Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 30 * 86_400)
    throw new UsageError(`--ttl must be a whole number of seconds from 1 to 2592000\n${USAGE}`);
  readEnvFile();
  // AUTH_DEV_TOKENS is read so that production refuses here as the server does; the key is made
  // whether or not it is on, so a token can be printed before the server is (re)started with it.
  const config = loadConfig({ AUTH_DEV_TOKENS: 'true', ...process.env });
  const keyFile = config.auth.dev!.keyFile;
  const audience = config.auth.jwt?.audience ?? config.auth.dev?.audience ?? DEV_TOKEN_AUDIENCE;
  const key = await loadOrCreateDevKey(keyFile);
  const token = await signDevToken(key, {
    subject: positionals[0],
    audience,
    scopes: scopes as Scope[],
    ttlSeconds: ttl,
  });
  console.log(
    `development token for "${positionals[0]}" (${scopes.length ? `scopes ${scopes.join(', ')}` : 'a customer'}), valid ${ttl} s`,
  );
  if (!config.auth.dev || process.env.AUTH_DEV_TOKENS === undefined)
    console.log('the server trusts it when started with AUTH_DEV_TOKENS=true');
  console.log(token);
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const known = error instanceof UsageError || error instanceof ConfigError;
  console.error(known ? (error as Error).message : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
