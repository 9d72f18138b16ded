import type { GraphQLResolveInfo } from 'graphql';
import { Args, Ctx, FieldResolver, Info, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { ForwardPageArgs } from '../../common/graphql/page-args';
import { OrderConnection } from '../orders/order.type';
import { displaySubject } from './caller';
import { Me } from './me.type';

@Resolver(() => Me)
export class MeResolver {
  @Query(() => Me, {
    nullable: true,
    description:
      'Who is calling: null when anonymous; a signed-in person or an API key otherwise, with their own orders.',
  })
  me(@Ctx() ctx: GraphQLContext): Me | null {
    const caller = ctx.caller;
    if (!caller) return null;
    return {
      subject: displaySubject(caller),
      kind: caller.kind === 'token' ? 'TOKEN' : 'API_KEY',
      issuer: caller.kind === 'token' ? caller.issuer : null,
      scopes: [...caller.scopes],
    };
  }

  @FieldResolver(() => OrderConnection, {
    description: "The caller's own orders (those it placed), newest first, whatever else its scopes let it see.",
  })
  orders(
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // `page` is read by the compiler from the field's arguments (src/read/relations.ts, Me.orders).
    void page;
    return ctx.reads.meOrders(info);
  }
}
