/**
 * The rules of the API-key cache that no request sequence can reach deterministically: a key read
 * while a revocation is being heard must not be kept, and nothing is served while the listener is
 * down. What requests see is in test/graphql/api-key-cache.test.ts.
 */
import { ApiKeyCache, type CachedKey } from '../../src/modules/auth/api-key.cache';

const entry = (keyId: bigint): CachedKey => ({
  caller: { kind: 'key', keyId, name: `key ${keyId}`, scopes: ['admin'] },
  lastUsedAt: null,
});

describe('ApiKeyCache', () => {
  const listening = (max?: number) => {
    const cache = new ApiKeyCache({ ttlMs: 60_000, max });
    cache.setListening(true);
    return cache;
  };

  it('does not keep a key read while a change was heard (it may be the revoked one)', () => {
    const cache = listening();
    const before = cache.version();
    cache.invalidate('1'); // heard between the read and the store
    cache.set(before, 'h1', entry(1n));
    expect(cache.get('h1')).toBeUndefined();
    cache.set(cache.version(), 'h1', entry(1n));
    expect(cache.get('h1')).toEqual(entry(1n));
  });

  it('keeps and serves nothing while its listener is down, and starts empty when it is back', () => {
    const cache = listening();
    cache.set(cache.version(), 'h1', entry(1n));
    const version = cache.version();
    cache.setListening(false);
    expect(cache.get('h1')).toBeUndefined();
    cache.set(cache.version(), 'h2', entry(2n));
    cache.setListening(true);
    cache.set(version, 'h3', entry(3n)); // read before the listener came back
    expect([cache.get('h1'), cache.get('h2'), cache.get('h3')]).toEqual([undefined, undefined, undefined]);
  });

  it('drops the key a notification names, and everything for a payload that is not an id', () => {
    const cache = listening();
    cache.set(cache.version(), 'h1', entry(1n));
    cache.set(cache.version(), 'h2', entry(2n));
    cache.invalidate('2');
    expect(cache.get('h1')).toEqual(entry(1n));
    expect(cache.get('h2')).toBeUndefined();
    cache.invalidate('');
    expect(cache.get('h1')).toBeUndefined();
  });

  it('holds at most `max` keys, dropping the least recently used', () => {
    const cache = listening(2);
    cache.set(cache.version(), 'h1', entry(1n));
    cache.set(cache.version(), 'h2', entry(2n));
    cache.get('h1');
    cache.set(cache.version(), 'h3', entry(3n));
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h1')).toEqual(entry(1n));
    expect(cache.get('h3')).toEqual(entry(3n));
  });
});
