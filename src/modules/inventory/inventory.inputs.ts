import { Field, InputType, Int } from 'type-graphql';
import { PetStatusEnum, type PetStatus } from '../pets/pet-status';

@InputType({ description: 'The new stock count, 0..1000000.' })
export class InventoryUpdate {
  @Field(() => Int)
  quantity!: number;
}

@InputType({ description: 'All given conditions must hold.' })
export class InventoryFilter {
  @Field(() => PetStatusEnum, { nullable: true })
  status?: PetStatus | null;

  @Field(() => Int, { nullable: true, description: 'Only entries whose quantity is below this.' })
  quantityBelow?: number | null;
}
