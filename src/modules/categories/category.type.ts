import { Node } from '../../common/graphql/node.type';
import { Field, ObjectType } from 'type-graphql';
import { IdScalar } from '../../common/graphql/scalars';
import { ConnectionType } from '../../common/graphql/connection';

@ObjectType({ simpleResolvers: true, implements: Node, description: 'A category of pets.' })
export class Category {
  @Field(() => IdScalar)
  id!: bigint;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;
}

export const CategoryConnection = ConnectionType(Category, 'Category');
