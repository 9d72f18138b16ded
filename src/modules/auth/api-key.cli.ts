/**
 * `npm run apikey -- <command>`: manages API keys in the configured database (embedded or PostgreSQL).
 *
 *   create --name NAME --scopes a,b   prints the new key alone on the last line (shown only once)
 *   list                              id, name, key prefix, scopes, created, last used, revoked
 *   revoke ID                         every running server refuses the key moments after it commits
 *
 * On the embedded database it takes the data-directory lock like a server does; when a running server
 * holds it, the command goes through that server's local admin socket instead (api-key.socket.ts),
 * so the data is never opened twice and a revocation applies at once. With no server and no lock,
 * it opens the database itself.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import { ConfigError, loadConfig, readEnvFile } from '../../config';
import { DatabaseInUseError } from '../../db/database';
import { openDatabase } from '../../db/open';
import { AppError } from '../../errors/app-error';
import { parseId } from '../../common/ids';
import { runApiKeyCommand, type ApiKeyCommand } from './api-key.commands';
import { ApiKeyService, validateNewKey } from './api-key.service';
import { AdminSocketError, adminSocketPath, sendToAdminSocket } from './api-key.socket';
import { SCOPES } from '../../common/scopes';
import { explainStartupError } from '../../db/startup';
import { parseCliArgs, UsageError } from '../../common/cli-args';

const USAGE = `usage: npm run apikey -- create --name NAME --scopes SCOPE[,SCOPE...]
       npm run apikey -- list
       npm run apikey -- revoke ID
scopes: ${SCOPES.join(', ')}`;

function parse(argv: string[]): ApiKeyCommand {
  const { positionals, values } = parseCliArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { name: { type: 'string' }, scopes: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    },
    USAGE,
  );
  const [command, ...rest] = positionals;
  if (values.help || !command) throw new UsageError(USAGE);
  switch (command) {
    case 'create':
      if (!values.name || !values.scopes) throw new UsageError(`create needs --name and --scopes\n${USAGE}`);
      return {
        command,
        name: values.name,
        scopes: values.scopes
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
    case 'list':
      return { command };
    case 'revoke':
      if (rest.length !== 1) throw new UsageError(`revoke needs one key id\n${USAGE}`);
      return { command, id: rest[0]! };
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

async function run(argv: string[]): Promise<void> {
  const cmd = parse(argv);
  // Arguments are checked before the database is opened (or, on a first run, created: seconds).
  if (cmd.command === 'create') validateNewKey(cmd);
  if (cmd.command === 'revoke') parseId(cmd.id, 'ID');
  readEnvFile();
  const config = loadConfig();
  let db;
  try {
    db = await openDatabase(config);
  } catch (error) {
    const socket =
      config.database.kind === 'pglite' && config.database.dataDir && adminSocketPath(config.database.dataDir);
    if (error instanceof DatabaseInUseError && socket && fs.existsSync(socket)) {
      for (const line of await sendToAdminSocket(socket, cmd)) console.log(line);
      return;
    }
    throw error;
  }
  try {
    for (const line of await runApiKeyCommand(new ApiKeyService(db.prisma), cmd)) console.log(line);
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const known =
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof AppError ||
    error instanceof AdminSocketError ||
    error instanceof DatabaseInUseError;
  console.error(known ? (error as Error).message : (explainStartupError(error) ?? error));
  process.exit(known && error instanceof UsageError ? 2 : 1);
});
