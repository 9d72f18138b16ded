import { graphql } from '../gql';
import { createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { makePet } from '../helpers/factories';

const Inventory = graphql(`
  query Inventory($petId: ID!) {
    inventory(petId: $petId) {
      petId
      quantity
      status
      pet {
        name
      }
    }
  }
`);

const InventoryItems = graphql(`
  query InventoryItems($filter: InventoryFilter, $first: Int, $after: String) {
    inventoryItems(filter: $filter, first: $first, after: $after) {
      totalCount
      nodes {
        petId
        quantity
        status
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

/** A pet's stock without its status: nothing here reads the pet. */
const StockOnly = graphql(`
  query StockOnly($petId: ID!) {
    inventory(petId: $petId) {
      petId
      quantity
    }
  }
`);

const StockCount = graphql(`
  query StockCount($filter: InventoryFilter, $first: Int) {
    inventoryItems(filter: $filter, first: $first) {
      totalCount
      nodes {
        petId
        quantity
      }
    }
  }
`);

const Summary = graphql(`
  query Summary {
    inventorySummary {
      status
      quantity
    }
  }
`);

const UpdateInventory = graphql(`
  mutation UpdateInventory($petId: ID!, $input: InventoryUpdate!) {
    updateInventory(petId: $petId, input: $input) {
      petId
      quantity
      status
    }
  }
`);

describe('inventory', () => {
  let t: TestApp;

  /**
   * `run`'s result, and the tables PostgreSQL's plan (EXPLAIN) scans for the one statement it sends,
   * once per scan.
   */
  async function relationsRead<R>(run: () => Promise<R>): Promise<{ result: R; scans: string[] }> {
    t.sql.reset();
    const result = await run();
    expect(t.sql.reads).toHaveLength(1);
    const [{ text, values }] = t.sql.reads;
    const [row] = await t.db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `EXPLAIN (FORMAT JSON) ${text}`,
      ...values,
    );
    const plan = Object.values(row!)[0];
    const scans: string[] = [];
    JSON.stringify(typeof plan === 'string' ? JSON.parse(plan) : plan, (key, value: unknown) => {
      if (key === 'Relation Name') scans.push(value as string);
      return value;
    });
    return { result, scans };
  }
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('reports every status in the summary, with zeros on an empty store', async () => {
    expect((await t.gqlOk(Summary)).inventorySummary).toEqual([
      { status: 'AVAILABLE', quantity: 0 },
      { status: 'PENDING', quantity: 0 },
      { status: 'SOLD', quantity: 0 },
    ]);
  });

  it('sets the stock and reads it back with the pet status', async () => {
    const pet = await makePet(t, { name: 'Stocky' });
    const data = await t.gqlOk(UpdateInventory, { petId: pet.id.toString(), input: { quantity: 7 } });
    expect(data.updateInventory).toEqual({ petId: pet.id.toString(), quantity: 7, status: 'AVAILABLE' });
    expect((await t.gqlOk(Inventory, { petId: pet.id.toString() })).inventory).toEqual({
      petId: pet.id.toString(),
      quantity: 7,
      status: 'AVAILABLE',
      pet: { name: 'Stocky' },
    });
  });

  it.each([
    ['a negative quantity', -1],
    ['a quantity over 1,000,000', 1_000_001],
  ])('rejects %s with VALIDATION_FAILED and keeps the stock', async (_label, quantity) => {
    const pet = await makePet(t, { stock: 4 });
    const reply = await t.gql(UpdateInventory, { petId: pet.id.toString(), input: { quantity } });
    expect(reply.errors?.[0]).toMatchObject({
      message: /^quantity: /,
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
    expect((await t.services.inventory.get(pet.id))?.quantity).toBe(4);
  });

  it('answers NOT_FOUND for the stock of an unknown pet, and null when reading it', async () => {
    const reply = await t.gql(UpdateInventory, { petId: '55555555', input: { quantity: 1 } });
    expect(reply.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
    expect((await t.gqlOk(Inventory, { petId: '55555555' })).inventory).toBeNull();
  });

  it('filters entries by status and by quantity below a bound, and sums per status', async () => {
    const before = await t.gqlOk(Summary);
    const total = (s: string, d: typeof before) => d.inventorySummary.find((x) => x.status === s)!.quantity;
    const low = await makePet(t, { stock: 1 });
    await makePet(t, { stock: 50 });
    const sold = await makePet(t, { status: 'sold' });
    const filtered = await t.gqlOk(InventoryItems, { filter: { status: 'AVAILABLE', quantityBelow: 2 } });
    expect(filtered.inventoryItems.nodes).toEqual([{ petId: low.id.toString(), quantity: 1, status: 'AVAILABLE' }]);
    expect(filtered.inventoryItems.totalCount).toBe(1);
    const soldOnly = await t.gqlOk(InventoryItems, { filter: { status: 'SOLD' } });
    expect(soldOnly.inventoryItems.nodes).toEqual([{ petId: sold.id.toString(), quantity: 0, status: 'SOLD' }]);
    const after = await t.gqlOk(Summary);
    expect(total('AVAILABLE', after) - total('AVAILABLE', before)).toBe(51);
    expect(total('SOLD', after)).toBe(total('SOLD', before));
  });

  it('reads the pet only for what asks for it (its status, a status filter), and counts right either way', async () => {
    const stocked = await makePet(t, { stock: 3 });
    await makePet(t, { status: 'sold' });
    const [{ all, sold }] = await t.db.prisma.$queryRaw<{ all: number; sold: number }[]>`
      SELECT count(*)::int AS all, count(*) FILTER (WHERE p.status = 'sold')::int AS sold
      FROM inventory_items i JOIN pets p ON p.id = i.pet_id`;
    /** The tables PostgreSQL's plan reads for the one statement `run` sends. */
    const tablesRead = async (run: () => Promise<unknown>): Promise<string[]> =>
      [...new Set((await relationsRead(run)).scans)].sort();
    const petId = stocked.id.toString();

    expect(await tablesRead(() => t.gqlOk(StockOnly, { petId }))).toEqual(['inventory_items']);
    expect(await tablesRead(() => t.gqlOk(Inventory, { petId }))).toEqual(['inventory_items', 'pets']);
    const counted = await t.gqlOk(StockCount, { first: 1 });
    expect(counted.inventoryItems.totalCount).toBe(all);
    expect(await tablesRead(() => t.gqlOk(StockCount, { first: 1 }))).toEqual(['inventory_items']);
    const soldOnly = { first: 1, filter: { status: 'SOLD' as const } };
    expect((await t.gqlOk(StockCount, soldOnly)).inventoryItems.totalCount).toBe(sold);
    expect(await tablesRead(() => t.gqlOk(StockCount, soldOnly))).toEqual(['inventory_items', 'pets']);
    // The page with the status still joins the pet, and answers the pet's own.
    const [first] = await t.db.prisma.$queryRaw<{ petId: bigint; status: string }[]>`
      SELECT i.pet_id AS "petId", p.status::text AS status
      FROM inventory_items i JOIN pets p ON p.id = i.pet_id ORDER BY i.pet_id LIMIT 1`;
    const page = await t.gqlOk(InventoryItems, { first: 1 });
    expect(page.inventoryItems.nodes[0]).toMatchObject({
      petId: first!.petId.toString(),
      status: first!.status.toUpperCase(),
    });
    expect(await tablesRead(() => t.gqlOk(InventoryItems, { first: 1 }))).toEqual(['inventory_items', 'pets']);
  });
  it("reads an entry's pet once when its status and its pet are both asked (the status from the pet's row)", async () => {
    const doc = (text: string) => text as unknown as TypedDocument<any, Record<string, never>>;
    const sold = await makePet(t, { status: 'sold' });
    /** How many times PostgreSQL's plan of the one statement `text` sends reads `pets`. */
    const petScans = async (text: string): Promise<{ data: any; scans: number }> => {
      const { result, scans } = await relationsRead(() => t.gqlOk(doc(text), {}));
      return { data: result, scans: scans.filter((table) => table === 'pets').length };
    };
    const petId = sold.id.toString();
    const lookup = await petScans(`{ inventory(petId: "${petId}") { status quantity pet { id name status } } }`);
    expect(lookup.data.inventory).toEqual({
      status: 'SOLD',
      quantity: 0,
      pet: { id: petId, name: sold.name, status: 'SOLD' },
    });
    expect(lookup.scans).toBe(1);
    const page = await petScans(`{ inventoryItems(first: 5) { nodes { petId status pet { id status } } } }`);
    expect(page.data.inventoryItems.nodes).toHaveLength(5);
    for (const node of page.data.inventoryItems.nodes) {
      expect(node.pet.id).toBe(node.petId);
      expect(node.status).toBe(node.pet.status);
    }
    expect(page.scans).toBe(1);
    // A status filter reads the entry's own join (its WHERE): the pet is read for it and for the relation.
    const filtered = await petScans(
      `{ inventoryItems(first: 5, filter: { status: SOLD }) { nodes { petId status pet { name } } } }`,
    );
    expect(new Set(filtered.data.inventoryItems.nodes.map((n: { status: string }) => n.status))).toEqual(
      new Set(['SOLD']),
    );
    // The status alone still joins the pet (once), as before.
    expect((await petScans(`{ inventoryItems(first: 5) { nodes { status } } }`)).scans).toBe(1);
  });
});

describe('the inventory summary past 2^31 - 1', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('sums 2,200 pets at the largest stock (2.2e9): a number, not INTERNAL', async () => {
    // Stock is 0..1,000,000 per pet: 2,148 such pets pass a 32-bit Int. Written in one statement.
    await t.db.prisma.$executeRawUnsafe(`
      WITH c AS (INSERT INTO categories (name, updated_at) VALUES ('Bulk', now()) RETURNING id),
           p AS (INSERT INTO pets (name, category_id, updated_at) SELECT 'Bulk ' || g, c.id, now() FROM c, generate_series(1, 2200) g RETURNING id)
      INSERT INTO inventory_items (pet_id, quantity, updated_at) SELECT id, 1000000, now() FROM p
      ON CONFLICT (pet_id) DO UPDATE SET quantity = EXCLUDED.quantity`);
    const res = await t.gql(Summary);
    expect(res.errors).toBeUndefined();
    expect(res.data?.inventorySummary.find((x) => x.status === 'AVAILABLE')?.quantity).toBe(2_200_000_000);
  });
});
