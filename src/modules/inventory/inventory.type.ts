import { Node } from '../../common/graphql/node.type';
import { Field, Int, ObjectType } from 'type-graphql';
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

  @Field(() => Int)
  quantity!: number;
}
