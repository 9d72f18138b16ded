import { Node } from '../../common/graphql/node.type';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { IdScalar } from '../../common/graphql/scalars';
import { ConnectionType } from '../../common/graphql/connection';
import { PetStatusEnum, type PetStatus } from '../pets/pet-status';

@ObjectType({ simpleResolvers: true, implements: Node, description: 'The stock count of one pet.' })
export class InventoryItem {
  @Field(() => IdScalar)
  petId!: bigint;

  @Field(() => Int)
  quantity!: number;

  @Field(() => PetStatusEnum, { description: "Always the pet's current status." })
  status!: PetStatus;
}

export const InventoryItemConnection = ConnectionType(InventoryItem, 'InventoryItem');

@ObjectType({ simpleResolvers: true, description: 'Total stock of the pets in one status.' })
export class InventoryCount {
  @Field(() => PetStatusEnum)
  status!: PetStatus;

  // A Float (a JSON number, exact to 2^53): the sum of 32-bit stocks passes Int's 2^31 - 1 from
  // about 2,148 pets at the largest stock, where an Int was an INTERNAL error for every caller.
  @Field(() => Float, {
    description: 'The sum of their stock: a whole number, typed Float because it can pass 2^31 - 1.',
  })
  quantity!: number;
}
