import { Field, InputType } from 'type-graphql';

@InputType({ description: 'A category to create. The name is trimmed, 1..100 characters, unique.' })
export class NewCategory {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'At most 1000 characters.' })
  description?: string | null;
}

@InputType({ description: 'Fields to change; absent fields stay as they are, a null description clears it.' })
export class CategoryUpdate {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;
}
