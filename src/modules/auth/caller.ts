/**
 * The one caller model: who is calling, for every transport (HTTP, WebSocket) and every rule
 * (scopes, ownership, idempotency, rate limits, cost budgets, read-your-writes).
 *
 * - anonymous: `null`;
 * - an API key (`kind: 'key'`): a member of staff or a program, by its scopes, as always;
 * - an access token (`kind: 'token'`): a person signed in with an identity provider, named by the
 *   token's issuer and `sub`. Its scopes (`scope` or `scp` claims) mean what a key's do; a token
 *   with none is a customer, who may place orders, cancel their own open orders and read their own
 *   orders (common/scopes.ts, `CUSTOMER_OPERATIONS`; src/modules/orders/order.access.ts).
 *
 * A file of its own: the key service, the key cache and the token verifier all speak of it, and none
 * imports another for it.
 */
import type { Viewer } from '../../common/object-types';
import type { Scope } from '../../common/scopes';

export interface KeyCaller {
  kind: 'key';
  keyId: bigint;
  name: string;
  scopes: readonly Scope[];
}

export interface TokenCaller {
  kind: 'token';
  /** The token's `iss`: a subject is unique only within its issuer. */
  issuer: string;
  /** The token's `sub`. */
  subject: string;
  scopes: readonly Scope[];
  /** When the token stops being accepted (ms since the epoch; `exp` plus the clock tolerance): open subscriptions close then. */
  expiresAt: number;
}

/** Who is calling: an API key or a signed-in subject. Anonymous callers are `null`. */
export type Caller = KeyCaller | TokenCaller;

/**
 * The caller's identity as one string, the same for every request it makes: `key:<id>` for an API
 * key, `sub:<issuer> <sub>` for an access token. Whatever a caller owns or spends is keyed by it (its
 * idempotency keys, its rate-limit and cost budgets, its read-your-writes window, the owner recorded
 * on its orders), so one caller can never reach another's. An issuer is a URL (no spaces), so the
 * space keeps two issuers' subjects apart. This is the one place a kind of credential names itself.
 */
export function callerIdentity(caller: Viewer): string {
  return caller.kind === 'key' ? `key:${caller.keyId}` : `sub:${caller.issuer} ${caller.subject}`;
}

/** The longest identity (`callerIdentity`): what `orders.owner` holds (VARCHAR(600), schema.prisma). */
export const IDENTITY_MAX_LENGTH = 600;

/**
 * The owner an order placed by this caller records (orders.owner), and the one a customer's reads
 * are restricted to: its identity. Anonymous callers own nothing.
 */
export function ownerOf(caller: Viewer | null): string | null {
  return caller ? callerIdentity(caller) : null;
}

/** What `Query.me.subject` shows: the token's `sub`, or `key:<id> <name>` for an API key. */
export function displaySubject(caller: Caller): string {
  return caller.kind === 'token' ? caller.subject : `key:${caller.keyId} ${caller.name}`;
}
