/**
 * The registry's per-type access rule (src/common/object-types.ts, `access.visible`) is the ONE place
 * a row filter of a type lives: the read compiler adds it to every read of the type, whatever the
 * path (a root field, a nested connection and its count, a to-one relation, a node by id, the
 * relations of a mutation's payload). Here a rule hides incomplete orders from one API key, the
 * way an ownership rule would, and every path is asked for them.
 */
import { Prisma } from '../../src/generated/prisma/client';
import { OBJECT_TYPES, type ObjectTypeEntry, type Viewer } from '../../src/common/object-types';
import { encodeNodeId } from '../../src/common/node-ids';
import { createApiKey, createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { insertOrder, makePet } from '../helpers/factories';

const doc = (text: string) => text as unknown as TypedDocument<any, any>;

describe("a type's access rule in the registry", () => {
  let t: TestApp;
  let restricted: Record<string, string>;
  let restrictedKeyId: bigint;
  let petId: string;
  let open: string;
  let done: string;
  const access = OBJECT_TYPES.Order.access as ObjectTypeEntry['access'];
  // Orders' own rule (order.access.ts), put back after: these tests swap in a rule of their own.
  const ownRule = access.visible;

  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    restricted = await createApiKey(t, ['admin'], 'sees complete orders only');
    restrictedKeyId = (await t.services.apiKeys.list()).find((k) => k.name === 'sees complete orders only')!.id;
    const pet = await makePet(t, { stock: 10 });
    petId = pet.id.toString();
    open = (await insertOrder(t, { petId: pet.id, complete: false })).id.toString();
    done = (await insertOrder(t, { petId: pet.id, complete: true })).id.toString();
    access.visible = (viewer: Viewer | null) =>
      viewer?.kind === 'key' && viewer.keyId === restrictedKeyId ? Prisma.sql`complete` : null;
  });
  afterAll(async () => {
    access.visible = ownRule;
    await t.close();
  });

  const every = doc(`query($id: ID!, $open: ID!, $nodeId: NodeID!, $pet: ID!) {
    orders(first: 10, filter: { petId: $pet }) { totalCount nodes { id } }
    pet(id: $pet) { orders(first: 10) { totalCount nodes { id } } }
    order(id: $open) { id }
    shown: order(id: $id) { id pet { id } }
    node(nodeId: $nodeId) { nodeId }
  }`);

  it('hides the rows it excludes from every read of the type, and only for the reader it names', async () => {
    const variables = { id: done, open, nodeId: encodeNodeId('Order', BigInt(open)), pet: petId };
    const seen = await t.gqlOk(every, variables, restricted);
    expect(seen).toEqual({
      orders: { totalCount: 1, nodes: [{ id: done }] },
      pet: { orders: { totalCount: 1, nodes: [{ id: done }] } },
      order: null,
      shown: { id: done, pet: { id: petId } },
      node: null,
    });
    const admin = await t.gqlOk(every, variables);
    expect(admin.orders.totalCount).toBe(2);
    expect(admin.pet.orders.nodes.map((o: { id: string }) => o.id)).toEqual([done, open]);
    expect(admin.order).toEqual({ id: open });
    expect(admin.node).toEqual({ nodeId: encodeNodeId('Order', BigInt(open)) });
  });

  it("applies to the relations of a mutation's payload", async () => {
    const placed = await t.gqlOk(
      doc(
        `mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { pet { orders(first: 10) { totalCount } } } }`,
      ),
      { p: petId },
      restricted,
    );
    expect(placed.placeOrder.pet.orders.totalCount).toBe(1);
  });
});
