import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory, makePet } from '../helpers/factories';

const CreateCategory = graphql(`
  mutation CreateCategory($input: NewCategory!) {
    createCategory(input: $input) {
      id
      name
      description
    }
  }
`);

const UpdateCategory = graphql(`
  mutation UpdateCategory($id: ID!, $input: CategoryUpdate!) {
    updateCategory(id: $id, input: $input) {
      id
      name
      description
    }
  }
`);

const DeleteCategory = graphql(`
  mutation DeleteCategory($id: ID!) {
    deleteCategory(id: $id) {
      id
      name
    }
  }
`);

const CategoryWithPets = graphql(`
  query CategoryWithPets($id: ID!, $filter: PetFilter, $first: Int, $after: String) {
    category(id: $id) {
      name
      pets(filter: $filter, first: $first, after: $after) {
        totalCount
        nodes {
          name
          status
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

describe('categories', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('creates a category, trimming the name and keeping the description', async () => {
    const data = await t.gqlOk(CreateCategory, { input: { name: ' Birds ', description: 'Feathered' } });
    expect(data.createCategory).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Birds',
      description: 'Feathered',
    });
  });

  it('rejects a duplicate name with CONFLICT', async () => {
    await makeCategory(t, 'Unique');
    const reply = await t.gql(CreateCategory, { input: { name: 'Unique' } });
    expect(reply.errors?.[0]).toMatchObject({
      message: 'A category named "Unique" already exists',
      extensions: { code: 'CONFLICT', status: 409 },
    });
  });

  it('rejects a description over 1000 characters', async () => {
    const reply = await t.gql(CreateCategory, { input: { name: 'Long', description: 'd'.repeat(1001) } });
    expect(reply.errors?.[0]).toMatchObject({ message: /^description: /, extensions: { code: 'VALIDATION_FAILED' } });
  });

  it('rejects control characters in a description, C1 ones too, but keeps tabs and newlines', async () => {
    // U+009B is the one-byte CSI of terminals, U+0080-U+009F the C1 controls: as control as U+0007.
    for (const description of ['bell \u0007', 'csi \u009b31m', 'padding \u0080', 'apc \u009f']) {
      const reply = await t.gql(CreateCategory, { input: { name: 'Controls', description } });
      expect(reply.errors?.[0]).toMatchObject({
        message: 'description: must not contain control characters',
        extensions: { code: 'VALIDATION_FAILED', status: 400 },
      });
    }
    const ok = await t.gqlOk(CreateCategory, { input: { name: 'Whitespace', description: 'a\tb\r\nc\nd' } });
    expect(ok.createCategory.description).toBe('a\tb\r\nc\nd');
  });

  it('updates the name, clears the description with null, and keeps what is absent', async () => {
    const c = await t.services.categories.create({ name: 'Before', description: 'old' });
    const renamed = await t.gqlOk(UpdateCategory, { id: c.id.toString(), input: { name: 'After' } });
    expect(renamed.updateCategory).toMatchObject({ name: 'After', description: 'old' });
    const cleared = await t.gqlOk(UpdateCategory, { id: c.id.toString(), input: { description: null } });
    expect(cleared.updateCategory).toMatchObject({ name: 'After', description: null });
  });

  it('answers CONFLICT when renaming onto an existing name, and NOT_FOUND for an unknown id', async () => {
    await makeCategory(t, 'Taken');
    const c = await makeCategory(t);
    expect(
      (await t.gql(UpdateCategory, { id: c.id.toString(), input: { name: 'Taken' } })).errors?.[0]?.extensions.code,
    ).toBe('CONFLICT');
    expect((await t.gql(UpdateCategory, { id: '77777777', input: { name: 'x' } })).errors?.[0]?.extensions).toEqual({
      code: 'NOT_FOUND',
      status: 404,
    });
  });

  it('deletes an empty category and refuses one that still has pets', async () => {
    const empty = await makeCategory(t, 'Empty');
    expect((await t.gqlOk(DeleteCategory, { id: empty.id.toString() })).deleteCategory).toEqual({
      id: empty.id.toString(),
      name: 'Empty',
    });
    const full = await makeCategory(t);
    await makePet(t, { categoryId: full.id });
    const reply = await t.gql(DeleteCategory, { id: full.id.toString() });
    expect(reply.errors?.[0]).toMatchObject({ extensions: { code: 'CONFLICT', status: 409 } });
    expect(await t.db.prisma.category.findUnique({ where: { id: full.id } })).not.toBeNull();
  });

  it('lists its pets, filtered and paged', async () => {
    const c = await makeCategory(t);
    for (const [name, status] of [
      ['Ann', 'available'],
      ['Bob', 'sold'],
      ['Cid', 'available'],
      ['Dan', 'available'],
    ] as const) {
      await makePet(t, { name, categoryId: c.id, status });
    }
    const page1 = await t.gqlOk(CategoryWithPets, { id: c.id.toString(), filter: { status: 'AVAILABLE' }, first: 2 });
    expect(page1.category?.pets).toMatchObject({
      totalCount: 3,
      nodes: [{ name: 'Ann' }, { name: 'Cid' }],
      pageInfo: { hasNextPage: true },
    });
    const page2 = await t.gqlOk(CategoryWithPets, {
      id: c.id.toString(),
      filter: { status: 'AVAILABLE' },
      first: 2,
      after: page1.category!.pets.pageInfo.endCursor,
    });
    expect(page2.category?.pets).toMatchObject({ nodes: [{ name: 'Dan' }], pageInfo: { hasNextPage: false } });
    const byName = await t.gqlOk(CategoryWithPets, { id: c.id.toString(), filter: { nameContains: 'O' } });
    expect(byName.category?.pets.nodes.map((p) => p.name)).toEqual(['Bob']);
  });
});
