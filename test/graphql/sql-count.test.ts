import { graphql } from '../gql';
import { createApiKey, createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { insertOrder, makeCategory, makePet } from '../helpers/factories';

const PetsWithRelations = graphql(`
  query PetsWithRelations($first: Int) {
    pets(first: $first) {
      nodes {
        id
        name
        category {
          name
        }
        inventory {
          quantity
          status
        }
      }
    }
  }
`);

const OrdersWithPets = graphql(`
  query OrdersWithPets($first: Int) {
    orders(first: $first) {
      nodes {
        id
        pet {
          name
          category {
            name
          }
        }
      }
    }
  }
`);

const CategoriesWithPets = graphql(`
  query CategoriesWithPets($first: Int) {
    categories(first: $first) {
      nodes {
        name
        pets(first: 3) {
          totalCount
          nodes {
            name
            orders(first: 2) {
              totalCount
              nodes {
                id
              }
            }
          }
        }
      }
    }
  }
`);

const W6 = graphql(`
  query CategoriesPetsInventory($first: Int, $pets: Int) {
    categories(first: $first) {
      nodes {
        id
        name
        pets(first: $pets) {
          nodes {
            id
            name
            status
            inventory {
              quantity
            }
          }
          pageInfo {
            hasNextPage
            endCursor
          }
        }
      }
    }
  }
`);

const PetById = graphql(`
  query PlannedPetById($id: ID!) {
    pet(id: $id) {
      id
      name
      categoryId
      status
    }
  }
`);

const PetsCounted = graphql(`
  query CompiledPetsCounted($first: Int) {
    pets(first: $first) {
      totalCount
      nodes {
        name
      }
    }
  }
`);

const PetsWithOrders = graphql(`
  query CompiledPetsWithOrders($first: Int) {
    pets(first: $first) {
      nodes {
        name
        orders(first: 2) {
          totalCount
          nodes {
            id
            shipDate
          }
        }
      }
    }
  }
`);

const InventoryWithPets = graphql(`
  query CompiledInventoryWithPets($first: Int) {
    inventoryItems(first: $first) {
      nodes {
        quantity
        pet {
          name
          category {
            name
          }
        }
      }
    }
  }
`);

const PetWithRelations = graphql(`
  query CompiledPetWithRelations($id: ID!) {
    pet(id: $id) {
      name
      category {
        name
      }
      inventory {
        quantity
      }
    }
  }
`);

const TwoAliases = graphql(`
  query CompiledTwoAliases($first: Int) {
    categories(first: $first) {
      nodes {
        few: pets(first: 1) {
          nodes {
            id
          }
        }
        available: pets(first: 5, filter: { status: AVAILABLE }) {
          totalCount
          edges {
            cursor
            node {
              name
            }
          }
        }
      }
    }
  }
`);

const DeepRelations = graphql(`
  query CompiledDeepRelations($first: Int) {
    categories(first: $first) {
      nodes {
        pets(first: 3) {
          nodes {
            category {
              name
            }
          }
        }
      }
    }
    orders(first: $first) {
      nodes {
        pet {
          orders(first: 2) {
            nodes {
              pet {
                inventory {
                  pet {
                    name
                  }
                }
              }
            }
          }
        }
      }
    }
  }
`);

const SeveralRoots = graphql(`
  query CompiledSeveralRoots($id: ID!) {
    pet(id: $id) {
      name
    }
    category(id: $id) {
      pets(first: 2) {
        totalCount
      }
    }
    order(id: $id) {
      pet {
        name
      }
    }
    inventory(petId: $id) {
      pet {
        category {
          name
        }
      }
    }
    pets(first: 2) {
      totalCount
    }
  }
`);

const PlaceOrderCounted = graphql(`
  mutation PlaceOrderCounted($petId: ID!) {
    placeOrder(input: { petId: $petId, quantity: 1 }) {
      id
      quantity
    }
  }
`);

const CompleteOrderCounted = graphql(`
  mutation CompleteOrderCounted($id: ID!) {
    completeOrder(id: $id) {
      id
      complete
    }
  }
`);

const CancelOrderCounted = graphql(`
  mutation CancelOrderCounted($id: ID!) {
    cancelOrder(id: $id) {
      id
    }
  }
`);

const SetStockCounted = graphql(`
  mutation SetStockCounted($petId: ID!) {
    updateInventory(petId: $petId, input: { quantity: 7 }) {
      quantity
      status
    }
  }
`);

async function seed(t: TestApp): Promise<void> {
  const categories = [];
  for (let c = 0; c < 10; c++) categories.push(await makeCategory(t));
  const pets = [];
  for (let i = 0; i < 100; i++) pets.push(await makePet(t, { categoryId: categories[i % 10]!.id, stock: i }));
  for (let i = 0; i < 50; i++) await insertOrder(t, { petId: pets[(i * 7) % 100]!.id });
  // The key's first use reads it and records its last-used time; from then on the process has it
  // cached (test/graphql/api-key-cache.test.ts), so the measured requests pay nothing for the key.
  await t.gqlOk(PetsWithRelations, { first: 1 });
}

async function statementsIn<R, V>(
  t: TestApp,
  doc: TypedDocument<R, V>,
  variables: V,
): Promise<{ count: number; data: R }> {
  t.sql.reset();
  const data = await t.gqlOk(doc, variables);
  return { count: t.sql.count, data };
}

/**
 * The read compiler (src/read/): every root query field takes ONE statement, with every
 * relation selected below it (to-one, connections, counts, aliases, at any depth), whatever the page
 * sizes.
 */
describe('SQL statements per query, read compiler on (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    await seed(t);
  });
  afterAll(() => t.close());

  it('reads an API key on its first request only', async () => {
    const headers = await createApiKey(t, ['orders:read'], 'read once');
    const keyStatements = () => t.sql.statements.filter((q) => q.includes('"api_keys"'));
    t.sql.reset();
    await t.gqlOk(PetsWithRelations, { first: 10 }, headers);
    // The key's lookup, and its first use recorded (a write at most once a minute).
    expect(keyStatements()).toEqual([expect.stringMatching(/^SELECT /), expect.stringMatching(/^UPDATE /)]);
    t.sql.reset();
    await t.gqlOk(PetsWithRelations, { first: 10 }, headers);
    expect(keyStatements()).toEqual([]);
    expect(t.sql.count).toBe(1); // the pets with their categories and stock: the key is cached
  });

  it('reads pet(id) in one statement', async () => {
    expect((await statementsIn(t, PetById, { id: '5' })).count).toBe(1);
  });

  it('lists pets with category and inventory in one statement, for 10 or 100', async () => {
    const small = await statementsIn(t, PetsWithRelations, { first: 10 });
    const large = await statementsIn(t, PetsWithRelations, { first: 100 });
    expect(large.data.pets.nodes).toHaveLength(100);
    expect(large.data.pets.nodes[99]!.category.name).toBeTruthy();
    expect([small.count, large.count]).toEqual([1, 1]);
  });

  it('lists orders with pet and category in one statement, for 10 or 50', async () => {
    const small = await statementsIn(t, OrdersWithPets, { first: 10 });
    const large = await statementsIn(t, OrdersWithPets, { first: 50 });
    expect(large.data.orders.nodes).toHaveLength(50);
    expect([small.count, large.count]).toEqual([1, 1]);
  });

  it('lists categories with their first pets and inventory in one statement, for 2 x 3 or 10 x 10', async () => {
    const small = await statementsIn(t, W6, { first: 2, pets: 3 });
    const large = await statementsIn(t, W6, { first: 10, pets: 10 });
    expect(large.data.categories.nodes.map((c) => c.pets.nodes.length)).toEqual(Array(10).fill(10));
    expect([small.count, large.count]).toEqual([1, 1]);
  });

  it('places an order in one statement (one round trip), with or without an idempotency key', async () => {
    const pet = await makePet(t, { stock: 5 });
    t.sql.reset();
    await t.gqlOk(PlaceOrderCounted, { petId: pet.id.toString() });
    expect(t.sql.count).toBe(1);
    t.sql.reset();
    await t.gqlOk(PlaceOrderCounted, { petId: pet.id.toString() }, { 'idempotency-key': 'count-me-once' });
    // The statement itself; the first use of a key per process may also clean up expired keys.
    expect(t.sql.statements.filter((s) => !s.includes('DELETE FROM idempotency_keys'))).toHaveLength(1);
  });

  it('completes, cancels and restocks in one statement each', async () => {
    const pet = await makePet(t, { stock: 5 });
    const first = await t.gqlOk(PlaceOrderCounted, { petId: pet.id.toString() });
    const second = await t.gqlOk(PlaceOrderCounted, { petId: pet.id.toString() });
    const counted = async <R, V>(doc: TypedDocument<R, V>, variables: V) =>
      (await statementsIn(t, doc, variables)).count;
    expect(await counted(CompleteOrderCounted, { id: first.placeOrder.id })).toBe(1);
    expect(await counted(CancelOrderCounted, { id: second.placeOrder.id })).toBe(1);
    expect(await counted(SetStockCounted, { petId: pet.id.toString() })).toBe(1);
  });

  it('reads any nesting in one statement per root field, whatever the page sizes', async () => {
    const small = await statementsIn(t, CategoriesWithPets, { first: 2 });
    const large = await statementsIn(t, CategoriesWithPets, { first: 10 });
    expect(large.data.categories.nodes[0]!.pets.nodes[0]!.orders.totalCount).toBeGreaterThanOrEqual(0);
    expect([small.count, large.count]).toEqual([1, 1]);
  });

  it.each([
    ['totalCount', PetsCounted, { first: 10 }],
    ['Pet.orders with their count', PetsWithOrders, { first: 20 }],
    ['inventoryItems with their pet and its category', InventoryWithPets, { first: 20 }],
    ['a second alias of a connection with other arguments', TwoAliases, { first: 5 }],
  ] as const)('reads %s in one statement', async (_name, doc, variables) => {
    expect((await statementsIn(t, doc as TypedDocument<unknown, typeof variables>, variables)).count).toBe(1);
  });

  it('reads pet(id) with its category and inventory in one statement', async () => {
    const { count, data } = await statementsIn(t, PetWithRelations, { id: '5' });
    expect(data.pet!.category.name).toBeTruthy();
    expect(data.pet!.inventory!.quantity).toBe(4);
    expect(count).toBe(1);
  });

  it('reads relations below relations in one statement per root field', async () => {
    const { count, data } = await statementsIn(t, DeepRelations, { first: 10 });
    expect(data.orders.nodes.some((o) => o.pet?.orders.nodes.length)).toBe(true);
    expect(count).toBe(2);
  });

  it('reads several root fields in one statement each', async () => {
    const { count, data } = await statementsIn(t, SeveralRoots, { id: '3' });
    expect(data.inventory!.pet.category.name).toBeTruthy();
    expect(count).toBe(5);
  });
});
