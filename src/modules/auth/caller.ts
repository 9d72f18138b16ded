import type { Scope } from '../../common/scopes';

/**
 * Who is calling: an authenticated key (its id, name and scopes). Anonymous callers are `null`. A
 * file of its own: the key service and the key cache both speak of it, and neither imports the other
 * for it.
 */
export interface Caller {
  keyId: bigint;
  name: string;
  scopes: readonly Scope[];
}

/**
 * The caller's identity as one string, the same for every request it makes: `key:<id>` for an API
 * key. Whatever a caller owns or spends is keyed by it (its idempotency keys, its rate-limit and
 * cost budgets, its read-your-writes window), so one caller can never reach another's. Another kind
 * of credential (a token's issuer and subject) adds its own prefix here, and nowhere else.
 */
export function callerIdentity(caller: Pick<Caller, 'keyId'>): string {
  return `key:${caller.keyId}`;
}
