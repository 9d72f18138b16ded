/**
 * Trusted documents as a real process does them (src/policy/trusted-documents.ts, src/main.ts): the
 * gateway in TRUSTED_DOCUMENTS=enforce with the manifest the example client's codegen produced
 * (examples/client/gql/persisted-documents.json), driven by the example client's own code; the
 * refusals counted on /metrics; SIGHUP re-reading a swapped file while requests are in flight; a bad
 * file stopping the start with one line.
 */
import { freePort } from '../helpers/server-process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { adminKeyFor, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { pollUntil } from '../helpers/poll';
import { connectWs, type TestWsClient } from '../helpers/ws-client';
import { execute } from '../../examples/client/client';
import { PetName, PetPage } from '../../examples/client/operations';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '..', '..');
const exampleManifest = path.join(root, 'examples', 'client', 'gql', 'persisted-documents.json');
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: any; errors?: { extensions: { code: string } }[] },
  };
}

/**
 * A GET /graphql with `target` as its request target, sent as is over a raw socket (no client sends
 * a `#` in one); the status and the body.
 */
function rawGet(url: string, target: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.end(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') });
    });
  });
}

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** One embedded database for the suite's servers, one after the other (a first start costs seconds). */
let dataDir: string;
let admin: Record<string, string>;
beforeAll(async () => {
  dataDir = path.join(tmp('petstore-trusted-proc-'), 'data');
  admin = await adminKeyFor({ PGLITE_DATA_DIR: dataDir });
});

describe('the example client against a gateway in enforce with its manifest', () => {
  let server: ServerProcess;
  let metricsUrl: string;
  const unlisted = '{ pets(first: 1) { totalCount } }';

  beforeAll(async () => {
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    server = await startServerProcess({
      PGLITE_DATA_DIR: dataDir,
      TRUSTED_DOCUMENTS: 'enforce',
      TRUSTED_DOCUMENTS_FILE: exampleManifest,
      METRICS_PORT: String(metricsPort),
      RATE_LIMIT_MAX: '1000000',
    });
  });
  afterAll(() => server?.stop());

  it('runs full documents for an admin key (the explorer), refuses them otherwise, and runs the example by hash', async () => {
    const category = await post(
      server.url,
      { query: 'mutation { createCategory(input: { name: "cats" }) { id } }' },
      admin,
    );
    expect(category.body.errors).toBeUndefined();
    const pet = await post(
      server.url,
      {
        query: `mutation { createPet(input: { name: "Tom", categoryId: ${category.body.data.createCategory.id} }) { id } }`,
      },
      admin,
    );
    expect(pet.status).toBe(200);
    const petId: string = pet.body.data.createPet.id;

    const refused = await post(server.url, { query: unlisted });
    expect(refused.status).toBe(403);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.[0]?.extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');

    const page = await execute(`${server.url}/graphql`, PetPage, { first: 5 });
    expect(page.status).toBe(200);
    expect(page.errors).toBeUndefined();
    expect(page.data!.pets.edges.map((e) => e.node)).toMatchObject([
      { id: petId, name: 'Tom', category: { name: 'cats' } },
    ]);
    const byGet = await execute(`${server.url}/graphql`, PetName, { id: petId }, { method: 'GET' });
    expect(byGet.data).toEqual({ pet: { id: petId, name: 'Tom' } });
    expect(byGet.headers.get('etag')).toMatch(/^W\/"/);
  });

  it('refuses an unlisted document over GET however its query string is written (a raw # in the target)', async () => {
    // Apollo reads GET's parameters with URLSearchParams, which ends the query string at `#`; the check
    // read Fastify's parse of the query string, which goes on past it. `?query=<unlisted>#&query=x`
    // was two `query` values to the check (no document named: allowed) and one to Apollo, which ran it.
    const q = encodeURIComponent(unlisted);
    for (const target of [
      `/graphql?query=${q}#&query=x`,
      `/graphql?query=${q}#`,
      `/graphql?query=${q}#&documentId=x`,
    ]) {
      const answer = await rawGet(server.url, target);
      expect([target, answer.status]).toEqual([target, 403]);
      expect(JSON.parse(answer.body)).toEqual({
        errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', status: 403 } })],
      });
    }
  });

  it('counts refused documents on /metrics, by reason', async () => {
    await post(server.url, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(unlisted) } } });
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toMatch(/graphql_trusted_documents_refused_total\{reason="full_document",transport="http"\} [1-9]/);
    expect(text).toMatch(/graphql_trusted_documents_refused_total\{reason="unknown_hash",transport="http"\} [1-9]/);
    expect(text).toMatch(/^graphql_trusted_documents 3$/m);
  });
});

