/**
 * `Idempotency-Key` for placeOrder (README, "Store rules"). A key is claimed by inserting its row in
 * the same transaction that places the order, so:
 * - a retry with the same key and the same request gets the first order back;
 * - the same key with a different request is CONFLICT;
 * - concurrent requests with one key wait on the key's unique index: the first places the order, the
 *   others then see its row (or, when it failed and rolled back, claim the key themselves);
 * - a failed placement stores nothing, so it can be retried with the same key;
 * - a key expires IDEMPOTENCY_KEY_TTL_MS after its first use: later it is ignored and overwritten.
 * Keys are global for now; they will be scoped per API key once API keys exist.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { ConflictError } from '../../errors/app-error';
import type { Tx } from '../pets/pet-lifecycle';

/** How long a key is remembered: 24 hours, as Stripe and the IETF draft's examples do. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Visible ASCII only (a UUID is typical): no spaces, no control characters, 1..255 characters. */
export const idempotencyKeySchema = z
  .string({ error: 'must be a single header value' })
  .min(1, 'must not be empty')
  .max(IDEMPOTENCY_KEY_MAX_LENGTH, `must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`)
  .regex(/^[\x21-\x7E]+$/, 'must be visible ASCII characters without spaces');

/** What a placeOrder request means, written the same way however the client spelled it. */
export interface OrderRequest {
  petId: bigint;
  quantity: number;
  shipDate?: Date | null;
}

/**
 * SHA-256 of the normalised request: the id in decimal, the date in UTC at the millisecond precision
 * the database keeps, so `"7"` and `7`, or `...T10:00:00Z` and `...T10:00:00.000Z`, are one request.
 */
export function fingerprint(request: OrderRequest): string {
  const shipDate = request.shipDate ? new Date(request.shipDate.getTime()).toISOString() : null;
  const normalised = JSON.stringify([request.petId.toString(), request.quantity, shipDate]);
  return crypto.createHash('sha256').update(normalised).digest('hex');
}

export type KeyClaim = { kind: 'claimed' } | { kind: 'replay'; orderId: bigint };

/**
 * Claims `key` for this request inside the placing transaction, or says which order it already
 * placed. An expired key is taken over in place. Throws CONFLICT when the key came with another
 * request, or when the order it placed has since been cancelled (a retry must never place a second).
 */
export async function claimKey(tx: Tx, key: string, print: string): Promise<KeyClaim> {
  const ttlSeconds = IDEMPOTENCY_KEY_TTL_MS / 1000;
  const claimed = await tx.$queryRaw<{ key: string }[]>`
    INSERT INTO idempotency_keys (key, fingerprint, created_at, expires_at)
    VALUES (${key}, ${print}, now(), now() + make_interval(secs => ${ttlSeconds}))
    ON CONFLICT (key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, order_id = NULL,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= now()
    RETURNING key`;
  if (claimed.length > 0) return { kind: 'claimed' };
  const [existing] = await tx.$queryRaw<{ fingerprint: string; orderId: bigint | null }[]>`
    SELECT fingerprint, order_id AS "orderId" FROM idempotency_keys WHERE key = ${key}`;
  if (!existing || existing.fingerprint !== print) {
    throw new ConflictError('Idempotency-Key: this key was already used with a different request');
  }
  if (existing.orderId === null) {
    throw new ConflictError('Idempotency-Key: the order placed with this key has been cancelled');
  }
  return { kind: 'replay', orderId: existing.orderId };
}

/** Records the order a claimed key placed. */
export async function recordKey(tx: Tx, key: string, orderId: bigint): Promise<void> {
  await tx.$executeRaw`UPDATE idempotency_keys SET order_id = ${orderId} WHERE key = ${key}`;
}

/** Deletes up to 1000 expired keys (expired keys are already ignored; this only reclaims space). */
export async function deleteExpiredKeys(tx: Tx): Promise<number> {
  return tx.$executeRaw`
    DELETE FROM idempotency_keys
    WHERE key IN (SELECT key FROM idempotency_keys WHERE expires_at <= now() LIMIT 1000)`;
}
