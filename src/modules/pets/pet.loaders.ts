import { keyedLoader, groupedLoader } from '../../common/loaders';
import type { Page, PageArgs } from '../../common/pagination';
import type { Services } from '../../services';
import type { Pet, PetFilterInput } from './pet.service';

export interface CategoryPetsArgs {
  filter: PetFilterInput | null | undefined;
  page: Pick<PageArgs, 'first' | 'after'>;
}

/**
 * The key of a category's page of pets (Category.pets on the DataLoader path), so that equal
 * arguments share one batch.
 */
export function categoryPetsArgs(
  filter: PetFilterInput | null | undefined,
  page: Pick<PageArgs, 'first' | 'after'>,
): CategoryPetsArgs {
  return { filter: filter ? { ...filter } : null, page: { first: page.first, after: page.after } };
}

export function createPetLoaders(services: Services) {
  const petById = keyedLoader(
    (ids) => services.pets.byIds(ids),
    (pet) => pet.id,
  );
  const petCountByCategory = groupedLoader<PetFilterInput | null | undefined, number>(
    (categoryIds, filter) => services.pets.countByCategory(categoryIds, filter),
    () => 0,
  );
  const petsByCategory = groupedLoader<CategoryPetsArgs, Page<Pet>>(
    async (categoryIds, { filter, page }) => {
      const pages = await services.pets.pagesByCategory(categoryIds, filter, page, (categoryId) =>
        petCountByCategory.load({ parentId: categoryId, args: filter }),
      );
      // Prime the by-id cache: a later `pet(id)` for a listed pet costs nothing.
      for (const p of pages.values()) for (const pet of p.nodes) petById.prime(pet.id, pet);
      return pages;
    },
    () => {
      throw new Error('missing page');
    },
  );
  return { petById, petsByCategory, petCountByCategory };
}
