import { graphql } from '../gql';
import { createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { insertOrder, makeCategory, makePet } from '../helpers/factories';

const PetsPage = graphql(`
  query PlannedPets($first: Int, $after: String, $last: Int, $before: String, $orderBy: PetOrder, $filter: PetFilter) {
    pets(first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy, filter: $filter) {
      totalCount
      edges {
        cursor
        node {
          id
          name
          status
          category {
            id
            name
            description
          }
          inventory {
            petId
            quantity
            status
          }
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`);

const OrdersPage = graphql(`
  query PlannedOrders($first: Int, $after: String, $filter: OrderFilter) {
    orders(first: $first, after: $after, filter: $filter) {
      totalCount
      nodes {
        id
        petId
        quantity
        complete
        pet {
          id
          name
          categoryId
          status
          category {
            name
          }
          inventory {
            quantity
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const CategoriesWithPets = graphql(`
  query PlannedCategories($first: Int, $pets: Int, $after: String, $filter: PetFilter) {
    categories(first: $first) {
      nodes {
        id
        name
        pets(first: $pets, after: $after, filter: $filter) {
          totalCount
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

/** Fragments, an alias with other arguments, a literal argument and @skip: shapes the planner must read right. */
const MixedShapes = graphql(`
  query PlannedMixed($skip: Boolean!) {
    categories(first: 3) {
      edges {
        node {
          ...CategoryFields
          few: pets(first: 1) {
            nodes {
              name
            }
          }
        }
      }
    }
    pets(first: 4) {
      nodes {
        ... on Pet {
          name
          category @skip(if: $skip) {
            name
          }
        }
      }
    }
  }
  fragment CategoryFields on Category {
    name
    pets(first: 2) {
      nodes {
        name
        inventory {
          quantity
        }
        orders(first: 1) {
          nodes {
            id
          }
        }
      }
    }
  }
`);

const W1 = graphql(`
  query PlannedPet($id: ID!) {
    pet(id: $id) {
      id
      name
      categoryId
      status
    }
  }
`);

/**
 * The read planner (src/graphql/planner): root lists read their relations in their own statement
 * and prime the DataLoaders with them. The same database is served by a second app with the planner
 * off (GRAPHQL_READ_PLANNER=false: DataLoaders only), and every answer must be the same bytes.
 */
describe('read planner', () => {
  let t: TestApp;
  let loadersOnly: TestApp;
  let firstCategory: string;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    loadersOnly = await createTestApp({
      auth: 'admin',
      env: { GRAPHQL_READ_PLANNER: 'false' },
      database: { db: t.db, config: t.config, sql: t.sql, destroy: async () => undefined },
    });
    const categories = [];
    for (let c = 0; c < 6; c++) categories.push(await makeCategory(t, `Kind "${c}" \\ ü`));
    firstCategory = categories[0]!.id.toString();
    const pets = [];
    for (let i = 0; i < 40; i++) {
      pets.push(await makePet(t, { name: `Pet ${i % 7}`, categoryId: categories[i % 5]!.id, stock: i % 4 }));
    }
    for (let i = 0; i < 30; i++)
      await insertOrder(t, { petId: i % 10 === 9 ? null : pets[(i * 3) % 40]!.id, complete: i % 3 === 0 });
    // Warm the API-key cache, so counts below are the query's own.
    await t.gqlOk(W1, { id: '1' });
    await loadersOnly.gqlOk(W1, { id: '1' });
  });
  afterAll(async () => {
    await loadersOnly.app.close();
    await t.close();
  });

  async function same<R, V>(doc: TypedDocument<R, V>, variables: V): Promise<R | undefined> {
    const planned = await t.gql(doc, variables);
    const unplanned = await loadersOnly.gql(doc, variables);
    expect(JSON.stringify({ ...planned, headers: undefined })).toBe(
      JSON.stringify({ ...unplanned, headers: undefined }),
    );
    return planned.data ?? undefined;
  }

  it('answers every planned shape exactly as the DataLoaders alone do', async () => {
    const page = await same(PetsPage, { first: 7 });
    const after = page!.pets.pageInfo.endCursor;
    await same(PetsPage, { first: 7, after });
    await same(PetsPage, { last: 3, before: after });
    await same(PetsPage, { first: 5, orderBy: { field: 'NAME', direction: 'DESC' } });
    await same(PetsPage, { first: 5, filter: { status: 'AVAILABLE', nameContains: 'Pet 3' } });
    const orders = await same(OrdersPage, { first: 12 });
    expect(orders!.orders.nodes.some((o) => o.pet === null)).toBe(true);
    await same(OrdersPage, { first: 4, after: orders!.orders.pageInfo.endCursor, filter: { complete: false } });
    const nested = await same(CategoriesWithPets, { first: 6, pets: 3 });
    expect(nested!.categories.nodes.at(-1)!.pets.nodes).toEqual([]);
    const cursor = nested!.categories.nodes[0]!.pets.pageInfo.endCursor;
    await same(CategoriesWithPets, { first: 6, pets: 2, after: cursor });
    await same(CategoriesWithPets, { first: 6, pets: 2, filter: { categoryId: firstCategory, status: 'AVAILABLE' } });
    await same(MixedShapes, { skip: true });
    await same(MixedShapes, { skip: false });
    await same(W1, { id: '3' });
  });

  it('leaves a refused nested argument to the nested field, as before', async () => {
    await same(CategoriesWithPets, { first: 2, pets: 2, after: 'not-a-cursor' });
    await same(CategoriesWithPets, { first: 2, pets: 0 });
    const refused = await t.gql(CategoriesWithPets, { first: 2, pets: 2, after: 'not-a-cursor' });
    expect(refused.errors?.[0]).toMatchObject({
      path: ['categories', 'nodes', 0, 'pets'],
      extensions: { code: 'VALIDATION_FAILED' },
    });
  });
});
