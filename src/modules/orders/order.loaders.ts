import { groupedLoader, keyedLoader } from '../../common/loaders';
import type { Page, PageArgs } from '../../common/pagination';
import type { Services } from '../../services';
import type { Order } from './order.service';

export function createOrderLoaders(services: Services) {
  const orderById = keyedLoader(
    (ids) => services.orders.byIds(ids),
    (order) => order.id,
  );
  const orderCountByPet = keyedLoader(
    async (petIds) =>
      [...(await services.orders.countByPet(petIds))].map(([petId, n]) => ({ petId: BigInt(petId), n })),
    (row) => row.petId,
  );
  const ordersByPet = groupedLoader<Pick<PageArgs, 'first' | 'after'>, Page<Order>>(
    (petIds, page) =>
      services.orders.pagesByPet(petIds, page, async (petId) => (await orderCountByPet.load(petId))?.n ?? 0),
    () => {
      throw new Error('missing page');
    },
  );
  return { orderById, ordersByPet, orderCountByPet };
}
