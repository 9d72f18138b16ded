import { keyedLoader } from '../../common/loaders';
import type { Services } from '../../services';

export function createInventoryLoaders(services: Services) {
  return {
    inventoryByPetId: keyedLoader(
      (petIds) => services.inventory.byPetIds(petIds),
      (row) => row.petId,
    ),
  };
}
