import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Args, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { IdScalar } from '../../common/graphql/scalars';
import { ForwardPageArgs } from '../../common/graphql/page-args';
import { PetFilter } from '../pets/pet.inputs';
import { PetConnection } from '../pets/pet.type';
import { CategoryUpdate, NewCategory } from './category.inputs';
import { Category, CategoryConnection } from './category.type';

@Resolver(() => Category)
export class CategoryResolver {
  @Query(() => Category, { nullable: true, description: 'A category by id, or null.' })
  category(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return ctx.reads.root(info);
  }

  @Query(() => CategoryConnection, { description: 'Categories by id.' })
  categories(
    @Args(() => ForwardPageArgs) page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.reads.root(info);
  }

  @FieldResolver(() => PetConnection, { description: 'Pets of this category, by id.' })
  pets(
    @Root() category: Category,
    @Arg('filter', () => PetFilter, { nullable: true }) _filter: PetFilter | null,
    @Args(() => ForwardPageArgs) _page: ForwardPageArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.reads.compiled(category, info);
  }

  @Authorized()
  @Mutation(() => Category)
  createCategory(@Arg('input', () => NewCategory) input: NewCategory, @Ctx() ctx: GraphQLContext) {
    return ctx.services.categories.create(input);
  }

  @Authorized()
  @Mutation(() => Category)
  updateCategory(
    @Arg('id', () => IdScalar) id: bigint,
    @Arg('input', () => CategoryUpdate) input: CategoryUpdate,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.categories.update(id, input);
  }

  @Authorized()
  @Mutation(() => Category, { description: 'Deletes a category that has no pets; returns it as it was.' })
  deleteCategory(@Arg('id', () => IdScalar) id: bigint, @Ctx() ctx: GraphQLContext) {
    return ctx.services.categories.delete(id);
  }
}
