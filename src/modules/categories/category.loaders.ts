import { keyedLoader } from '../../common/loaders';
import type { Services } from '../../services';

export function createCategoryLoaders(services: Services) {
  return {
    categoryById: keyedLoader(
      (ids) => services.categories.byIds(ids),
      (category) => category.id,
    ),
  };
}
