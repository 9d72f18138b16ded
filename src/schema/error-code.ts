import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ErrorCode } from '../errors/app-error';

registerEnumType(ErrorCode, {
  name: 'ErrorCode',
  description: 'Values of `extensions.code` on GraphQL errors (and of `code` in REST error bodies).',
});

/**
 * An enum reaches the schema only when a type uses it; this type publishes `ErrorCode` (and
 * documents the shape of `extensions` on every GraphQL error). No field returns it.
 */
@ObjectType({ description: 'The shape of `extensions` on every GraphQL error.' })
export class ErrorExtensions {
  @Field(() => ErrorCode)
  code!: ErrorCode;

  @Field(() => Int, { description: 'The HTTP status that the error stands for.' })
  status!: number;

  @Field(() => String, { nullable: true, description: 'Present on INTERNAL errors: quote it when reporting.' })
  requestId?: string;
}
