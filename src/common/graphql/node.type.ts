/**
 * Relay's object identification (docs/relay.md): `interface Node { nodeId: NodeID! }`, implemented by
 * Pet, Category, Order and InventoryItem. A field of its own, `nodeId`, rather than `id`: clients
 * rely on `id` being the row's int64 id, so its meaning stays (Relay's `nodeInterfaceIdField`).
 * `NodeID` is a scalar of its own for the same reason: the schema's `ID` is an int64 (scalars.ts).
 */
import { GraphQLScalarType, Kind } from 'graphql';
import { Field, InterfaceType } from 'type-graphql';
import { decodeNodeId, NODE_ID_FORMAT_MESSAGE, type NodeType } from '../node-ids';

export const NodeIdScalar = new GraphQLScalarType<string, string>({
  name: 'NodeID',
  description:
    "A globally unique, opaque object identifier (Relay's object identification): read it from `nodeId`, " +
    'refetch with `node(nodeId:)`. Not the `id` of a type.',
  serialize: (value) => value as string,
  parseValue(value) {
    decodeNodeId(value);
    return value as string;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError(`NodeID: ${NODE_ID_FORMAT_MESSAGE}`);
    decodeNodeId(ast.value);
    return ast.value;
  },
});

/** Which node type a source object (a row) was read as: set by the `node`/`nodes` resolvers. */
export const nodeTypeOf = new WeakMap<object, NodeType>();

@InterfaceType('Node', {
  description: 'An object that can be refetched by its `nodeId` alone (`node(nodeId:)`), as Relay does.',
  resolveType: (value: object) => nodeTypeOf.get(value),
})
export abstract class Node {
  @Field(() => NodeIdScalar, { description: 'Globally unique and opaque; `id` stays the row id of its type.' })
  nodeId!: string;
}
