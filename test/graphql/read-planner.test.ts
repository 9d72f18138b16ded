import { parse as parseArray } from 'postgres-array';
import { referenceSchema } from '../helpers/reference-reads';
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

/**
 * Pages whose rows carry relations and whose hasNextPage/hasPreviousPage are not asked: the compiler
 * cuts the row a page reads beyond its size before reading its relations (forward and backward).
 */
const TrimmedPages = graphql(`
  query PlannedTrimmedPages($first: Int, $last: Int, $before: String, $pets: Int) {
    pets(first: $first, last: $last, before: $before) {
      edges {
        cursor
        node {
          id
          name
          category {
            name
          }
          inventory {
            quantity
          }
        }
      }
      pageInfo {
        startCursor
        endCursor
      }
    }
    categories(first: 3) {
      nodes {
        name
        pets(first: $pets) {
          nodes {
            name
            inventory {
              quantity
            }
          }
          pageInfo {
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

/** Shapes the three-shape planner left to the loaders: every one is compiled now. */
const EveryRelation = graphql(`
  query CompiledEveryRelation($id: ID!, $first: Int, $after: String) {
    pet(id: $id) {
      id
      name
      category {
        id
        name
        description
        pets(first: 2) {
          totalCount
          nodes {
            name
          }
        }
      }
      inventory {
        petId
        quantity
        status
        pet {
          id
          status
        }
      }
      orders(first: $first, after: $after) {
        totalCount
        edges {
          cursor
          node {
            id
            petId
            quantity
            shipDate
            complete
            pet {
              name
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
    inventoryItems(first: $first, filter: { quantityBelow: 3 }) {
      totalCount
      nodes {
        petId
        quantity
        status
        pet {
          __typename
          name
          category {
            name
          }
        }
      }
    }
    order(id: $id) {
      id
      shipDate
      pet {
        inventory {
          quantity
        }
      }
    }
    inventory(petId: $id) {
      quantity
    }
    category(id: $id) {
      a: pets(first: 1) {
        nodes {
          id
        }
      }
      b: pets(first: 3, filter: { status: AVAILABLE }) {
        totalCount
        edges {
          cursor
          node {
            name
            orders(first: 1) {
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

/** `nodes` and `edges.node` asking the same response key with other arguments. */
const TwinPaths = graphql(`
  query CompiledTwinPaths {
    categories(first: 4) {
      nodes {
        x: pets(first: 1) {
          nodes {
            id
          }
        }
      }
      edges {
        node {
          x: pets(first: 2) {
            nodes {
              name
            }
          }
        }
      }
    }
  }
`);

const TwoAliasesOneRefused = graphql(`
  query CompiledTwoAliasesOneRefused($id: ID!) {
    category(id: $id) {
      a: pets(first: 1) {
        nodes {
          id
        }
      }
      b: pets(first: 101) {
        nodes {
          id
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

const NarrowRows = graphql(`
  query NarrowRows {
    pets(first: 3) {
      nodes {
        name
      }
    }
  }
`);

const NarrowNested = graphql(`
  query NarrowNested {
    categories(first: 2) {
      nodes {
        pets(first: 2) {
          nodes {
            name
          }
        }
      }
    }
  }
`);

const NarrowJoined = graphql(`
  query NarrowJoined {
    orders(first: 2) {
      nodes {
        quantity
        pet {
          name
        }
      }
    }
  }
`);

/**
 * The read compiler (src/read/): each root field and everything below it in one statement.
 * The same database is served by a second app reading through the reference reader (a naive reader
 * per field generated from the relation table, test/helpers/reference-reads.ts) and a third compiling
 * on graphql-js instead of graphql-jit (GRAPHQL_JIT=false), and every answer must be the same bytes.
 */
describe('read planner', () => {
  let t: TestApp;
  let reference: TestApp;
  let withoutJit: TestApp;
  let firstCategory: string;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    reference = await createTestApp({
      auth: 'admin',
      transformSchema: referenceSchema,
      database: { db: t.db, config: t.config, sql: t.sql, destroy: async () => undefined },
    });
    withoutJit = await createTestApp({
      auth: 'admin',
      env: { GRAPHQL_JIT: 'false' },
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
      await insertOrder(t, {
        petId: i % 10 === 9 ? null : pets[(i * 3) % 40]!.id,
        complete: i % 3 === 0,
        shipDate: i % 2 === 0 ? new Date(Date.UTC(2026, 0, 1 + i, 12, 30, 0, 123)) : null,
      });
    // Ids above 2^53 must come back exact through PostgreSQL's JSON.
    const big = 9_007_199_254_740_993n;
    await t.db.prisma.category.create({ data: { id: big, name: 'Big' } });
    await t.db.prisma.pet.create({
      data: { id: big, name: 'Big', categoryId: big, inventory: { create: { quantity: 2 } } },
    });
    await insertOrder(t, { petId: big, shipDate: new Date(Date.UTC(2026, 5, 1)) });
    // Warm the API-key cache, so counts below are the query's own.
    await t.gqlOk(W1, { id: '1' });
    await reference.gqlOk(W1, { id: '1' });
    // Three apps and their data: minutes on a loaded machine, seconds on a quiet one.
  }, 240_000);
  afterAll(async () => {
    await reference.app.close();
    await withoutJit.app.close();
    await t.close();
  });

  async function same<R, V>(doc: TypedDocument<R, V>, variables: V): Promise<R | undefined> {
    const planned = await t.gql(doc, variables);
    const unplanned = await reference.gql(doc, variables);
    const graphqlJs = await withoutJit.gql(doc, variables);
    expect(JSON.stringify({ ...planned, headers: undefined })).toBe(
      JSON.stringify({ ...unplanned, headers: undefined }),
    );
    expect(JSON.stringify({ ...graphqlJs, headers: undefined })).toBe(
      JSON.stringify({ ...unplanned, headers: undefined }),
    );
    return planned.data ?? undefined;
  }

  /**
   * The one statement a document sends, once its answer is the reference reader's (and graphql-js's),
   * with that answer.
   */
  async function oneStatement<R>(doc: TypedDocument<R, Record<string, never>>) {
    const data = await same(doc, {});
    t.sql.reset();
    await t.gqlOk(doc, {});
    expect(t.sql.reads).toHaveLength(1);
    const [{ text, values }] = t.sql.reads;
    return { data, text, values };
  }

  it('answers every planned shape exactly as the reference reader does', async () => {
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

  it("cuts a page's extra row without changing the answer, paging forward and backward", async () => {
    const forward = await same(TrimmedPages, { first: 4, pets: 2 });
    expect(forward!.pets.edges).toHaveLength(4);
    expect(forward!.categories.nodes.map((c) => c.pets.nodes.length)).toEqual([2, 2, 2]);
    const nine = (await t.gqlOk(PetsPage, { first: 9 })).pets;
    const backward = await same(TrimmedPages, { last: 3, before: nine.pageInfo.endCursor, pets: 1 });
    // The three rows just before the cursor (the 6th to 8th), not the extra row read beyond them.
    expect(backward!.pets.edges.map((e) => e.node.id)).toEqual(nine.edges.slice(5, 8).map((e) => e.node.id));
  });

  it('answers every relation, at any depth, exactly as the reference reader does', async () => {
    for (const id of ['1', '2', '5', '9', '9007199254740993']) {
      const first = await same(EveryRelation, { id, first: 2 });
      const after = first?.pet?.orders.pageInfo.endCursor;
      if (after) await same(EveryRelation, { id, first: 2, after });
    }
    const answer = await same(EveryRelation, { id: '1', first: 5 });
    expect(answer!.pet!.orders.totalCount).toBeGreaterThan(0);
    expect(answer!.pet!.orders.edges[0]!.node.shipDate).toBeTruthy();
    await same(TwinPaths, {});
    const twins = await t.gqlOk(TwinPaths, {});
    expect(twins.categories.nodes[0]!.x.nodes).toHaveLength(1);
    expect(twins.categories.edges[0]!.node.x.nodes).toHaveLength(2);
  });

  it('sends a row only its key, what is selected and its sort keys, nothing carried unasked', async () => {
    /** The rows of the one statement the document sent, as PostgreSQL answers them. */
    const rowsOf = async <R>(doc: TypedDocument<R, Record<string, never>>): Promise<unknown[][]> => {
      const { text, values } = await oneStatement(doc);
      const rows = await t.db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values);
      return rows.map((row) => Object.values(row));
    };
    // A pet's id (its key, also its page's sort key) and its name: not its category id, not its status.
    const pets = await rowsOf(NarrowRows);
    expect(pets).toHaveLength(3);
    for (const row of pets) expect(row).toHaveLength(2);
    // A nested page's rows are arrays of text (parsed as the compiler parses them): each pet's is
    // its id and name.
    const nested = await rowsOf(NarrowNested);
    expect(nested).toHaveLength(2);
    for (const row of nested) {
      expect(row).toHaveLength(2); // the category's id, its page of pets
      const page = parseArray(String(row[1])) as unknown as string[][];
      expect(page).toHaveLength(2);
      for (const pet of page) expect(pet).toHaveLength(2);
    }
    // The order's id and quantity, its pet's id and name: the join needs no column of the answer.
    const orders = await rowsOf(NarrowJoined);
    expect(orders).toHaveLength(2);
    for (const row of orders) expect(row).toHaveLength(4);
  });

  it("answers a to-one relation that selects only its key from the parent's foreign key, not joining its row", async () => {
    const doc = (text: string) => text as unknown as TypedDocument<any, Record<string, never>>;
    // Orders whose pet is gone (null) among them; the key alone, its node id, its type name.
    const orders = await oneStatement(doc(`{ orders(first: 30) { nodes { id pet { id nodeId __typename } } } }`));
    expect(orders.data.orders.nodes.some((o: { pet: unknown }) => o.pet === null)).toBe(true);
    expect(orders.data.orders.nodes.some((o: { pet: unknown }) => o.pet !== null)).toBe(true);
    expect(orders.text).not.toMatch(/\bpets\b/);
    // In a nested page and below it, at any depth.
    const nested = await oneStatement(
      doc(`{ pets(first: 6) { nodes { id category { id } orders(first: 3) { nodes { pet { id } } } } } }`),
    );
    expect(nested.text).not.toMatch(/\bcategories\b/);
    expect(nested.text.match(/\bpets\b/g)).toHaveLength(1);
    const stock = await oneStatement(doc(`{ inventoryItems(first: 4) { nodes { quantity pet { nodeId } } } }`));
    expect(stock.text.match(/\bpets\b/g)).toHaveLength(1); // the entry's own status join, not the relation's
    // Anything more than the key is the row's: joined.
    const named = await oneStatement(doc(`{ orders(first: 30) { nodes { id pet { id name } } } }`));
    expect(named.text).toMatch(/\bpets\b/);
  });

  it('answers an empty counted page whose rows would carry a connection', async () => {
    const doc = (text: string) => text as unknown as TypedDocument<any, Record<string, never>>;
    // No match: the statement's one row is the count beside nulls, a nested page's column among them.
    const none = await oneStatement(
      doc(
        `{ pets(filter: { nameContains: "no such pet" }) { totalCount nodes { id orders(first: 2) { totalCount nodes { id } } } } }`,
      ),
    );
    expect(none.data).toEqual({ pets: { totalCount: 0, nodes: [] } });
    // A page past the last row of a list that has rows.
    const all = await t.gqlOk(doc(`{ categories(first: 100) { pageInfo { endCursor } } }`), {});
    const past = await oneStatement(
      doc(`{ categories(after: "${all.categories.pageInfo.endCursor}") { totalCount nodes { pets { totalCount } } } }`),
    );
    expect(past.data.categories.nodes).toEqual([]);
    expect(past.data.categories.totalCount).toBeGreaterThan(0);
  });

  it('reports a refused alias on its own path, the other alias answering', async () => {
    const reply = await t.gql(TwoAliasesOneRefused, { id: firstCategory });
    expect(reply.errors).toHaveLength(1);
    expect(reply.errors![0]).toMatchObject({
      path: ['category', 'b'],
      extensions: { code: 'VALIDATION_FAILED' },
    });
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
