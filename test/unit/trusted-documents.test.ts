/**
 * Reading trusted-document manifests (src/policy/trusted-documents.ts): both formats, the hash
 * check, and one clear message per bad file. The gateway's behaviour with them:
 * test/graphql/trusted-documents.test.ts and test/http/trusted-documents-processes.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDocumentId, readManifest } from '../../src/policy/trusted-documents';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-manifest-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: unknown): string {
  const f = path.join(dir, `m${n++}.json`);
  fs.writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}

const A = 'query A { pets { totalCount } }';
const B = 'query B { categories { totalCount } }';

describe('readManifest', () => {
  it("reads Apollo's persisted query manifest", () => {
    const f = file({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [{ id: sha256(A), body: A, name: 'A', type: 'query' }],
    });
    expect(readManifest(f)).toEqual([{ hash: sha256(A), body: A, name: 'A' }]);
  });

  it("reads GraphQL Code Generator's map, keys prefixed sha256: or bare", () => {
    const f = file({ [`sha256:${sha256(A)}`]: A, [sha256(B)]: B });
    expect(readManifest(f)).toEqual([
      { hash: sha256(A), body: A, name: null },
      { hash: sha256(B), body: B, name: null },
    ]);
  });

  it('rejects the file when an id is not the sha256 of its body, naming the operation', () => {
    const f = file({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [{ id: sha256(B), body: A, name: 'A' }],
    });
    expect(() => readManifest(f)).toThrow(
      `${f}: operations[0] (A): the id ${sha256(B)} is not the sha256 of its body (${sha256(A)}); regenerate the manifest`,
    );
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an array', [], /expected a JSON object .*got an array/],
    ['another format', { format: 'relay', operations: [] }, /"format" must be "apollo-persisted-query-manifest"/],
    [
      'another version',
      { format: 'apollo-persisted-query-manifest', version: 2, operations: [] },
      /"version" must be 1/,
    ],
    ['a sha1 key', { [crypto.createHash('sha1').update(A).digest('hex')]: A }, /must be a sha256 hash/],
    ['a non-string document', { [sha256(A)]: 1 }, /must be a GraphQL document \(a string\)/],
  ])('rejects %s with one line', (_what, content, message) => {
    const f = file(content);
    let thrown: Error | undefined;
    try {
      readManifest(f);
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toMatch(message);
    expect(thrown?.message).not.toContain('\n');
  });

  it('names a file that cannot be read', () => {
    expect(() => readManifest(path.join(dir, 'missing.json'))).toThrow(/missing\.json: cannot be read \(ENOENT\)/);
  });
});

describe('parseDocumentId', () => {
  it('takes sha256:<hex> and the bare hex, in any case, and nothing else', () => {
    const hash = sha256(A);
    expect(parseDocumentId(`sha256:${hash}`)).toBe(hash);
    expect(parseDocumentId(hash.toUpperCase())).toBe(hash);
    expect(parseDocumentId(`sha1:${hash}`)).toBeNull();
    expect(parseDocumentId(hash.slice(1))).toBeNull();
  });
});
