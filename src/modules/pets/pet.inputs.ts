import { Field, InputType, registerEnumType } from 'type-graphql';
import { IdScalar } from '../../common/graphql/scalars';
import { PetStatusEnum, type PetStatus } from './pet-status';

@InputType({ description: 'A pet to create. The name is trimmed, 1..100 characters.' })
export class NewPet {
  @Field(() => String)
  name!: string;

  @Field(() => IdScalar)
  categoryId!: bigint;

  @Field(() => PetStatusEnum, { nullable: true, description: 'Defaults to AVAILABLE.' })
  status?: PetStatus | null;
}

@InputType({ description: 'Fields to change; absent or null fields stay as they are.' })
export class PetUpdate {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => IdScalar, { nullable: true })
  categoryId?: bigint | null;

  @Field(() => PetStatusEnum, { nullable: true })
  status?: PetStatus | null;
}

@InputType({ description: 'All given conditions must hold.' })
export class PetFilter {
  @Field(() => PetStatusEnum, { nullable: true })
  status?: PetStatus | null;

  @Field(() => IdScalar, { nullable: true })
  categoryId?: bigint | null;

  @Field(() => String, {
    nullable: true,
    description: 'Case-insensitive substring of the name (at most 100 characters).',
  })
  nameContains?: string | null;
}

export const PetOrderField = { ID: 'id', NAME: 'name' } as const;
registerEnumType(PetOrderField, { name: 'PetOrderField' });

export const OrderDirection = { ASC: 'asc', DESC: 'desc' } as const;
registerEnumType(OrderDirection, { name: 'OrderDirection' });

@InputType({ description: 'Sort order of a pet list; ties are broken by id.' })
export class PetOrder {
  @Field(() => PetOrderField)
  field!: 'id' | 'name';

  @Field(() => OrderDirection, { defaultValue: 'asc' })
  direction!: 'asc' | 'desc';
}
