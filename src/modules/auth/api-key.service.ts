/**
 * API keys: creation, listing, revocation, and authentication of a presented key.
 *
 * A key is `pk_` followed by 32 random bytes in base64url (256 bits). Only its SHA-256 hash is
 * stored. A fast, unsalted hash is the right tool here (unlike for passwords): the secret is 256
 * bits of uniform randomness, so neither a dictionary nor a brute-force search over hashes can find
 * it, and a cheap hash keeps every authenticated request cheap. Lookups go by hash (a unique index)
 * and the stored hash is then compared with `crypto.timingSafeEqual`.
 *
 * Successful authentications are cached in the process, by hash (api-key.cache.ts): a key seen
 * valid is not read again while the process LISTENs for key changes, and for at most
 * `API_KEY_CACHE_TTL_MS`. Unknown and revoked keys are never cached, so they read the database on
 * every request. Every change of a key's validity or scopes (today: `revoke`) sends
 * `pg_notify('api_key_changed', id)` in its own transaction: on commit, every process drops the
 * key, so the revocation applies to the next request in every process within milliseconds, without
 * a restart. A process that loses its LISTEN connection empties and bypasses its cache (every
 * request reads its key, as with no cache) until it listens again.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import type { ApiKey, PrismaClient } from '../../generated/prisma/client';
import { NotFoundError } from '../../errors/app-error';
import { nameSchema, validate } from '../../common/validation';
import { API_KEY_CHANNEL, type ApiKeyCache, type CachedKey } from './api-key.cache';
import { SCOPES, type Scope } from '../../common/scopes';
import type { KeyCaller } from './caller';

export const KEY_PREFIX = 'pk_';
const KEY_BYTES = 32;
/** `pk_` + 43 base64url characters. Anything else is rejected before touching the database. */
const KEY_FORMAT = /^pk_[A-Za-z0-9_-]{43}$/;
/** How many characters of the key `list` shows (`pk_` + 9 random characters, 54 of 256 bits). */
const SHOWN_PREFIX_LENGTH = 12;
/** `lastUsedAt` is written at most this often per key (and process), so authentication stays a read. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export type { Caller } from './caller';

export interface ApiKeyInfo {
  id: bigint;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const newKeySchema = z.object({
  name: nameSchema,
  scopes: z
    .array(z.enum(SCOPES, { message: `must be among ${SCOPES.join(', ')}` }))
    .min(1, 'must name at least one scope')
    .transform((s) => [...new Set(s)]),
});

/** Checks a new key's name and scopes (throws ValidationError), as `create` does before it writes. */
export const validateNewKey = (input: { name: string; scopes: string[] }) => validate(newKeySchema, input);

// One-shot (Node >= 20.12): no Hash object per request.
const hashKey = (key: string): string => crypto.hash('sha256', key, 'hex');

const toInfo = (row: ApiKey): ApiKeyInfo => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  revokedAt: row.revokedAt,
});

/** Where key changes are recorded (the server's pino logger); never given the key itself. */
export interface KeyChangeLog {
  info(fields: object, msg: string): void;
}

const keyFields = (info: ApiKeyInfo) => ({
  apiKey: { id: info.id.toString(), name: info.name, prefix: info.prefix, scopes: info.scopes },
});

