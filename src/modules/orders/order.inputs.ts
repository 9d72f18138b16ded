import { Field, InputType } from 'type-graphql';
import { IdScalar } from '../../graphql/scalars';

@InputType({ description: 'All given conditions must hold.' })
export class OrderFilter {
  @Field(() => Boolean, { nullable: true })
  complete?: boolean | null;

  @Field(() => IdScalar, { nullable: true })
  petId?: bigint | null;
}
