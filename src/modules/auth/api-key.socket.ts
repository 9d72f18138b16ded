/**
 * The local admin socket of a server on the embedded database. PGlite is single-process: while a
 * server holds the data directory, `npm run apikey` cannot open it (it would corrupt it), so the CLI
 * asks the server to run its command instead, over a Unix socket beside the data directory
 * (`<dataDir>.admin.sock`, mode 0600: only the OS user that owns the server, who can read the data
 * directory anyway, can connect). Revocation thereby takes effect at once, without a restart.
 * PostgreSQL needs none of this: the CLI opens the database itself beside any number of servers.
 */
import fs from 'node:fs';
import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../errors/app-error';
import { validate } from '../../common/validation';
import { runApiKeyCommand, type ApiKeyCommand } from './api-key.commands';
import type { ApiKeyService } from './api-key.service';

export { adminSocketPath } from '../../db/database';

const commandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('create'), name: z.string(), scopes: z.array(z.string()) }),
  z.object({ command: z.literal('list') }),
  z.object({ command: z.literal('revoke'), id: z.string() }),
]);

interface SocketReply {
  lines?: string[];
  error?: string;
}

/**
 * Serves the API-key commands on `socketPath` until the returned instance is closed; with `seed`, also
 * `npm run db:seed` (POST /seed: runs it and answers its output line).
 */
export async function startAdminSocket(
  socketPath: string,
  keys: ApiKeyService,
  seed?: () => Promise<string>,
): Promise<FastifyInstance> {
  // The caller holds the data-directory lock, so a socket file left here is a dead server's.
  fs.rmSync(socketPath, { force: true });
  const admin = Fastify({ logger: false });
  admin.post('/apikey', async (request, reply): Promise<SocketReply> => {
    try {
      const cmd = validate(commandSchema, request.body) as ApiKeyCommand;
      return { lines: await runApiKeyCommand(keys, cmd) };
    } catch (error) {
      if (error instanceof AppError) return reply.code(error.status).send({ error: error.message });
      throw error;
    }
  });
  if (seed) admin.post('/seed', async (): Promise<SocketReply> => ({ lines: [await seed()] }));
  await admin.listen({ path: socketPath });
  fs.chmodSync(socketPath, 0o600);
  return admin;
}

/** Sends one command to a running server's admin socket; resolves with its output lines. */
export function sendToAdminSocket(socketPath: string, cmd: ApiKeyCommand): Promise<string[]> {
  return postToAdminSocket(socketPath, '/apikey', cmd);
}

/** Asks a running server to seed the demo catalogue (`npm run db:seed`); resolves with its output lines. */
export function sendSeedToAdminSocket(socketPath: string): Promise<string[]> {
  return postToAdminSocket(socketPath, '/seed', {});
}

function postToAdminSocket(socketPath: string, path: string, payload: unknown): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          try {
            const reply = JSON.parse(body) as SocketReply;
            if (reply.lines) resolve(reply.lines);
            else reject(new AdminSocketError(reply.error ?? `the server answered ${res.statusCode}`));
          } catch {
            reject(new AdminSocketError(`the server answered ${res.statusCode} without JSON`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(payload));
  });
}

export class AdminSocketError extends Error {
  override name = 'AdminSocketError';
}
