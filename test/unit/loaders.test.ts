import { groupedLoader } from '../../src/common/loaders';

/** A fetch per argument group that refuses a page above 100, as the services do. */
function pagesLoader() {
  const fetches: { parentIds: bigint[]; first: number }[] = [];
  const loader = groupedLoader<{ first: number }, string>(
    async (parentIds, args) => {
      fetches.push({ parentIds, first: args.first });
      if (args.first > 100) throw new Error('first: must be between 1 and 100');
      return new Map(parentIds.map((id) => [id.toString(), `page of ${args.first} under ${id}`]));
    },
    () => 'empty page',
  );
  return { loader, fetches };
}

describe('groupedLoader', () => {
  it('batches the keys of one argument group into one fetch', async () => {
    const { loader, fetches } = pagesLoader();
    const pages = await Promise.all([1n, 2n].map((parentId) => loader.load({ parentId, args: { first: 3 } })));
    expect(pages).toEqual(['page of 3 under 1', 'page of 3 under 2']);
    expect(fetches).toEqual([{ parentIds: [1n, 2n], first: 3 }]);
  });

  it('fails only the keys of the group whose fetch failed', async () => {
    const { loader, fetches } = pagesLoader();
    const [valid, invalid] = await Promise.allSettled([
      loader.load({ parentId: 1n, args: { first: 1 } }),
      loader.load({ parentId: 1n, args: { first: 101 } }),
    ]);
    expect(valid).toEqual({ status: 'fulfilled', value: 'page of 1 under 1' });
    expect(invalid).toEqual({ status: 'rejected', reason: new Error('first: must be between 1 and 100') });
    expect(fetches).toHaveLength(2);
  });
});
