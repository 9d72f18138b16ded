import { Node } from '../../common/graphql/node.type';
import { Field, Int, ObjectType } from 'type-graphql';
import { IdScalar, DateTimeScalar } from '../../common/graphql/scalars';
import { ConnectionType } from '../../common/graphql/connection';

@ObjectType({ simpleResolvers: true, implements: Node, description: 'A store order for a pet.' })
export class Order {
  @Field(() => IdScalar)
  id!: bigint;

  @Field(() => IdScalar, { nullable: true, description: 'Null once the pet has been deleted.' })
  petId!: bigint | null;

  @Field(() => Int, { nullable: true })
  quantity!: number;

  @Field(() => DateTimeScalar, { nullable: true })
  shipDate!: Date | null;

  @Field(() => Boolean, { nullable: true })
  complete!: boolean;
}

export const OrderConnection = ConnectionType(Order, 'Order');
