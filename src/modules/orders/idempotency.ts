/**
 * `Idempotency-Key` for placeOrder (docs/store-rules.md). A key is claimed by inserting its row in
 * the same transaction that places the order (the SQL function `store_place_order`, migration
 * 20261122170000_store_functions, which also records the order on it), so:
 * - a retry with the same key and the same request gets the first order back;
 * - the same key with a different request is CONFLICT;
 * - concurrent requests with one key wait on the key's unique index: the first places the order, the
 *   others then see its row (or, when it failed and rolled back, claim the key themselves);
 * - a failed placement stores nothing, so it can be retried with the same key;
 * - a key expires IDEMPOTENCY_KEY_TTL_MS after its first use: later it is ignored and overwritten.
 * Keys are per caller (issue 28): the row's `key` is `scopedKey(caller, key)`, a digest of the caller's
 * identity and the key, so the same header sent by another caller is another row. It neither finds
 * nor collides with the first caller's (no CONFLICT telling that someone uses the key). A digest
 * rather than a caller column: the scope needs no migration, and the row has a fixed size however
 * long the caller's identity gets (a token's issuer and subject).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
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

/**
 * The key as stored: hex SHA-256 of the caller's identity (`callerIdentity`) and the key, with a
 * separator no identity contains, so no two (caller, key) pairs meet.
 */
export function scopedKey(caller: string, key: string): string {
  return crypto.createHash('sha256').update(caller).update('\n').update(key).digest('hex');
}

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

/** Deletes up to 1000 expired keys (expired keys are already ignored; this only reclaims space). */
export async function deleteExpiredKeys(tx: Tx): Promise<number> {
  return tx.$executeRaw`
    DELETE FROM idempotency_keys
    WHERE key IN (SELECT key FROM idempotency_keys WHERE expires_at <= now() LIMIT 1000)`;
}
