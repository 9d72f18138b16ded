import { z } from 'zod';
import type { Order, Prisma, PrismaClient } from '../../generated/prisma/client';
import { validate } from '../../common/validation';
import { MAX_PAGE_SIZE, paginate, type Page, type PageArgs, type Sort } from '../../common/pagination';
import { countByParent, loadNestedPages } from '../../common/nested-pages';

export type { Order };

export interface OrderFilterInput {
  complete?: boolean | null;
  petId?: bigint | null;
}

const filterSchema = z.object({ complete: z.boolean().nullish(), petId: z.bigint().nullish() }).nullish();

/** Offset pages exist only for the legacy REST path; GraphQL pages by cursor. */
export const MAX_OFFSET = 2_147_483_647;
const offsetPageSchema = z.object({
  limit: z.number().int().min(1, `must be between 1 and ${MAX_PAGE_SIZE}`).max(MAX_PAGE_SIZE, `must be between 1 and ${MAX_PAGE_SIZE}`),
  offset: z.number().int().min(0, 'must be >= 0').max(MAX_OFFSET, `must be <= ${MAX_OFFSET}`),
});

export interface OffsetPage<T> {
  items: T[];
  /** Every order matching the filter, whatever the page. */
  total: number;
}

/** Orders are listed newest first. */
const newestFirst = {
  id: 'id-desc',
  keys: [{ field: 'id', direction: 'desc', type: 'bigint' }],
} as Sort<Order> & { keys: [{ field: 'id'; direction: 'desc'; type: 'bigint' }] };

export class OrderService {
  constructor(private readonly prisma: PrismaClient) {}

  get(id: bigint): Promise<Order | null> {
    return this.prisma.order.findUnique({ where: { id } });
  }

  /** The one place a list filter becomes a `where` (cursor pages and offset pages alike). */
  private where(filter: OrderFilterInput | null | undefined): Prisma.OrderWhereInput {
    const f = validate(filterSchema, filter);
    return {
      ...(f?.complete != null && { complete: f.complete }),
      ...(f?.petId != null && { petId: f.petId }),
    };
  }

  /** Orders, newest first, by cursor (GraphQL `orders`). */
  list(filter: OrderFilterInput | null | undefined, args: PageArgs): Promise<Page<Order>> {
    return paginate<Order>({
      args,
      sort: newestFirst,
      where: this.where(filter) as Record<string, unknown>,
      findMany: (q) => this.prisma.order.findMany(q as Prisma.OrderFindManyArgs),
      count: (q) => this.prisma.order.count(q as Prisma.OrderCountArgs),
    });
  }

  /**
   * Orders, newest first, by offset (the legacy GET /store/orders): the same filter and order as
   * `list`, with the total count for X-Total-Count and the paging links.
   */
  async listByOffset(
    filter: OrderFilterInput | null | undefined,
    page: { limit: number; offset: number },
  ): Promise<OffsetPage<Order>> {
    const where = this.where(filter);
    const { limit, offset } = validate(offsetPageSchema, page);
    const [items, total] = await Promise.all([
      this.prisma.order.findMany({
        where,
        orderBy: newestFirst.keys.map((k) => ({ [k.field]: k.direction })),
        skip: offset,
        take: limit,
      }),
      this.prisma.order.count({ where }),
    ]);
    return { items, total };
  }

  /** One page of orders for each pet, newest first, in one statement (Pet.orders). */
  pagesByPet(
    petIds: bigint[],
    args: Pick<PageArgs, 'first' | 'after'>,
    countFor: (petId: bigint) => Promise<number>,
  ): Promise<Map<string, Page<Order>>> {
    return loadNestedPages<Order>({
      prisma: this.prisma,
      table: 'orders',
      parentColumn: 'pet_id',
      select:
        'id, pet_id AS "petId", quantity, ship_date AS "shipDate", complete, created_at AS "createdAt", updated_at AS "updatedAt"',
      conditions: [],
      sort: newestFirst,
      parentOf: (order) => order.petId!,
      parentIds: petIds,
      args,
      countFor,
    });
  }

  countByPet(petIds: readonly bigint[]): Promise<Map<string, number>> {
    return countByParent(this.prisma, 'orders', 'pet_id', petIds, []);
  }
}
