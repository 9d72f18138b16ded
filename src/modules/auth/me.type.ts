import { Field, ObjectType } from 'type-graphql';

/** What `Query.me` returns: the caller (its resolver, me.resolver.ts, reads `Me.orders` for it). */
@ObjectType({
  description:
    'Who is calling: a signed-in person (an access token) or an API key. Scopes decide what else they may do (docs/identity.md).',
})
export class Me {
  @Field(() => String, {
    description: "The token's subject (`sub`), or `key:<id> <name>` for an API key.",
  })
  subject!: string;

  @Field(() => String, { description: '`TOKEN` (a signed-in person) or `API_KEY`.' })
  kind!: 'TOKEN' | 'API_KEY';

  @Field(() => String, { nullable: true, description: "The token's issuer (`iss`); null for an API key." })
  issuer!: string | null;

  @Field(() => [String], {
    description: 'The scopes granted (empty: a customer, who may place orders and read and cancel their own).',
  })
  scopes!: string[];
}
