import { Arg, Authorized, Args, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { IdScalar } from '../../graphql/scalars';
import { ForwardPageArgs } from '../../graphql/page-args';
import { Pet } from '../pets/pet.type';
import { OrderFilter } from './order.inputs';
import { Order, OrderConnection } from './order.type';

@Resolver(() => Order)
export class OrderResolver {
  @Authorized()
  @Query(() => Order, { nullable: true, description: 'An order by id, or null.' })
  order(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext) {
    return ctx.services.orders.get(id);
  }

  @Authorized()
  @Query(() => OrderConnection, { description: 'Orders, newest first.' })
  orders(
    @Arg('filter', () => OrderFilter, { nullable: true }) filter: OrderFilter | null,
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.orders.list(filter, page);
  }

  @FieldResolver(() => Pet, { nullable: true, description: 'The pet ordered, or null once deleted.' })
  pet(@Root() order: Order, @Ctx() ctx: GraphQLContext) {
    return order.petId === null ? null : ctx.loaders.petById.load(order.petId);
  }
}
