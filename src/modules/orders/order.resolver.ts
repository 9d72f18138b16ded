import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Authorized, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { IdScalar } from '../../common/graphql/scalars';
import { ForwardPageArgs } from '../../common/graphql/page-args';
import { Pet } from '../pets/pet.type';
import { orderWriteAccess } from './order.access';
import { NewOrder, OrderFilter } from './order.inputs';
import { Order, OrderConnection } from './order.type';
import { ownerOf } from '../auth/caller';

@Resolver(() => Order)
export class OrderResolver {
  @Authorized()
  @Query(() => Order, { nullable: true, description: 'An order by id, or null.' })
  order(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.root(info);
  }

  @Authorized()
  @Query(() => OrderConnection, { description: 'Orders, newest first.' })
  orders(
    @Arg('filter', () => OrderFilter, { nullable: true }) filter: OrderFilter | null,
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.reads.root(info);
  }

  @FieldResolver(() => Pet, { nullable: true, description: 'The pet ordered, or null once deleted.' })
  pet(@Root() order: Order, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.compiled(order, info);
  }

  @Authorized()
  @Mutation(() => Order, {
    description:
      "Places an order, taking its quantity out of the pet's stock (OUT_OF_STOCK when short). " +
      'An `Idempotency-Key` header makes retries safe: the same key and request from the same caller return the first order.',
  })
  placeOrder(@Arg('input', () => NewOrder) input: NewOrder, @Ctx() ctx: GraphQLContext) {
    return ctx.services.orders.place(input, {
      idempotencyKey: ctx.idempotencyKey,
      // Its owner (order.access.ts), and the scope of its idempotency key.
      caller: ownerOf(ctx.caller),
    });
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
