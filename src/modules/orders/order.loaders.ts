import { groupedLoader, keyedLoader } from '../../common/loaders';
import type { Page, PageArgs } from '../../common/pagination';
import type { Services } from '../../services';
import type { Caller } from '../auth/caller';
import { orderReadAccess } from './order.access';
import type { Order } from './order.service';

/** The order loaders of one request, reading only what `caller` may see (order.access.ts). */
export function createOrderLoaders(services: Services, caller: Caller | null) {
  const access = orderReadAccess(caller);
  const orderById = keyedLoader(
    (ids) => services.orders.byIds(ids, access),
    (order) => order.id,
  );
  const orderCountByPet = keyedLoader(
    async (petIds) =>
      [...(await services.orders.countByPet(petIds, access))].map(([petId, n]) => ({ petId: BigInt(petId), n })),
    (row) => row.petId,
  );
  const ordersByPet = groupedLoader<Pick<PageArgs, 'first' | 'after'>, Page<Order>>(
    (petIds, page) =>
      services.orders.pagesByPet(petIds, page, async (petId) => (await orderCountByPet.load(petId))?.n ?? 0, access),
    () => {
      throw new Error('missing page');
    },
  );
  return { orderById, ordersByPet, orderCountByPet };
}
