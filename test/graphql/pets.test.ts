import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory, makePet } from '../helpers/factories';

const CreatePet = graphql(`
  mutation CreatePet($input: NewPet!) {
    createPet(input: $input) {
      id
      name
      categoryId
      status
      category {
        id
        name
      }
      inventory {
        petId
        quantity
        status
      }
    }
  }
`);

const GetPet = graphql(`
  query GetPet($id: ID!) {
    pet(id: $id) {
      id
      name
      status
      categoryId
    }
  }
`);

const UpdatePet = graphql(`
  mutation UpdatePet($id: ID!, $input: PetUpdate!) {
    updatePet(id: $id, input: $input) {
      id
      name
      categoryId
      status
    }
  }
`);

const SetPetStatus = graphql(`
  mutation SetPetStatus($id: ID!, $status: PetStatus!) {
    setPetStatus(id: $id, status: $status) {
      id
      status
    }
  }
`);

const DeletePet = graphql(`
  mutation DeletePet($id: ID!) {
    deletePet(id: $id) {
      id
      name
    }
  }
`);

describe('pets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('creates a pet with its category and an inventory entry at quantity 0', async () => {
    const category = await makeCategory(t, 'Dogs');
    const data = await t.gqlOk(CreatePet, { input: { name: '  Rex  ', categoryId: category.id.toString() } });
    expect(data.createPet).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Rex',
      categoryId: category.id.toString(),
      status: 'AVAILABLE',
      category: { id: category.id.toString(), name: 'Dogs' },
      inventory: { petId: data.createPet.id, quantity: 0, status: 'AVAILABLE' },
    });
    const stored = await t.db.prisma.inventoryItem.findUnique({ where: { petId: BigInt(data.createPet.id) } });
    expect(stored?.quantity).toBe(0);
  });

  it('accepts the category id as an integer literal or a string', async () => {
    const category = await makeCategory(t);
    const data = await t.gqlOk(CreatePet, { input: { name: 'Tom', categoryId: Number(category.id), status: 'SOLD' } });
    expect(data.createPet.status).toBe('SOLD');
  });

  it('reads a pet by id and answers null for an unknown id', async () => {
    const pet = await makePet(t, { name: 'Kitty' });
    expect((await t.gqlOk(GetPet, { id: pet.id.toString() })).pet).toMatchObject({
      id: pet.id.toString(),
      name: 'Kitty',
    });
    expect((await t.gqlOk(GetPet, { id: '999999999' })).pet).toBeNull();
  });

  it('rejects an unknown category with VALIDATION_FAILED and stores nothing', async () => {
    const before = await t.db.prisma.pet.count();
    const reply = await t.gql(CreatePet, { input: { name: 'Ghost', categoryId: '987654321' } });
    expect(reply.errors?.[0]).toMatchObject({
      message: expect.stringContaining('categoryId'),
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
    expect(await t.db.prisma.pet.count()).toBe(before);
  });

  it.each([
    ['an empty name', ''],
    ['a blank name', '   '],
    ['a name over 100 characters', 'x'.repeat(101)],
    ['a name with a NUL byte', 'Re\u0000x'],
  ])('rejects %s with VALIDATION_FAILED', async (_label, name) => {
    const category = await makeCategory(t);
    const reply = await t.gql(CreatePet, { input: { name, categoryId: category.id.toString() } });
    expect(reply.errors?.[0]?.extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
    expect(reply.errors?.[0]?.message).toMatch(/^name: /);
  });

  it('updates only the given fields', async () => {
    const pet = await makePet(t, { name: 'Old' });
    const other = await makeCategory(t);
    const data = await t.gqlOk(UpdatePet, {
      id: pet.id.toString(),
      input: { name: 'New', categoryId: other.id.toString() },
    });
    expect(data.updatePet).toEqual({
      id: pet.id.toString(),
      name: 'New',
      categoryId: other.id.toString(),
      status: 'AVAILABLE',
    });
  });

  it('answers NOT_FOUND when updating, re-statusing or deleting a pet that does not exist', async () => {
    for (const reply of [
      await t.gql(UpdatePet, { id: '424242', input: { name: 'x' } }),
      await t.gql(SetPetStatus, { id: '424242', status: 'SOLD' }),
      await t.gql(DeletePet, { id: '424242' }),
    ]) {
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
    }
  });

  it('sets the status', async () => {
    const pet = await makePet(t);
    expect((await t.gqlOk(SetPetStatus, { id: pet.id.toString(), status: 'SOLD' })).setPetStatus.status).toBe('SOLD');
  });

  it('deletes a pet and its inventory entry, returning the pet as it was', async () => {
    const pet = await makePet(t, { name: 'Gone' });
    expect((await t.gqlOk(DeletePet, { id: pet.id.toString() })).deletePet).toEqual({
      id: pet.id.toString(),
      name: 'Gone',
    });
    expect(await t.db.prisma.pet.findUnique({ where: { id: pet.id } })).toBeNull();
    expect(await t.db.prisma.inventoryItem.findUnique({ where: { petId: pet.id } })).toBeNull();
  });
});
