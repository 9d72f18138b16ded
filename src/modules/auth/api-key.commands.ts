/**
 * The API-key commands of `npm run apikey`, as one function from parsed arguments to output lines,
 * so the CLI runs them either itself (on a database it can open) or through the running server's
 * local admin socket (the embedded database, which only one process may open; api-key.socket.ts).
 */
import { parseId } from '../../common/ids';
import type { ApiKeyInfo, ApiKeyService } from './api-key.service';

export type ApiKeyCommand =
  { command: 'create'; name: string; scopes: string[] } | { command: 'list' } | { command: 'revoke'; id: string };

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

/** Runs one command through the service; the new key, on create, is alone on the last line. */
export async function runApiKeyCommand(keys: ApiKeyService, cmd: ApiKeyCommand): Promise<string[]> {
  switch (cmd.command) {
    case 'create': {
      const { key, info } = await keys.create({ name: cmd.name, scopes: cmd.scopes });
      return [
        `created API key ${info.id} "${info.name}" with scopes ${info.scopes.join(', ')}`,
        'store it now: it is shown only this once (the database keeps only its hash)',
        key,
      ];
    }
    case 'list': {
      const all = await keys.list();
      return all.length === 0 ? ['no API keys'] : all.map(describe);
    }
    case 'revoke':
      return [`revoked: ${describe(await keys.revoke(parseId(cmd.id, 'ID')))}`];
  }
}
