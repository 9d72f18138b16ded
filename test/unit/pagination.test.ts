import { buildPage, pageWindow, type Sort } from '../../src/common/pagination';

interface Row {
  id: bigint;
  name: string;
}

const byName: Sort<Row> = {
  id: 'name',
  keys: [
    { field: 'name', column: 'name', direction: 'asc', type: 'string' },
    { field: 'id', column: 'id', direction: 'asc', type: 'bigint' },
  ],
};

/** Rows whose sort keys count how often they are read: a cursor reads them, nothing else does. */
function countedRows(n: number): { rows: Row[]; reads: number[] } {
  const reads = Array.from({ length: n }, () => 0);
  const rows = reads.map((_, i) => {
    const row = { id: BigInt(i + 1) } as Row;
    Object.defineProperty(row, 'name', {
      enumerable: true,
      get: () => {
        reads[i]!++;
        return `Pet ${i}`;
      },
    });
    return row;
  });
  return { rows, reads };
}

/** `buildPage` (src/common/pagination.ts): a page's cursors, encoded only when a client reads one. */
describe('buildPage', () => {
  const window = { forward: true, limit: 5, cursor: null };

  it('encodes no cursor for a page read by its nodes, and only the last for endCursor', () => {
    const { rows, reads } = countedRows(6);
    const page = buildPage(rows, window, byName, 6);
    expect(page.nodes.map((n) => n.id)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(page.pageInfo.hasNextPage).toBe(true);
    expect(page.pageInfo.hasPreviousPage).toBe(false);
    expect(reads).toEqual([0, 0, 0, 0, 0, 0]);
    const end = page.pageInfo.endCursor!;
    expect(reads).toEqual([0, 0, 0, 0, 1, 0]);
    // Each cursor is encoded once, whichever field reads it first.
    expect(page.edges.at(-1)!.cursor).toBe(end);
    expect(page.pageInfo.endCursor).toBe(end);
    expect(reads).toEqual([0, 0, 0, 0, 1, 0]);
  });

  it('answers the cursors it always answered: each decodes to its own row, in either direction', () => {
    const { rows } = countedRows(6);
    const page = buildPage(rows, window, byName, () => Promise.resolve(6));
    const cursors = page.edges.map((e) => e.cursor);
    expect(page.pageInfo.startCursor).toBe(cursors[0]);
    expect(page.pageInfo.endCursor).toBe(cursors[4]);
    expect(new Set(cursors).size).toBe(5);
    // The cursor format is the one clients already hold: [sort id, ...keys as strings], base64url.
    expect(JSON.parse(Buffer.from(cursors[2]!, 'base64url').toString('utf8'))).toEqual(['name', 'Pet 2', '3']);
    expect(pageWindow({ first: 2, after: cursors[2] }, byName).cursor).toEqual(['Pet 2', 3n]);
    // Backward: rows came in reverse window order; the page answers them in sort order.
    const backward = buildPage([...rows].reverse(), { forward: false, limit: 5, cursor: ['Pet 9', 10n] }, byName, 6);
    expect(backward.nodes.map((n) => n.id)).toEqual([2n, 3n, 4n, 5n, 6n]);
    expect(backward.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    expect(backward.edges.map((e) => e.node.id)).toEqual([2n, 3n, 4n, 5n, 6n]);
  });

  it('answers an empty page without cursors', () => {
    const page = buildPage<Row>([], window, byName, 0);
    expect(page.edges).toEqual([]);
    expect(page.pageInfo.startCursor).toBeNull();
    expect(page.pageInfo.endCursor).toBeNull();
    expect(page.totalCount).toBe(0);
  });
});
