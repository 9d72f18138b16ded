/**
 * Relay's object identification, proven with the real Relay compiler (relay-compiler from the npm
 * registry; its binary ships inside the package): the fragments in test/relay/src, each
 * `@refetchable`, compile against the committed schema.graphql with `nodeInterfaceIdField: "nodeId"`
 * (test/relay/relay.config.json), and the refetch queries it generated are answered by a running
 * server, under the scope table (docs/relay.md).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gql, petInStock, startGateway, type GatewayFixture } from '../helpers/gateway-fixture';

const root = path.resolve(__dirname, '../..');
const relayCli = path.join(root, 'node_modules/relay-compiler/cli.js');

/** Runs relay-compiler on a copy of test/relay (the committed folder stays clean); the artifacts' dir. */
async function compile(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-relay-'));
  fs.cpSync(path.join(__dirname, 'src'), path.join(dir, 'src'), { recursive: true });
  const config = JSON.parse(fs.readFileSync(path.join(__dirname, 'relay.config.json'), 'utf8'));
  config.schema = path.join(root, 'schema.graphql');
  fs.writeFileSync(path.join(dir, 'relay.config.json'), JSON.stringify(config));
  fs.mkdirSync(path.join(dir, '__generated__'));
  await promisify(execFile)(process.execPath, [relayCli, 'relay.config.json'], {
    cwd: dir,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`relay-compiler failed:\n${error.stdout}\n${error.stderr}`);
  });
  return path.join(dir, '__generated__');
}

/** The query text relay-compiler wrote into an operation's artifact. */
function queryText(artifacts: string, name: string): string {
  const source = fs.readFileSync(path.join(artifacts, `${name}.graphql.ts`), 'utf8');
  const match = /"text": ("(?:[^"\\]|\\.)*")/.exec(source);
  if (!match) throw new Error(`no query text in ${name}`);
  return JSON.parse(match[1]!) as string;
}

describe("Relay's Node interface, with relay-compiler", () => {
  let artifacts: string;
  let gateway: GatewayFixture;
  let petId: string;
  beforeAll(async () => {
    const compiled = compile();
    compiled.catch(() => undefined); // reported below, once the gateway is there to be stopped
    gateway = await startGateway();
    artifacts = await compiled;
    petId = await petInStock(gateway.server.url, gateway.admin, 3);
  }, 300_000);
  afterAll(async () => {
    await gateway?.dispose();
    if (artifacts) fs.rmSync(path.dirname(artifacts), { recursive: true, force: true });
  });

  it('compiles @refetchable fragments on every Node type into refetch queries by node id', () => {
    for (const name of ['PetCard', 'OrderCard', 'CategoryCard', 'InventoryCard']) {
      expect(queryText(artifacts, `${name}RefetchQuery`)).toContain('node(nodeId: $nodeId)');
    }
  });

  it('answers the refetch query relay-compiler generated, by node id', async () => {
    const { data } = await gql(gateway.server.url, `query { pet(id: "${petId}") { nodeId } }`);
    const nodeId = data!.pet.nodeId as string;
    const reply = await gql(gateway.server.url, queryText(artifacts, 'PetCardRefetchQuery'), { nodeId });
    expect(reply.errors).toBeUndefined();
    expect(reply.data!.node).toMatchObject({
      __typename: 'Pet',
      id: petId,
      nodeId,
      name: 'Rex',
      category: { name: expect.stringMatching(/^Faults /) },
    });
    // The stock of the same pet: another type, another node id, from the same key.
    const item = await gql(gateway.server.url, `query { inventory(petId: "${petId}") { nodeId } }`);
    const refetched = await gql(gateway.server.url, queryText(artifacts, 'InventoryCardRefetchQuery'), {
      nodeId: item.data!.inventory.nodeId,
    });
    expect(refetched.data!.node).toMatchObject({ __typename: 'InventoryItem', quantity: 3 });
    expect(item.data!.inventory.nodeId).not.toBe(nodeId);
  });

  it('keeps the scope table: an Order by node id needs orders:read, refused before anything runs', async () => {
    const placed = await gql(
      gateway.server.url,
      'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { nodeId } }',
      { p: petId },
      gateway.admin,
    );
    const nodeId = placed.data!.placeOrder.nodeId as string;
    const query = queryText(artifacts, 'OrderCardRefetchQuery');
    const anonymous = await gql(gateway.server.url, query, { nodeId });
    expect(anonymous.status).toBe(401);
    expect(anonymous.errors![0]!.extensions.code).toBe('UNAUTHENTICATED');
    expect(anonymous.errors![0]!.message).toContain('Query.order (orders:read)');
    expect(anonymous.data).toBeUndefined();
    const admin = await gql(gateway.server.url, query, { nodeId }, gateway.admin);
    expect(admin.data!.node).toMatchObject({ __typename: 'Order', quantity: 1, pet: { name: 'Rex' } });
    // nodes(nodeIds:) mixes types, keeps their order, and answers null for an absent object.
    const pet = await gql(gateway.server.url, `query { pet(id: "${petId}") { nodeId } }`);
    const gone = Buffer.from('Pet:999999').toString('base64url');
    const many = await gql(
      gateway.server.url,
      'query($ids: [NodeID!]!) { nodes(nodeIds: $ids) { __typename nodeId } }',
      { ids: [nodeId, pet.data!.pet.nodeId, gone] },
      gateway.admin,
    );
    expect(many.data!.nodes).toEqual([
      { __typename: 'Order', nodeId },
      { __typename: 'Pet', nodeId: pet.data!.pet.nodeId },
      null,
    ]);
  });

  it('answers a malformed node id with a client error, never INTERNAL', async () => {
    for (const bad of [
      'nope',
      Buffer.from('Pet:abc').toString('base64url'),
      Buffer.from('User:1').toString('base64url'),
      '',
    ]) {
      const asVariable = await gql(gateway.server.url, 'query($n: NodeID!) { node(nodeId: $n) { nodeId } }', {
        n: bad,
      });
      expect(asVariable.status).toBe(400);
      expect(asVariable.errors![0]!.extensions.code).toBe('VALIDATION_FAILED');
      const asLiteral = await gql(gateway.server.url, `query { nodes(nodeIds: [${JSON.stringify(bad)}]) { nodeId } }`);
      expect(asLiteral.status).toBe(400);
      expect(asLiteral.errors![0]!.extensions.code).toBe('VALIDATION_FAILED');
    }
  });
});
