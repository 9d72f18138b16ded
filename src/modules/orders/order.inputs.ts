import { Field, InputType, Int } from 'type-graphql';
import { DateTimeScalar, IdScalar } from '../../common/graphql/scalars';

@InputType({ description: 'All given conditions must hold.' })
export class OrderFilter {
  @Field(() => Boolean, { nullable: true })
  complete?: boolean | null;

  @Field(() => IdScalar, { nullable: true })
  petId?: bigint | null;
}

@InputType({ description: 'An order to place: 1..100 units of one pet, taken out of its stock.' })
export class NewOrder {
  @Field(() => IdScalar)
  petId!: bigint;

  @Field(() => Int, { description: 'Units ordered, 1..100; at most what the pet has in stock.' })
  quantity!: number;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'Expected ship date; completing the order sets it to now when absent.',
  })
  shipDate?: Date | null;
}
