import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Args, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import { readRoot } from '../../graphql/planner/compiler';
import { compiledField, NOT_COMPILED } from '../../graphql/planner/compiled';
import type { GraphQLContext } from '../../graphql/context';
import { IdScalar } from '../../graphql/scalars';
import { ForwardPageArgs } from '../../graphql/page-args';
import { Pet } from '../pets/pet.type';
import { InventoryFilter, InventoryUpdate } from './inventory.inputs';
import { InventoryCount, InventoryItem, InventoryItemConnection } from './inventory.type';

@Resolver(() => InventoryItem)
export class InventoryResolver {
  @Query(() => InventoryItem, { nullable: true, description: "A pet's stock entry, or null." })
  inventory(@Arg('petId', () => IdScalar) petId: bigint, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.planReads ? readRoot(ctx, info) : ctx.services.inventory.get(petId);
  }

  @Query(() => InventoryItemConnection, { description: 'Stock entries by pet id.' })
  inventoryItems(
    @Arg('filter', () => InventoryFilter, { nullable: true }) filter: InventoryFilter | null,
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.planReads ? readRoot(ctx, info) : ctx.services.inventory.list(filter, page);
  }

  @Query(() => [InventoryCount], { description: 'Total stock per pet status; all three statuses are always present.' })
  inventorySummary(@Ctx() ctx: GraphQLContext) {
    return ctx.services.inventory.summary();
  }

  @FieldResolver(() => Pet)
  pet(@Root() item: InventoryItem, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const compiled = compiledField(item, info);
    if (compiled !== NOT_COMPILED) return compiled;
    return ctx.loaders.petById.load(item.petId);
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
