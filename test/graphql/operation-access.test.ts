/**
 * The scope check of a whole operation (src/policy/operation-access.ts) keeps, per operation node,
 * the coordinates a document reaches whatever its variables: the same parsed document (what Apollo
 * hands back for the same text) is checked against each caller afresh, and an operation whose reach
 * depends on its variables (`node`, `nodes`, `_entities`) is checked against each request's values.
 */
import { parse, type OperationDefinitionNode } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { encodeNodeId } from '../../src/common/node-ids';
import type { Caller } from '../../src/modules/auth/api-key.service';
import type { Scope } from '../../src/common/scopes';
import { operationRefusal } from '../../src/policy/operation-access';
import { createSchema } from '../../src/schema/schema';

const key = (scopes: Scope[]): Caller => ({ kind: 'key', keyId: 1n, name: 'test key', scopes });

describe('operationRefusal on a document checked again', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await createSchema();
  });

  const refusalOf = (text: string) => {
    const document = parse(text);
    const operation = document.definitions[0] as OperationDefinitionNode;
    return (caller: Caller | null, variables: Record<string, unknown> = {}) =>
      operationRefusal(schema, document, operation, caller, variables)?.constructor.name ?? null;
  };

  it('checks each caller against what the same document reaches', () => {
    const check = refusalOf('query Mine { orders(first: 2) { nodes { id pet { name } } } }');
    expect(check(key(['orders:read']))).toBeNull();
    expect(check(null)).toBe('UnauthenticatedError');
    expect(check(key(['admin']))).toBeNull();
    expect(check(key(['orders:write']))).toBe('ForbiddenError');
    expect(check(key(['orders:read']))).toBeNull();
  });

  it('checks what node ids name on every request, through fragments too', () => {
    const check = refusalOf('query N($id: ID!) { ...Root } fragment Root on Query { node(nodeId: $id) { nodeId } }');
    const pet = encodeNodeId('Pet', 1n);
    const order = encodeNodeId('Order', 1n);
    expect(check(null, { id: pet })).toBeNull();
    expect(check(null, { id: order })).toBe('UnauthenticatedError');
    expect(check(null, { id: pet })).toBeNull();
    expect(check(null, { id: 'not a node id' })).toBe('ValidationError');
  });

  it('checks what entity representations name on every request', () => {
    const check = refusalOf('query E($r: [_Any!]!) { _entities(representations: $r) { ... on Pet { name } } }');
    expect(check(null, { r: [{ __typename: 'Pet', id: '1' }] })).toBeNull();
    expect(check(null, { r: [{ __typename: 'Order', id: '1' }] })).toBe('UnauthenticatedError');
  });
});
