/**
 * `node(nodeId:)` and `nodes(nodeIds:)`: any object of a Node type by its node id, read through
 * `readEntities` (src/read/entities.ts: one statement per type, whatever the number of ids). The scope
 * of each type was checked for the whole operation before execution (operation-access.ts decodes the
 * ids); it is checked again here as readEntities' contract asks of an abstract field.
 */
import { isInterfaceType, isObjectType, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { Arg, Ctx, Info, Query, Resolver } from 'type-graphql';
import { decodeNodeId, encodeNodeId, NODE_TYPES, type NodeType } from '../common/node-ids';
import { ValidationError } from '../errors/app-error';
import { authorize } from '../modules/auth/authorize';
import type { GraphQLContext } from '../modules/context';
import { ENTITY_ACCESS, ENTITY_KEYS, readEntities } from '../read/entities';
import { Node, NodeIdScalar, nodeTypeOf } from '../common/graphql/node.type';

/** Most node ids in one `nodes` call (as a page's most rows). */
export const NODES_MAX = 100;

async function readNodes(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  nodeIds: readonly string[],
): Promise<Array<object | null>> {
  const decoded = nodeIds.map(decodeNodeId);
  const byType = new Map<NodeType, bigint[]>();
  for (const { type, key } of decoded) {
    if (!byType.has(type)) authorize(ctx.caller, ENTITY_ACCESS[type]);
    byType.set(type, [...(byType.get(type) ?? []), key]);
  }
  const found = new Map<string, object | null>();
  await Promise.all(
    [...byType].map(async ([type, keys]) => {
      const rows = await readEntities(ctx, info, type, keys);
      rows.forEach((row, i) => {
        if (row) nodeTypeOf.set(row, type);
        found.set(`${type}:${keys[i]}`, row);
      });
    }),
  );
  return decoded.map(({ type, key }) => found.get(`${type}:${key}`) ?? null);
}

@Resolver(() => Node)
export class NodeResolver {
  @Query(() => Node, { nullable: true, description: 'The object with this node id, or null (absent or deleted).' })
  async node(
    @Arg('nodeId', () => NodeIdScalar) nodeId: string,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return (await readNodes(ctx, info, [nodeId]))[0];
  }

  @Query(() => [Node], {
    nullable: 'items',
    description: `The objects with these node ids, in their order (null where absent); at most ${NODES_MAX}.`,
  })
  nodes(
    @Arg('nodeIds', () => [NodeIdScalar]) nodeIds: string[],
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    if (nodeIds.length > NODES_MAX) {
      throw new ValidationError(`nodeIds: at most ${NODES_MAX} node ids per call (${nodeIds.length} given)`);
    }
    return readNodes(ctx, info, nodeIds);
  }
}

/** `nodeId` on every Node type, from the key of the row (`id`, or `petId` for InventoryItem). */
export function resolveNodeIds(schema: GraphQLSchema): GraphQLSchema {
  // Synchronous: TypeGraphQL wraps `resolveType` in an async function, and graphql-jit (GRAPHQL_JIT)
  // takes a promise for a type name, which answers every `node` with INTERNAL.
  const node = schema.getType('Node');
  if (!isInterfaceType(node)) throw new Error('the Node interface is missing');
  node.resolveType = (value: unknown) => (typeof value === 'object' && value ? nodeTypeOf.get(value) : undefined);
  for (const typeName of NODE_TYPES) {
    const type = schema.getType(typeName);
    const field = isObjectType(type) ? type.getFields().nodeId : undefined;
    if (!field) throw new Error(`${typeName} does not implement Node`);
    const key = ENTITY_KEYS[typeName];
    field.resolve = (root: Record<string, bigint>) => encodeNodeId(typeName, root[key]!);
  }
  return schema;
}
