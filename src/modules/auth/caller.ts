/**
 * The one caller model: who is calling, for every transport (HTTP, WebSocket) and every rule
 * (scopes, ownership, rate limits, cost budgets, read-your-writes).
 *
 * - anonymous: `null`;
 * - an API key (`kind: 'key'`): a member of staff or a program, by its scopes, as always;
 * - an access token (`kind: 'token'`): a person signed in with an identity provider, named by the
 *   token's issuer and `sub`. Its scopes (`scope` or `scp` claims) mean what a key's do; a token
 *   with none is a customer, who may place orders, cancel their own open orders and read their own
 *   orders (scopes.ts, `CUSTOMER_OPERATIONS`; src/modules/orders/order.access.ts).
 */
import type { Scope } from './scopes';

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
  /** When the token expires (ms since the epoch; `exp`): open subscriptions close then. */
  expiresAt: number;
}

/** Who is calling: an API key or a signed-in subject. Anonymous callers are `null`. */
export type Caller = KeyCaller | TokenCaller;

/**
 * THE identity of a caller, as every per-caller thing keys it: the rate limit and the cost budget
 * (`key:<id>`, `sub:<issuer> <sub>`, or `ip:<address>` when anonymous), read-your-writes windows,
 * and the owner recorded on orders (`ownerOf`). An issuer is a URL (no spaces), so the space keeps
 * two issuers' subjects apart.
 */
export function callerIdentity(caller: Caller | null, address: string): string {
  if (!caller) return `ip:${address}`;
  return caller.kind === 'key' ? `key:${caller.keyId}` : `sub:${caller.issuer} ${caller.subject}`;
}

/**
 * The owner an order placed by this caller records (orders.owner), and the one a customer's reads
 * are restricted to: its identity. Anonymous callers own nothing.
 */
export function ownerOf(caller: Caller | null): string | null {
  return caller ? callerIdentity(caller, '') : null;
}

/** What `Query.me.subject` shows: the token's `sub`, or `key:<id> <name>` for an API key. */
export function displaySubject(caller: Caller): string {
  return caller.kind === 'token' ? caller.subject : `key:${caller.keyId} ${caller.name}`;
}
