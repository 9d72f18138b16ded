import { graphql } from '../gql';
import type { PagePetsQuery } from '../gql/graphql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory, makePet } from '../helpers/factories';

const Pets = graphql(`
  query PagePets($filter: PetFilter, $orderBy: PetOrder, $first: Int, $after: String, $last: Int, $before: String) {
    pets(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
      totalCount
      edges {
        cursor
        node {
          name
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

const cursorOf = (values: string[]) => Buffer.from(JSON.stringify(values)).toString('base64url');

describe('pagination', () => {
  let t: TestApp;
  let categoryId: string;
  const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'];
  beforeAll(async () => {
    t = await createTestApp();
    const c = await makeCategory(t);
    categoryId = c.id.toString();
    for (const name of names) await makePet(t, { name, categoryId: c.id });
  });
  afterAll(() => t.close());

  const inCategory = () => ({ categoryId });
  const namesOf = (d: { pets: { edges: { node: { name: string } }[] } }) => d.pets.edges.map((e) => e.node.name);

  it('answers an empty page for no matches', async () => {
    const data = await t.gqlOk(Pets, { filter: { nameContains: 'no such pet' } });
    expect(data.pets).toEqual({
      totalCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('answers exactly one page without a next page', async () => {
    const data = await t.gqlOk(Pets, { filter: inCategory(), first: 5 });
    expect(namesOf(data)).toEqual(names);
    expect(data.pets.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    expect(data.pets.totalCount).toBe(5);
  });

  it('walks forward page by page, and finds nothing after the last cursor', async () => {
    const p1 = await t.gqlOk(Pets, { filter: inCategory(), first: 2 });
    const p2 = await t.gqlOk(Pets, { filter: inCategory(), first: 2, after: p1.pets.pageInfo.endCursor });
    const p3 = await t.gqlOk(Pets, { filter: inCategory(), first: 2, after: p2.pets.pageInfo.endCursor });
    expect([...namesOf(p1), ...namesOf(p2), ...namesOf(p3)]).toEqual(names);
    expect(p3.pets.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const beyond = await t.gqlOk(Pets, { filter: inCategory(), first: 2, after: p3.pets.pageInfo.endCursor });
    expect(beyond.pets.edges).toEqual([]);
    expect(beyond.pets.pageInfo.hasNextPage).toBe(false);
  });

  it('sorts by name both ways and pages backward with last/before', async () => {
    const asc = await t.gqlOk(Pets, { filter: inCategory(), orderBy: { field: 'NAME' } });
    const sorted = [...names].sort((a, b) => (a < b ? -1 : 1));
    expect(namesOf(asc)).toEqual(sorted);
    const desc = await t.gqlOk(Pets, { filter: inCategory(), orderBy: { field: 'NAME', direction: 'DESC' } });
    expect(namesOf(desc)).toEqual([...sorted].reverse());
    const lastTwo = await t.gqlOk(Pets, { filter: inCategory(), orderBy: { field: 'NAME' }, last: 2 });
    expect(namesOf(lastTwo)).toEqual(sorted.slice(-2));
    expect(lastTwo.pets.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = await t.gqlOk(Pets, {
      filter: inCategory(),
      orderBy: { field: 'NAME' },
      last: 2,
      before: lastTwo.pets.pageInfo.startCursor,
    });
    expect(namesOf(before)).toEqual(sorted.slice(-4, -2));
  });

  it('pages one by one through pets of the same name, in both directions, without skipping or repeating', async () => {
    // Equal names are ordered by id: a cursor's name alone would skip or repeat the other twins.
    const c = await makeCategory(t);
    for (const name of ['twin', 'solo', 'twin', 'twin', 'a twin']) await makePet(t, { name, categoryId: c.id });
    const filter = { categoryId: c.id.toString() };
    const cursorsOf = (d: { pets: { edges: { cursor: string }[] } }) => d.pets.edges.map((e) => e.cursor);
    for (const direction of ['ASC', 'DESC'] as const) {
      const orderBy = { field: 'NAME' as const, direction };
      const whole = cursorsOf(await t.gqlOk(Pets, { filter, orderBy, first: 10 }));
      expect(whole).toHaveLength(5);
      const forward: string[] = [];
      let after: string | null = null;
      for (let i = 0; i < 6; i++) {
        const page: PagePetsQuery = await t.gqlOk(Pets, { filter, orderBy, first: 1, after });
        forward.push(...cursorsOf(page));
        after = page.pets.pageInfo.endCursor;
        if (!page.pets.pageInfo.hasNextPage) break;
      }
      expect(forward).toEqual(whole);
      const backward: string[] = [];
      let before: string | null = null;
      for (let i = 0; i < 6; i++) {
        const page: PagePetsQuery = await t.gqlOk(Pets, { filter, orderBy, last: 1, before });
        backward.unshift(...cursorsOf(page));
        before = page.pets.pageInfo.startCursor;
        if (!page.pets.pageInfo.hasPreviousPage) break;
      }
      expect(backward).toEqual(whole);
    }
  });

  it.each([
    ['first: 0', { first: 0 }, 'first'],
    ['first: 101', { first: 101 }, 'first'],
    ['last: 101', { last: 101 }, 'last'],
    ['a garbage cursor', { after: 'not-a-cursor' }, 'after'],
    ['a cursor of another ordering', { orderBy: { field: 'NAME' as const }, after: 'WyJpZC1hc2MiLCIxIl0' }, 'after'],
    ['first with before', { first: 1, before: 'WyJpZC1hc2MiLCIxIl0' }, 'first'],
    // Well-formed cursors that no page of ours can produce: checked, never sent to the database.
    ['a cursor id above int64', { after: cursorOf(['id-asc', '9999999999999999999']) }, 'after'],
    [
      'a cursor id below int64',
      {
        orderBy: { field: 'ID' as const, direction: 'DESC' as const },
        after: cursorOf(['id-desc', '-9999999999999999999']),
      },
      'after',
    ],
    [
      'a cursor name with a NUL byte',
      { orderBy: { field: 'NAME' as const }, after: cursorOf(['name-asc', 'a\u0000b', '1']) },
      'after',
    ],
    // Base64url decoding skips what is not base64url, and the JSON and ids inside have other
    // spellings: each of these read as the cursor of pet 1, though no page of ours wrote them.
    ['a cursor with a character added', { after: 'WyJpZC1hc2MiLCIxIl0!' }, 'after'],
    ['a cursor with padding', { after: 'WyJpZC1hc2MiLCIxIl0=' }, 'after'],
    ['a cursor with a padded id', { after: cursorOf(['id-asc', '01']) }, 'after'],
    ['a cursor spelt with spaces', { after: Buffer.from('[ "id-asc", "1" ]').toString('base64url') }, 'after'],
  ])('rejects %s with VALIDATION_FAILED', async (_label, args, field) => {
    const reply = await t.gql(Pets, args);
    expect(reply.errors?.[0]).toMatchObject({
      message: expect.stringContaining(field),
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
  });

  it('treats % and _ in nameContains as themselves', async () => {
    await makePet(t, { name: '100% Dog' });
    expect(namesOf(await t.gqlOk(Pets, { filter: { nameContains: '%' } }))).toEqual(['100% Dog']);
    expect(namesOf(await t.gqlOk(Pets, { filter: { nameContains: '_' } }))).toEqual([]);
  });
});
