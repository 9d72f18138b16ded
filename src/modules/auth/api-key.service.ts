/**
 * API keys: creation, listing, revocation, and authentication of a presented key.
 *
 * A key is `pk_` followed by 32 random bytes in base64url (256 bits). Only its SHA-256 hash is
 * stored. A fast, unsalted hash is the right tool here (unlike for passwords): the secret is 256
 * bits of uniform randomness, so neither a dictionary nor a brute-force search over hashes can find
 * it, and a cheap hash keeps every authenticated request cheap. Lookups go by hash (a unique index)
 * and the stored hash is then compared with `crypto.timingSafeEqual`.
 *
 * No lookup is cached: every request with a key reads its row (one indexed SELECT), so a revocation
 * takes effect on the next request, in every process, without a restart.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import type { ApiKey, PrismaClient } from '../../generated/prisma/client';
import { NotFoundError } from '../../errors/app-error';
import { nameSchema, validate } from '../../common/validation';
import { SCOPES, type Scope } from './scopes';

export const KEY_PREFIX = 'pk_';
const KEY_BYTES = 32;
/** `pk_` + 43 base64url characters. Anything else is rejected before touching the database. */
const KEY_FORMAT = /^pk_[A-Za-z0-9_-]{43}$/;
/** How many characters of the key `list` shows (`pk_` + 9 random characters, 54 of 256 bits). */
const SHOWN_PREFIX_LENGTH = 12;
/** `lastUsedAt` is written at most this often per key, so authentication stays a read. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Who is calling: an authenticated key (its id, name and scopes). Anonymous callers are `null`. */
export interface Caller {
  keyId: bigint;
  name: string;
  scopes: readonly Scope[];
}

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

const hashKey = (key: string): string => crypto.createHash('sha256').update(key, 'utf8').digest('hex');

const toInfo = (row: ApiKey): ApiKeyInfo => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  revokedAt: row.revokedAt,
});

export class ApiKeyService {
  constructor(private readonly prisma: PrismaClient) {}

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
  async create(input: { name: string; scopes: string[] }): Promise<{ key: string; info: ApiKeyInfo }> {
    const { name, scopes } = validate(newKeySchema, input);
    const key = KEY_PREFIX + crypto.randomBytes(KEY_BYTES).toString('base64url');
    const row = await this.prisma.apiKey.create({
      data: { name, scopes, prefix: key.slice(0, SHOWN_PREFIX_LENGTH), keyHash: hashKey(key) },
    });
    return { key, info: toInfo(row) };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.prisma.apiKey.findMany({ orderBy: { id: 'asc' } })).map(toInfo);
  }

  /** Revokes a key (idempotent: revoking a revoked key keeps its first revocation time). */
  async revoke(id: bigint): Promise<ApiKeyInfo> {
    await this.prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    const row = await this.prisma.apiKey.findUnique({ where: { id } });
    if (!row) throw new NotFoundError(`API key ${id} does not exist`);
    return toInfo(row);
  }

  /** The caller a presented key stands for, or null when it is malformed, unknown or revoked. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!KEY_FORMAT.test(key)) return null;
    const hash = hashKey(key);
    const row = await this.prisma.apiKey.findUnique({ where: { keyHash: hash } });
    if (!row || row.revokedAt) return null;
    // The index lookup already matched; the constant-time comparison keeps the final decision free
    // of data-dependent timing whatever the lookup path does.
    if (!crypto.timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    const now = Date.now();
    if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      // Conditional, so concurrent requests (and processes) write it once per period.
      await this.prisma.apiKey.updateMany({
        where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }] },
        data: { lastUsedAt: new Date(now) },
      });
    }
    const info = toInfo(row);
    return { keyId: info.id, name: info.name, scopes: info.scopes };
  }
}
