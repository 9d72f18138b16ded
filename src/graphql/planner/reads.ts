/**
 * The read planner: a root list resolver looks ahead at its selection (lookahead.ts) and reads the
 * relations below it in the SAME statement as its page, the way PostGraphile plans a request:
 *
 * - `pets` with `category` and/or `inventory`: both joined to the page;
 * - `orders` with `pet` (and the pet's `category` and/or `inventory`): joined to the page;
 * - `categories` with `pets(first, after, filter)` (and the pets' `inventory`): each category's page
 *   of pets as a LATERAL subquery, shaped as JSON by PostgreSQL (one row per category).
 *
 * What the statement returned PRIMES the request's DataLoaders (src/graphql/context.ts), keyed
 * exactly as the field resolvers load them: every field resolver still reads through its loader
 * (and finds the row there), and any shape not planned here (a nested page with other arguments,
 * `Pet.orders`, a field under an alias with other arguments, ...) is loaded by the batched loaders as
 * before. The lists' filters, orders, cursors and counts stay their services' own (`list` takes the
 * joins as a `PageExtension`); authorization and cost limits run before any resolver, unchanged.
 *
 * Only the columns the GraphQL types expose are read for related rows (no timestamps).
 */
import { getArgumentValues, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { Prisma } from '../../generated/prisma/client';
import { buildPage, type Page, type PageArgs, type PageExtension } from '../../common/pagination';
import type { Category } from '../../modules/categories/category.service';
import type { Order, OrderFilterInput } from '../../modules/orders/order.service';
import type { Pet, PetFilterInput, PetOrderInput } from '../../modules/pets/pet.service';
import type { PetStatus } from '../../modules/pets/pet-status';
import { categoryPetsArgs } from '../../modules/pets/pet.loaders';
import type { GraphQLContext, Loaders } from '../context';
import { connectionNodeFields, subfields, type Fields } from './lookahead';

type Info = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'schema' | 'variableValues'>;

const join = (parts: Prisma.Sql[]) => (parts.length ? Prisma.join(parts, ' ') : Prisma.empty);
const extension = (columns: Prisma.Sql[], joins: Prisma.Sql[]): PageExtension | undefined =>
  columns.length ? { columns: Prisma.join(columns, ', '), joins: join(joins) } : undefined;

/** Related rows read with a page, under names no list column uses. */
interface Related {
  __categoryName?: string;
  __categoryDescription?: string | null;
  __quantity?: number | null;
  __petName?: string | null;
  __petCategoryId?: bigint | null;
  __petStatus?: PetStatus | null;
}

function primeCategory(loaders: Loaders, id: bigint, row: Related): void {
  loaders.categoryById.prime(id, {
    id,
    name: row.__categoryName!,
    description: row.__categoryDescription ?? null,
  } as Category);
}

function primeInventory(loaders: Loaders, petId: bigint, quantity: number | null | undefined): void {
  loaders.inventoryByPetId.prime(petId, quantity == null ? null : { petId, quantity });
}

/** Joins for a pet's to-one relations, the pet's row being `pet` (`t` or `p`). */
function petRelations(fields: Fields, petId: string, categoryId: string) {
  const columns: Prisma.Sql[] = [];
  const joins: Prisma.Sql[] = [];
  const category = fields.has('category');
  const inventory = fields.has('inventory');
  if (category) {
    columns.push(Prisma.raw('c.name AS "__categoryName", c.description AS "__categoryDescription"'));
    joins.push(Prisma.raw(`LEFT JOIN categories c ON c.id = ${categoryId}`));
  }
  if (inventory) {
    columns.push(Prisma.raw('i.quantity AS "__quantity"'));
    joins.push(Prisma.raw(`LEFT JOIN inventory_items i ON i.pet_id = ${petId}`));
  }
  return { columns, joins, category, inventory };
}

/** `pets(filter, orderBy, ...page)`: the page with its pets' category and inventory, in one statement. */
export async function petsPage(
  ctx: GraphQLContext,
  info: Info,
  filter: PetFilterInput | null,
  orderBy: PetOrderInput | null,
  page: PageArgs,
): Promise<Page<Pet>> {
  const plan = ctx.planReads
    ? petRelations(connectionNodeFields(info, info.fieldNodes), 't.id', 't."categoryId"')
    : null;
  const result = await ctx.services.pets.list(
    filter,
    orderBy,
    page,
    plan ? extension(plan.columns, plan.joins) : undefined,
  );
  const { loaders } = ctx;
  for (const pet of result.nodes as (Pet & Related)[]) {
    loaders.petById.prime(pet.id, pet);
    if (plan?.category) primeCategory(loaders, pet.categoryId, pet);
    if (plan?.inventory) primeInventory(loaders, pet.id, pet.__quantity);
  }
  return result;
}

/** `orders(filter, ...page)`: the page with each order's pet (and its category, inventory), in one statement. */
export async function ordersPage(
  ctx: GraphQLContext,
  info: Info,
  filter: OrderFilterInput | null,
  page: PageArgs,
): Promise<Page<Order>> {
  const petNodes = ctx.planReads ? connectionNodeFields(info, info.fieldNodes).get('pet') : undefined;
  if (!petNodes) return ctx.services.orders.list(filter, page);
  const pet = petRelations(subfields(info, petNodes), 'p.id', 'p.category_id');
  const columns = [
    Prisma.raw('p.name AS "__petName", p.category_id AS "__petCategoryId", p.status AS "__petStatus"'),
    ...pet.columns,
  ];
  const joins = [Prisma.raw('LEFT JOIN pets p ON p.id = t."petId"'), ...pet.joins];
  const result = await ctx.services.orders.list(filter, page, extension(columns, joins));
  const { loaders } = ctx;
  for (const order of result.nodes as (Order & Related)[]) {
    // No row: the pet was deleted (petId is null then) and the resolver answers null by itself.
    if (order.petId === null || order.__petCategoryId == null) continue;
    const categoryId = order.__petCategoryId;
    loaders.petById.prime(order.petId, {
      id: order.petId,
      name: order.__petName!,
      categoryId,
      status: order.__petStatus!,
    } as Pet);
    if (pet.category) primeCategory(loaders, categoryId, order);
    if (pet.inventory) primeInventory(loaders, order.petId, order.__quantity);
  }
  return result;
}

/** A pet as json_build_object writes it below (ids as text: JSON numbers cannot hold every int8). */
interface PetJson {
  id: string;
  name: string;
  categoryId: string;
  status: PetStatus;
  quantity?: number | null;
}

/**
 * `categories(...page)`: the page, and when `pets` is selected on it, each category's page of pets
 * (with their inventory) in the same statement. The nested page follows the rules of
 * PetService.categoryPageSql (filter, order, cursor); a nested argument it refuses is left to the
 * loaders, which report it on the nested field as they always have.
 */
export async function categoriesPage(ctx: GraphQLContext, info: Info, page: PageArgs): Promise<Page<Category>> {
  const petsNode = ctx.planReads ? connectionNodeFields(info, info.fieldNodes).get('pets')?.[0] : undefined;
  const nested = petsNode && nestedPets(ctx, info, petsNode);
  if (!nested) return ctx.services.categories.list(page);
  const inventory = connectionNodeFields(info, [petsNode]).has('inventory');
  const quantity = inventory ? Prisma.raw(`, 'quantity', i.quantity`) : Prisma.empty;
  const joins = Prisma.sql`LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('id', x.id::text, 'name', x.name, 'categoryId', x."categoryId"::text, 'status', x.status${quantity}) ORDER BY x.id) AS pets
      FROM (${nested.page.statement}) x ${inventory ? Prisma.raw('LEFT JOIN inventory_items i ON i.pet_id = x.id') : Prisma.empty}
    ) pp ON true`;
  const result = await ctx.services.categories.list(page, { columns: Prisma.raw('pp.pets AS "__pets"'), joins });
  const { loaders } = ctx;
  for (const category of result.nodes as (Category & { __pets: PetJson[] | null })[]) {
    const pets = (category.__pets ?? []).map((p) => {
      const pet = { id: BigInt(p.id), name: p.name, categoryId: BigInt(p.categoryId), status: p.status } as Pet;
      loaders.petById.prime(pet.id, pet);
      if (inventory) primeInventory(loaders, pet.id, p.quantity);
      return pet;
    });
    const { window, sort } = nested.page;
    const count = () => loaders.petCountByCategory.load({ parentId: category.id, args: nested.args.filter });
    loaders.petsByCategory.prime({ parentId: category.id, args: nested.args }, buildPage(pets, window, sort, count));
  }
  return result;
}

/** The nested `pets` page's arguments and statement, or null when it is left to the loaders. */
function nestedPets(ctx: GraphQLContext, info: Info, node: Parameters<typeof getArgumentValues>[1]) {
  try {
    const field = (info.schema.getType('Category') as GraphQLObjectType).getFields().pets!;
    const raw = getArgumentValues(field, node, info.variableValues) as {
      filter?: PetFilterInput | null;
      first?: number | null;
      after?: string | null;
    };
    const args = categoryPetsArgs(raw.filter, { first: raw.first, after: raw.after });
    return { args, page: ctx.services.pets.categoryPageSql(Prisma.raw('t.id'), args.filter, args.page) };
  } catch {
    return null;
  }
}
