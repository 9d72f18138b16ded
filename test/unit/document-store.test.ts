/**
 * The parsed-document store holds at most its bound in heap bytes, not in bytes of the documents'
 * JSON (Apollo's default sizing: a client sending unique documents made it hold ~4.5 times its bound).
 * Measured after a full collection, with the documents reachable only from the store.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { parse } from 'graphql';
import { createDocumentStore } from '../../src/common/graphql/document-store';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** A document as a client writes it, unique per `i` (its alias, argument and operation name). */
const documentText = (i: number) =>
  `query Q${i}($first: Int) { pets(first: $first) { totalCount edges { cursor node { id name status ` +
  `category { id name } inventory { quantity status } orders(first: 5) { nodes { id quantity shipDate } } } } ` +
  `pageInfo { hasNextPage endCursor } } c${i}: category(id: ${i}) { id name description } }`;

it('keeps no more parsed documents than its bound takes in the heap', async () => {
  const bound = 4 * 1024 * 1024;
  const store = createDocumentStore(bound);
  const before = heapAfterGc();
  // ~20 kB of heap each: about 60 MB if all were kept, 5 times the bound.
  for (let i = 0; i < 3000; i++) await store.set(`schema:${i}`, parse(documentText(i)));
  const held = heapAfterGc() - before;
  expect(store.calculatedSize).toBeLessThanOrEqual(bound);
  // The documents it keeps take no more than the bound (and a margin for the LRU's own arrays).
  expect(held).toBeLessThan(bound * 1.25);
  // And it keeps some: the last one is there.
  expect(await store.get('schema:2999')).toBeDefined();
});
