import { ArgsType, Field, Int } from 'type-graphql';

/** `first`/`after`: forward paging (default page 20, at most 100). */
@ArgsType()
export class ForwardPageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size, 1..100 (default 20).' })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor after which the page starts.' })
  after?: string | null;
}

/** Forward and backward paging (`last`/`before`). */
@ArgsType()
export class PageArgs extends ForwardPageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size counted back from `before`, 1..100.' })
  last?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor before which the page ends.' })
  before?: string | null;
}