export class ApiKeyService {
  /**
   * `cache`: the serving app's (app.ts); the CLI and the admin socket only change keys and need none.
   * `log`: records every key created or revoked (id, name, scopes), e.g. the server's logger.
   */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly cache?: ApiKeyCache,
    private readonly log?: KeyChangeLog,
  ) {}

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
  async create(input: { name: string; scopes: string[] }): Promise<{ key: string; info: ApiKeyInfo }> {
    const { name, scopes } = validateNewKey(input);
    const key = KEY_PREFIX + crypto.randomBytes(KEY_BYTES).toString('base64url');
    const row = await this.prisma.apiKey.create({
      data: { name, scopes, prefix: key.slice(0, SHOWN_PREFIX_LENGTH), keyHash: hashKey(key) },
    });
    const info = toInfo(row);
    this.log?.info(keyFields(info), `API key ${info.id} "${info.name}" created`);
    return { key, info };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.prisma.apiKey.findMany({ orderBy: { id: 'asc' } })).map(toInfo);
  }

  /**
   * Revokes a key (idempotent: revoking a revoked key keeps its first revocation time). Every
   * server process drops the key from its cache when this commits; the notification is sent even
   * when the key was already revoked, so revoking again also flushes a key revoked by hand in SQL.
   */
  async revoke(id: bigint): Promise<ApiKeyInfo> {
    await this.prisma.$transaction([
      this.prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } }),
      notifyKeyChanged(this.prisma, id),
    ]);
    const row = await this.prisma.apiKey.findUnique({ where: { id } });
    if (!row) throw new NotFoundError(`API key ${id} does not exist`);
    const info = toInfo(row);
    this.log?.info(keyFields(info), `API key ${info.id} "${info.name}" revoked`);
    return info;
  }

  /**
   * The caller of a key this process has already verified (the cache, no database), or null: what
   * the rate limit is keyed by before any lookup (auth.hooks.ts).
   */
  cachedCaller(key: string): KeyCaller | null {
    if (!KEY_FORMAT.test(key)) return null;
    return this.cache?.peek(hashKey(key))?.caller ?? null;
  }

  /** The caller a presented key stands for, or null when it is malformed, unknown or revoked. */
  async authenticate(key: string): Promise<KeyCaller | null> {
    if (!KEY_FORMAT.test(key)) return null;
    const hash = hashKey(key);
    // A hit is an exact match of the hash in a hash map. Its timing depends on the hash of the
    // presented key, never on a stored secret (as with the index lookup below): nothing to learn.
    const cached = this.cache?.get(hash);
    if (cached) {
      await this.recordUse(cached);
      return cached.caller;
    }
    const version = this.cache?.version();
    const row = await this.prisma.apiKey.findUnique({ where: { keyHash: hash } });
    if (!row || row.revokedAt) return null;
    // The index lookup already matched; the constant-time comparison keeps the final decision free
    // of data-dependent timing whatever the lookup path does.
    if (!crypto.timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    const info = toInfo(row);
    const entry: CachedKey = {
      caller: { kind: 'key', keyId: info.id, name: info.name, scopes: info.scopes },
      lastUsedAt: row.lastUsedAt,
    };
    // Not kept if a key change was heard while reading: the row may predate a revocation.
    if (version !== undefined) this.cache?.set(version, hash, entry);
    await this.recordUse(entry);
    return entry.caller;
  }

  /**
   * Writes `lastUsedAt` when the last recorded use is a period old. The entry (cached or just read)
   * is marked first, so concurrent requests of this process send one write; the update is
   * conditional, so concurrent processes change the row once per period.
   */
  private async recordUse(entry: CachedKey): Promise<void> {
    const now = Date.now();
    const previous = entry.lastUsedAt;
    if (previous && now - previous.getTime() < LAST_USED_RESOLUTION_MS) return;
    entry.lastUsedAt = new Date(now);
    try {
      await this.prisma.apiKey.updateMany({
        where: {
          id: entry.caller.keyId,
          OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }],
        },
        data: { lastUsedAt: new Date(now) },
      });
    } catch (error) {
      entry.lastUsedAt = previous;
      throw error;
    }
  }
}

/**
 * The notification of a key change, to run in the transaction that makes it: PostgreSQL delivers it
 * on commit (never for a rollback), and every server process then drops the key from its cache.
 * Whatever changes a key's validity or scopes must send it.
 */
const notifyKeyChanged = (prisma: PrismaClient, id: bigint) =>
  prisma.$executeRaw`SELECT pg_notify(${API_KEY_CHANNEL}, ${id.toString()})`;
