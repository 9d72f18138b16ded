/**
 * `304 Not Modified` answers (docs/caching.md, docs/rest.md), over real HTTP: no content, and none of
 * the header fields of an empty body. RFC 9110 (section 8.6) forbids a 304's Content-Length unless it
 * is the 200's; a cache updates the answer it holds with the 304's header fields (RFC 9111, section
 * 4.3.4), so a `text/plain` Content-Type would overwrite the JSON answer's own. Covered: GraphQL
 * (computed, and from the response cache) and the REST path.
 */
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { pollUntil } from '../helpers/poll';

describe('304 Not Modified', () => {
  let t: ListeningApp;
  let petId: string;
  beforeAll(async () => {
    t = await createListeningApp({ env: { RESPONSE_CACHE_TTL_S: '60' } });
    const post = (query: string, variables: Record<string, unknown> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', ...t.admin },
        payload: { query, variables },
      });
    const category = (await post('mutation { createCategory(input: { name: "Dogs" }) { id } }')).json();
    const pet = await post('mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }', {
      c: category.data.createCategory.id,
    });
    petId = pet.json().data.createPet.id;
  });
  afterAll(async () => t?.close());

  const revalidate = async (path: string) => {
    const first = await fetch(`${t.url}${path}`);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    return { first, again: await fetch(`${t.url}${path}`, { headers: { 'if-none-match': etag } }) };
  };

  const expectBare304 = (res: Response, etag: string | null) => {
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('content-type')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
  };

  it('of a GraphQL GET, computed or from the response cache, carry no Content-Type or Content-Length', async () => {
    const path = `/graphql?${new URLSearchParams({ query: `{ pet(id: ${petId}) { name } }` })}`;
    const computed = await revalidate(path);
    expectBare304(computed.again, computed.first.headers.get('etag'));
    // From the cache (Age), once the setup's writes heard back over LISTEN have emptied it.
    const hit = await pollUntil(
      async () => {
        await fetch(`${t.url}${path}`);
        return revalidate(path);
      },
      (r) => r.again.headers.get('age') !== null,
    );
    expect(hit.again.headers.get('age')).not.toBeNull();
    expectBare304(hit.again, hit.first.headers.get('etag'));
  });

  it('of the REST path carry no Content-Type or Content-Length', async () => {
    const { first, again } = await revalidate(`/pets/${petId}`);
    expectBare304(again, first.headers.get('etag'));
  });
});
