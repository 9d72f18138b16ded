import { z } from 'zod';
import type { Order, Prisma, PrismaClient } from '../../generated/prisma/client';
import { validate } from '../../common/validation';
import { paginate, type Page, type PageArgs, type Sort } from '../../common/pagination';
import { countByParent, loadNestedPages } from '../../common/nested-pages';

export type { Order };

export interface OrderFilterInput {
  complete?: boolean | null;
  petId?: bigint | null;
}

const filterSchema = z.object({ complete: z.boolean().nullish(), petId: z.bigint().nullish() }).nullish();

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

  list(filter: OrderFilterInput | null | undefined, args: PageArgs): Promise<Page<Order>> {
    const f = validate(filterSchema, filter);
    const where: Prisma.OrderWhereInput = {
      ...(f?.complete != null && { complete: f.complete }),
      ...(f?.petId != null && { petId: f.petId }),
    };
    return paginate<Order>({
      args,
      sort: newestFirst,
      where: where as Record<string, unknown>,
      findMany: (q) => this.prisma.order.findMany(q as Prisma.OrderFindManyArgs),
      count: (q) => this.prisma.order.count(q as Prisma.OrderCountArgs),
    });
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
