/**
 * `npm run apikey -- <command>`: manages API keys in the configured database (embedded or PostgreSQL).
 *
 *   create --name NAME --scopes a,b   prints the new key alone on the last line (shown only once)
 *   list                              id, name, key prefix, scopes, created, last used, revoked
 *   revoke ID                         takes effect on the next request, in every running server
 *
 * On the embedded database it takes the data-directory lock like a server does, so beside a running
 * server it stops with a clear message instead of corrupting the data (src/db/database.ts).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config';
import { openDatabase } from '../../db/open';
import { AppError } from '../../errors/app-error';
import { parseId } from '../../common/ids';
import { ApiKeyService, type ApiKeyInfo } from './api-key.service';
import { SCOPES } from './scopes';

const USAGE = `usage: npm run apikey -- create --name NAME --scopes SCOPE[,SCOPE...]
       npm run apikey -- list
       npm run apikey -- revoke ID
scopes: ${SCOPES.join(', ')}`;

class UsageError extends Error {}

const describe = (k: ApiKeyInfo) =>
  [
    k.id.toString(),
    k.name,
    `${k.prefix}...`,
    k.scopes.join(','),
    `created ${k.createdAt.toISOString()}`,
    `last used ${k.lastUsedAt?.toISOString() ?? 'never'}`,
    k.revokedAt ? `REVOKED ${k.revokedAt.toISOString()}` : 'active',
  ].join('\t');

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, scopes: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) throw new UsageError(USAGE);
  if (!['create', 'list', 'revoke'].includes(command)) throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  if (command === 'create' && (!values.name || !values.scopes)) throw new UsageError(`create needs --name and --scopes\n${USAGE}`);
  if (command === 'revoke' && rest.length !== 1) throw new UsageError(`revoke needs one key id\n${USAGE}`);

  const config = loadConfig();
  const db = await openDatabase(config);
  try {
    const keys = new ApiKeyService(db.prisma);
    if (command === 'create') {
      const scopes = values.scopes!.split(',').map((s) => s.trim()).filter(Boolean);
      const { key, info } = await keys.create({ name: values.name!, scopes });
      console.log(`created API key ${info.id} "${info.name}" with scopes ${info.scopes.join(', ')}`);
      console.log('store it now: it is shown only this once (the database keeps only its hash)');
      console.log(key);
    } else if (command === 'list') {
      const all = await keys.list();
      if (all.length === 0) console.log('no API keys');
      for (const k of all) console.log(describe(k));
    } else {
      const info = await keys.revoke(parseId(rest[0], 'ID'));
      console.log(`revoked: ${describe(info)}`);
    }
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const known =
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof AppError ||
    (error instanceof Error && error.name === 'DatabaseInUseError');
  console.error(known ? (error as Error).message : error);
  process.exit(known && error instanceof UsageError ? 2 : 1);
});
