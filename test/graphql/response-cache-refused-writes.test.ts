/**
 * The response cache is invalidated by a mutation that ran (docs/caching.md "Invalidation"), not by
 * one refused before it ran: a mutation without a key (401), without the scope (403), or with a bad
 * variable (400) writes nothing, and must not empty the cache of every process (any anonymous
 * client could otherwise keep it empty with one request now and then). Over real HTTP.
 */
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { createApiKey } from '../helpers/test-app';
import { pollUntil } from '../helpers/poll';

describe('the response cache and refused mutations', () => {
  let t: ListeningApp;
  let petId: string;
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, age: res.headers.get('age'), body: (await res.json()) as any };
  };
  beforeAll(async () => {
    t = await createListeningApp({ env: { RESPONSE_CACHE_TTL_S: '60' } });
    const category = await post({ query: 'mutation { createCategory(input: { name: "Dogs" }) { id } }' }, t.admin);
    const pet = await post(
      {
        query: 'mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }',
        variables: { c: category.body.data.createCategory.id },
      },
      t.admin,
    );
    petId = pet.body.data.createPet.id;
  });
  afterAll(async () => t?.close());

  it('keeps its answers after mutations refused before they ran, and drops them after one that ran', async () => {
    const read = { query: `{ pet(id: ${petId}) { name } }` };
    // A hit that lasts: the setup's writes, heard back over LISTEN, empty the cache once more.
    const warm = await pollUntil(
      async () => {
        await post(read);
        await new Promise((r) => setTimeout(r, 250));
        return post(read);
      },
      (r) => r.age !== null,
    );
    expect(warm.age).not.toBeNull();
    const readOnly = await createApiKey(t, ['orders:read']);
    const refused: [unknown, Record<string, string>, number][] = [
      [{ query: `mutation { deletePet(id: ${petId}) { id } }` }, {}, 401],
      [{ query: `mutation { deletePet(id: ${petId}) { id } }` }, readOnly, 403],
      [{ query: 'mutation($id: ID!) { deletePet(id: $id) { id } }', variables: { id: 'x' } }, t.admin, 400],
    ];
    for (const [body, headers, status] of refused) {
      const answer = await post(body, headers);
      expect(answer.status).toBe(status);
      expect(answer.body.data).toBeUndefined();
      const after = await post(read);
      expect([status, after.age]).toEqual([status, expect.any(String)]);
    }
    const renamed = await post(
      { query: `mutation { updatePet(id: ${petId}, input: { name: "Max" }) { id } }` },
      t.admin,
    );
    expect(renamed.status).toBe(200);
    const fresh = await post(read);
    expect(fresh.age).toBeNull();
    expect(fresh.body.data.pet.name).toBe('Max');
  });
});
