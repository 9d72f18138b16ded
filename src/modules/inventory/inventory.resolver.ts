import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Args, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { IdScalar } from '../../common/graphql/scalars';
import { ForwardPageArgs } from '../../common/graphql/page-args';
import { Pet } from '../pets/pet.type';
import { InventoryFilter, InventoryUpdate } from './inventory.inputs';
import { InventoryCount, InventoryItem, InventoryItemConnection } from './inventory.type';

@Resolver(() => InventoryItem)
export class InventoryResolver {
  @Query(() => InventoryItem, { nullable: true, description: "A pet's stock entry, or null." })
  inventory(@Arg('petId', () => IdScalar) petId: bigint, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.root(info);
  }

  @Query(() => InventoryItemConnection, { description: 'Stock entries by pet id.' })
  inventoryItems(
    @Arg('filter', () => InventoryFilter, { nullable: true }) filter: InventoryFilter | null,
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.reads.root(info);
  }

  @Query(() => [InventoryCount], { description: 'Total stock per pet status; all three statuses are always present.' })
  inventorySummary(@Ctx() ctx: GraphQLContext) {
    return ctx.services.inventory.summary();
  }

  @FieldResolver(() => Pet)
  pet(@Root() item: InventoryItem, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.compiled(item, info);
  }

  @Authorized()
  @Mutation(() => InventoryItem, {
    description:
      "Sets a pet's stock count (0..1000000). Above 0 makes the pet AVAILABLE; 0 makes it PENDING while it has open orders.",
  })
  updateInventory(
    @Arg('petId', () => IdScalar) petId: bigint,
    @Arg('input', () => InventoryUpdate) input: InventoryUpdate,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.inventory.update(petId, input);
  }
}
