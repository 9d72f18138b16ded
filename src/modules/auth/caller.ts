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
