import { Node } from '../../common/graphql/node.type';
import { Field, ObjectType } from 'type-graphql';
import { IdScalar } from '../../common/graphql/scalars';
import { ConnectionType } from '../../common/graphql/connection';
import { PetStatusEnum, type PetStatus } from './pet-status';

@ObjectType({ simpleResolvers: true, implements: Node, description: 'An animal for sale.' })
export class Pet {
  @Field(() => IdScalar)
  id!: bigint;

  @Field(() => String)
  name!: string;

  @Field(() => IdScalar)
  categoryId!: bigint;

  @Field(() => PetStatusEnum, { nullable: true })
  status!: PetStatus;
}

export const PetConnection = ConnectionType(Pet, 'Pet');