describe('SIGHUP re-reads the manifest', () => {
  const first = 'query First { pets(first: 1) { totalCount } }';
  const second = 'query Second { categories(first: 1) { totalCount } }';
  const manifest = (bodies: string[]) => JSON.stringify(Object.fromEntries(bodies.map((b) => [sha256(b), b])));
  let dir: string;
  let file: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = tmp('petstore-trusted-hup-');
    file = path.join(dir, 'persisted-documents.json');
    fs.writeFileSync(file, manifest([first]));
    server = await startServerProcess({
      PGLITE_DATA_DIR: dataDir,
      TRUSTED_DOCUMENTS: 'enforce',
      TRUSTED_DOCUMENTS_FILE: file,
      RATE_LIMIT_MAX: '1000000',
    });
  });
  afterAll(() => server?.stop());

  /** Swaps the file as a deploy would (write aside, rename over), then sends SIGHUP. */
  const swapAndHup = (content: string) => {
    fs.writeFileSync(`${file}.new`, content);
    fs.renameSync(`${file}.new`, file);
    server.child.kill('SIGHUP');
  };
  const logged = (from: number, msg: RegExp) =>
    pollUntil(
      async () => server.output.slice(from).some((l) => msg.test(l)),
      (seen) => seen,
    );

  it('serves the new document after SIGHUP, answering every request in flight', async () => {
    expect((await post(server.url, { documentId: sha256(second) })).status).toBe(403);
    const before = server.output.length;
    // Requests in flight across the signal: every one is answered, none dropped.
    const inFlight = Array.from({ length: 40 }, (_, i) =>
      new Promise((r) => setTimeout(r, i * 5)).then(() => post(server.url, { documentId: sha256(first) })),
    );
    await new Promise((r) => setTimeout(r, 50));
    swapAndHup(manifest([first, second]));
    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(await logged(before, /trusted documents re-read/)).toBe(true);
    const now = await post(server.url, { documentId: sha256(second) });
    expect(now.body).toEqual({ data: { categories: { totalCount: expect.any(Number) } } });
    expect(server.child.exitCode).toBeNull();
  });

  it("ends the open subscriptions of a document a reload removed (4403), as a revoked key's, and no admin's", async () => {
    const stock = 'subscription Stock { stockChanged { petId } }';
    let before = server.output.length;
    swapAndHup(manifest([first, second, stock]));
    expect(await logged(before, /trusted documents re-read/)).toBe(true);
    const byHash = { query: '', extensions: { persistedQuery: { version: 1, sha256Hash: sha256(stock) } } };
    const anonymous = connectWs(server.url);
    const staff = connectWs(server.url, { connectionParams: { Authorization: admin.authorization } });
    const errors: unknown[] = [];
    const open = (ws: TestWsClient) =>
      ws.client.subscribe(byHash as never, {
        next: () => undefined,
        error: (e) => errors.push(e),
        complete: () => undefined,
      });
    try {
      await Promise.all([anonymous.connected, staff.connected]);
      open(anonymous);
      open(staff);
      await new Promise((r) => setTimeout(r, 300));
      expect(errors).toEqual([]);
      before = server.output.length;
      swapAndHup(manifest([first, second]));
      expect(await logged(before, /trusted documents re-read/)).toBe(true);
      const late = new Promise((r) => setTimeout(() => r('still open'), 3000));
      expect(await Promise.race([anonymous.closed, late])).toEqual({
        code: 4403,
        reason: 'Forbidden: a subscription of this connection is no longer a trusted document; reconnect',
      });
      // An admin may subscribe to any document: its subscription goes on.
      expect(await Promise.race([staff.closed, late])).toBe('still open');
    } finally {
      await Promise.all([anonymous.dispose(), staff.dispose()]);
    }
  });

  it('keeps the list in use when the new file is bad, and stays up', async () => {
    const before = server.output.length;
    swapAndHup(JSON.stringify({ [sha256('something else')]: first }));
    expect(await logged(before, /NOT re-read, the previous list stays/)).toBe(true);
    expect(server.output.slice(before).join('\n')).toMatch(/is not the sha256 of its body/);
    expect((await post(server.url, { documentId: sha256(second) })).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});

describe('a bad manifest at start', () => {
  it('stops the start with one line naming TRUSTED_DOCUMENTS_FILE and the problem, exit 1', async () => {
    const dir = tmp('petstore-trusted-bad-');
    const file = path.join(dir, 'manifest.json');
    const body = 'query A { pets { totalCount } }';
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: sha256('other'), body, name: 'A', type: 'query' }],
      }),
    );
    const start = startServerProcess({
      PGLITE_DATA_DIR: path.join(dir, 'data'),
      TRUSTED_DOCUMENTS: 'enforce',
      TRUSTED_DOCUMENTS_FILE: file,
    });
    const error = (await start.then(
      (s) => s.stop().then(() => new Error('started')),
      (e: Error) => e,
    )) as Error;
    const stderr = error.message.replace(/^server exited with 1: /, '');
    expect(error.message).toMatch(/^server exited with 1: /);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^TRUSTED_DOCUMENTS_FILE: .*manifest\.json: operations\[0\] \(A\): the id [0-9a-f]{64} is not the sha256 of its body/,
      ),
    ]);
  });

  it('names the variable when allow or enforce has no file', async () => {
    const start = startServerProcess({ TRUSTED_DOCUMENTS: 'enforce' });
    await expect(start).rejects.toThrow(
      /TRUSTED_DOCUMENTS_FILE: is required when TRUSTED_DOCUMENTS is allow or enforce/,
    );
  });
});
