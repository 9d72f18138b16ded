import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Authorized, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import { readRoot } from '../../graphql/planner/compiler';
import { compiledField, NOT_COMPILED } from '../../graphql/planner/compiled';
import type { GraphQLContext } from '../../graphql/context';
import { IdScalar } from '../../graphql/scalars';
import { ForwardPageArgs } from '../../graphql/page-args';
import { Pet } from '../pets/pet.type';
import { ownerOf } from '../auth/caller';
import { orderConditions, orderReadAccess, orderWriteAccess } from './order.access';
import { NewOrder, OrderFilter } from './order.inputs';
import { Order, OrderConnection } from './order.type';

@Resolver(() => Order)
export class OrderResolver {
  @Authorized()
  @Query(() => Order, { nullable: true, description: 'An order by id, or null.' })
  order(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.planReads ? readRoot(ctx, info) : ctx.services.orders.get(id, orderReadAccess(ctx.caller));
  }

  @Authorized()
  @Query(() => OrderConnection, { description: 'Orders, newest first.' })
  orders(
    @Arg('filter', () => OrderFilter, { nullable: true }) filter: OrderFilter | null,
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.planReads
      ? readRoot(ctx, info)
      : ctx.services.orders.list(filter, page, orderConditions(orderReadAccess(ctx.caller)));
  }

  @FieldResolver(() => Pet, { nullable: true, description: 'The pet ordered, or null once deleted.' })
  pet(@Root() order: Order, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const compiled = compiledField(order, info);
    if (compiled !== NOT_COMPILED) return compiled;
    return order.petId === null ? null : ctx.loaders.petById.load(order.petId);
  }

  @Authorized()
  @Mutation(() => Order, {
    description:
      "Places an order, taking its quantity out of the pet's stock (OUT_OF_STOCK when short). " +
      'An `Idempotency-Key` header makes retries safe: the same key and request return the first order.',
  })
  placeOrder(@Arg('input', () => NewOrder) input: NewOrder, @Ctx() ctx: GraphQLContext) {
    return ctx.services.orders.place(input, { idempotencyKey: ctx.idempotencyKey, owner: ownerOf(ctx.caller) });
  }

  @Authorized()
  @Mutation(() => Order, { description: 'Completes an open order; its ship date becomes now unless set.' })
  completeOrder(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext) {
    return ctx.services.orders.complete(id);
  }

  @Authorized()
  @Mutation(() => Order, {
    description:
      'Cancels an open order: removes it, puts its quantity back in stock, returns it as it was. ' +
      "A signed-in customer cancels their own orders only (another's is NOT_FOUND).",
  })
  cancelOrder(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext) {
    // A customer cancels their own open orders only; another's is NOT_FOUND (order.access.ts).
    return ctx.services.orders.cancel(id, orderWriteAccess(ctx.caller));
  }
}
