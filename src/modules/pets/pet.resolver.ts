import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Args, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { IdScalar } from '../../common/graphql/scalars';
import { ForwardPageArgs, PageArgs } from '../../common/graphql/page-args';
import { Category } from '../categories/category.type';
import { InventoryItem } from '../inventory/inventory.type';
import { OrderConnection } from '../orders/order.type';
import { NewPet, PetFilter, PetOrder, PetUpdate } from './pet.inputs';
import { PetStatusEnum, type PetStatus } from './pet-status';
import { Pet, PetConnection } from './pet.type';

@Resolver(() => Pet)
export class PetResolver {
  @Query(() => Pet, { nullable: true, description: 'A pet by id, or null.' })
  pet(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.root(info);
  }

  @Query(() => PetConnection, { description: 'Pets, filtered and sorted (by id unless `orderBy` says otherwise).' })
  async pets(
    @Arg('filter', () => PetFilter, { nullable: true }) filter: PetFilter | null,
    @Arg('orderBy', () => PetOrder, { nullable: true }) orderBy: PetOrder | null,
    @Args(() => PageArgs) page: PageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.reads.root(info);
  }

  @FieldResolver(() => Category)
  category(@Root() pet: Pet, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.compiled(pet, info);
  }

  @FieldResolver(() => InventoryItem, { nullable: true, description: 'The stock entry of this pet.' })
  inventory(@Root() pet: Pet, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.compiled(pet, info);
  }

  @Authorized()
  @FieldResolver(() => OrderConnection, { description: 'Orders for this pet, newest first.' })
  orders(
    @Root() pet: Pet,
    @Args(() => ForwardPageArgs) _page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.reads.compiled(pet, info);
  }

  @Authorized()
  @Mutation(() => Pet, { description: 'Creates a pet, with an inventory entry at quantity 0.' })
  createPet(@Arg('input', () => NewPet) input: NewPet, @Ctx() ctx: GraphQLContext) {
    return ctx.services.pets.create(input);
  }

  @Authorized()
  @Mutation(() => Pet, { description: 'Changes the given fields; a status change follows the rules of setPetStatus.' })
  updatePet(
    @Arg('id', () => IdScalar) id: bigint,
    @Arg('input', () => PetUpdate) input: PetUpdate,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.pets.update(id, input);
  }

  @Authorized()
  @Mutation(() => Pet, {
    description:
      'Moves a pet along its status lifecycle by hand: AVAILABLE -> SOLD (only with no stock and no open orders) ' +
      'or SOLD -> AVAILABLE. PENDING is entered and left only through orders and stock: INVALID_TRANSITION.',
  })
  setPetStatus(
    @Arg('id', () => IdScalar) id: bigint,
    @Arg('status', () => PetStatusEnum) status: PetStatus,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.pets.setStatus(id, status);
  }

  @Authorized()
  @Mutation(() => Pet, { description: 'Deletes a pet without open orders; returns it as it was.' })
  deletePet(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext) {
    return ctx.services.pets.delete(id);
  }
}
