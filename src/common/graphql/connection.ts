/**
 * Relay connection types (`XxxConnection`, `XxxEdge`, `PageInfo`), generated per node type.
 * They hold a `Page` from src/common/pagination.ts as it is (hence `simpleResolvers`): `totalCount`
 * there is a function, called only when a client selects the field (see `resolveTotalCounts`).
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { Field, Int, ObjectType } from 'type-graphql';
import type { ClassType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'Relay page information.' })
export class PageInfo {
  @Field()
  hasNextPage!: boolean;

  @Field()
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true })
  startCursor!: string | null;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

export interface ConnectionShape<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: number | (() => Promise<number>);
}

/** The names of the connection types built by ConnectionType. */
const connectionTypes = new Set<string>();

export function ConnectionType<T extends object>(node: ClassType<T>, name: string): ClassType<ConnectionShape<T>> {
  connectionTypes.add(`${name}Connection`);
  @ObjectType(`${name}Edge`, { simpleResolvers: true })
  class Edge {
    @Field(() => String, { description: 'Opaque cursor of this node.' })
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`, { simpleResolvers: true, description: `A page of ${name} nodes.` })
  class Connection {
    @Field(() => [Edge])
    edges!: Edge[];

    @Field(() => [node])
    nodes!: T[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    @Field(() => Int, { description: 'Number of nodes matching the filter, over all pages.' })
    totalCount!: number;
  }
  return Connection;
}

const totalCountOf: GraphQLFieldResolver<ConnectionShape<unknown>, unknown> = (page) =>
  typeof page.totalCount === 'function' ? page.totalCount() : page.totalCount;

/**
 * Gives `totalCount` of every connection a resolver that calls the page's function. graphql-js's
 * default resolver would call it too, but graphql-jit (src/graphql/jit-gateway.ts) reads a field
 * without a resolver as a plain property and would answer the function itself.
 */
export function resolveTotalCounts(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) =>
      fieldName === 'totalCount' && connectionTypes.has(typeName) ? { ...field, resolve: totalCountOf } : field,
  });
}
