/**
 * Apollo's cache of parsed and validated documents, bounded by what they hold in the heap. Apollo's
 * default store (an LRU of "30 MiB") sizes a document by the length of its JSON, but a parsed
 * DocumentNode takes 4.1-4.6 times that in the heap (graphql-js 16, Node 20 and 24: 7.0 kB for a
 * 1.5 kB one, 27 kB for a 6.5 kB one), so one client sending unique documents could make it hold
 * ~140 MiB. Here a document counts DOCUMENT_HEAP_FACTOR times its JSON, so the bound is the heap's.
 * lru-cache does the rest, as in Apollo's store; only the size is ours.
 */
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Heap bytes per byte of a parsed document's JSON, rounded up from the figures above. */
export const DOCUMENT_HEAP_FACTOR = 5;

/** The bound of the documents kept, in heap bytes. */
export const DOCUMENT_STORE_BYTES = 30 * 1024 * 1024;

/** What Apollo asks of a document store (its `KeyValueCache`), over an LRU sized in heap bytes. */
export interface DocumentCache {
  get(key: string): Promise<DocumentNode | undefined>;
  set(key: string, value: DocumentNode): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** The heap bytes its documents are counted as (for tests and the curious). */
  readonly calculatedSize: number;
}

export function createDocumentStore(maxBytes = DOCUMENT_STORE_BYTES): DocumentCache {
  const cache = new LRUCache<string, DocumentNode>({
    maxSize: maxBytes,
    sizeCalculation: (doc) => Math.max(1, Buffer.byteLength(JSON.stringify(doc)) * DOCUMENT_HEAP_FACTOR),
  });
  return {
    get: async (key) => cache.get(key),
    set: async (key, value) => void cache.set(key, value),
    delete: async (key) => cache.delete(key),
    get calculatedSize() {
      return cache.calculatedSize;
    },
  };
}
