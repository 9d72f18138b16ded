/**
 * Relay connection types (`XxxConnection`, `XxxEdge`, `PageInfo`), generated per node type.
 * They hold a `Page` from src/common/pagination.ts as it is: `totalCount` there is a function, which
 * graphql-js's default resolver calls only when a client selects the field (hence `simpleResolvers`).
 */
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

export function ConnectionType<T extends object>(node: ClassType<T>, name: string): ClassType<ConnectionShape<T>> {
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
