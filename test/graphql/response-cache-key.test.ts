/**
 * The response cache's key of a GET (docs/caching.md: "the key is everything the answer depends
 * on"): it is read from the URL as Apollo reads the request, so no request can file its answer under
 * another request's key. A raw `#` starts the URL's fragment for Apollo (WHATWG URL), while a
 * querystring parser reads on past it: the answer to `?query=Q` was stored under the key of
 * `?query=Q%23&variables=V`, and served to that request.
 */
import net from 'node:net';
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { pollUntil } from '../helpers/poll';

/** A GET written by hand: the request target exactly as given (fetch would drop a fragment). */
function rawGet(url: string, target: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: */*\r\nConnection: close\r\n\r\n`),
    );
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (raw += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head, ...rest] = raw.split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), head: head!.toLowerCase(), body: rest.join('\r\n\r\n') });
    });
  });
}

describe('the response cache key of a GET', () => {
  let t: ListeningApp;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await createListeningApp({ env: { RESPONSE_CACHE_TTL_S: '60' } });
    const category = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...t.admin },
      payload: { query: 'mutation { createCategory(input: { name: "Dogs" }) { id } }' },
    });
    for (const name of ['Rex', 'Bella']) {
      const pet = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', ...t.admin },
        payload: {
          query: 'mutation($c: ID!, $n: String!) { createPet(input: { name: $n, categoryId: $c }) { id } }',
          variables: { c: category.json().data.createCategory.id, n: name },
        },
      });
      ids.push(pet.json().data.createPet.id);
    }
  });
  afterAll(async () => t?.close());

  it('never serves a request the answer of another that reads differently (a raw "#")', async () => {
    // `#` in a document starts a comment: `Q#` is the same query as Q, with its variables.
    const query = `query($id: ID = "${ids[0]}") { pet(id: $id) { name } }`;
    const variables = JSON.stringify({ id: ids[1] });
    // Apollo reads Q alone (no variables: the default, Rex); a querystring parser reads `Q#` and Bella's id.
    const target = `/graphql?query=${encodeURIComponent(query)}#&variables=${encodeURIComponent(variables)}`;
    // Until its answer stays stored: the setup's writes, heard back over LISTEN, empty the cache.
    const first = await pollUntil(
      async () => {
        await rawGet(t.url, target);
        await new Promise((r) => setTimeout(r, 250));
        return rawGet(t.url, target);
      },
      (r) => r.head.includes('\r\nage: '),
    );
    expect(first.status).toBe(200);
    expect(first.head).toContain('\r\nage: ');
    expect(JSON.parse(first.body).data.pet.name).toBe('Rex');
    const asked = await fetch(`${t.url}/graphql?${new URLSearchParams({ query: `${query}#`, variables })}`, {
      headers: { accept: '*/*' },
    });
    expect(asked.status).toBe(200);
    expect(((await asked.json()) as { data: { pet: { name: string } } }).data.pet.name).toBe('Bella');
  });
});
