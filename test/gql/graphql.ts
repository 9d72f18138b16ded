/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Fields to change; absent fields stay as they are, a null description clears it. */
export type CategoryUpdate = {
  description?: string | null | undefined;
  name?: string | null | undefined;
};

/** All given conditions must hold. */
export type InventoryFilter = {
  /** Only entries whose quantity is below this. */
  quantityBelow?: number | null | undefined;
  status?: PetStatus | null | undefined;
};

/** The new stock count, 0..1000000. */
export type InventoryUpdate = {
  quantity: number;
};

/** A category to create. The name is trimmed, 1..100 characters, unique. */
export type NewCategory = {
  /** At most 1000 characters. */
  description?: string | null | undefined;
  name: string;
};

/** An order to place: 1..100 units of one pet, taken out of its stock. */
export type NewOrder = {
  petId: string | number;
  /** Units ordered, 1..100; at most what the pet has in stock. */
  quantity: number;
  /** Expected ship date; completing the order sets it to now when absent. */
  shipDate?: string | null | undefined;
};

/** A pet to create. The name is trimmed, 1..100 characters. */
export type NewPet = {
  categoryId: string | number;
  name: string;
  /** Defaults to AVAILABLE. */
  status?: PetStatus | null | undefined;
};

export type OrderDirection =
  | 'ASC'
  | 'DESC';

/** All given conditions must hold. */
export type OrderFilter = {
  complete?: boolean | null | undefined;
  petId?: string | number | null | undefined;
};

/** All given conditions must hold. */
export type PetFilter = {
  categoryId?: string | number | null | undefined;
  /** Case-insensitive substring of the name (at most 100 characters). */
  nameContains?: string | null | undefined;
  status?: PetStatus | null | undefined;
};

/** Sort order of a pet list; ties are broken by id. */
export type PetOrder = {
  direction?: OrderDirection;
  field: PetOrderField;
};

export type PetOrderField =
  | 'ID'
  | 'NAME';

/** Sales status of a pet (the spec's available | pending | sold). */
export type PetStatus =
  | 'AVAILABLE'
  | 'PENDING'
  | 'SOLD';

/** Fields to change; absent or null fields stay as they are. */
export type PetUpdate = {
  categoryId?: string | number | null | undefined;
  name?: string | null | undefined;
  status?: PetStatus | null | undefined;
};

export type CreateCategoryMutationVariables = Exact<{
  input: NewCategory;
}>;


export type CreateCategoryMutation = { createCategory: { id: string, name: string, description: string | null } };

export type UpdateCategoryMutationVariables = Exact<{
  id: string | number;
  input: CategoryUpdate;
}>;


export type UpdateCategoryMutation = { updateCategory: { id: string, name: string, description: string | null } };

export type DeleteCategoryMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteCategoryMutation = { deleteCategory: { id: string, name: string } };

export type CategoryWithPetsQueryVariables = Exact<{
  id: string | number;
  filter?: PetFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type CategoryWithPetsQuery = { category: { name: string, pets: { totalCount: number, nodes: Array<{ name: string, status: PetStatus | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type AllCategoriesQueryVariables = Exact<{ [key: string]: never; }>;


export type AllCategoriesQuery = { categories: { nodes: Array<{ id: string }> } };

export type PetByIdQueryVariables = Exact<{
  id: string | number;
}>;


export type PetByIdQuery = { pet: { id: string, categoryId: string, name: string, category: { id: string } } | null };

export type InventoryQueryVariables = Exact<{
  petId: string | number;
}>;


export type InventoryQuery = { inventory: { petId: string, quantity: number, status: PetStatus, pet: { name: string } } | null };

export type InventoryItemsQueryVariables = Exact<{
  filter?: InventoryFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type InventoryItemsQuery = { inventoryItems: { totalCount: number, nodes: Array<{ petId: string, quantity: number, status: PetStatus }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type StockOnlyQueryVariables = Exact<{
  petId: string | number;
}>;


export type StockOnlyQuery = { inventory: { petId: string, quantity: number } | null };

export type StockCountQueryVariables = Exact<{
  filter?: InventoryFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type StockCountQuery = { inventoryItems: { totalCount: number, nodes: Array<{ petId: string, quantity: number }> } };

export type SummaryQueryVariables = Exact<{ [key: string]: never; }>;


export type SummaryQuery = { inventorySummary: Array<{ status: PetStatus, quantity: number }> };

export type UpdateInventoryMutationVariables = Exact<{
  petId: string | number;
  input: InventoryUpdate;
}>;


export type UpdateInventoryMutation = { updateInventory: { petId: string, quantity: number, status: PetStatus } };

export type OrdersQueryVariables = Exact<{
  filter?: OrderFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type OrdersQuery = { orders: { totalCount: number, nodes: Array<{ id: string, petId: string | null, quantity: number | null, complete: boolean | null, shipDate: string | null, pet: { name: string, category: { name: string } } | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type PetOrdersQueryVariables = Exact<{
  id: string | number;
  first?: number | null | undefined;
}>;


export type PetOrdersQuery = { pet: { orders: { totalCount: number, nodes: Array<{ id: string }>, pageInfo: { hasNextPage: boolean } } } | null };

export type PagePetsQueryVariables = Exact<{
  filter?: PetFilter | null | undefined;
  orderBy?: PetOrder | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
}>;


export type PagePetsQuery = { pets: { totalCount: number, edges: Array<{ cursor: string, node: { name: string } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type UpdatePetStatusMutationVariables = Exact<{
  id: string | number;
  name?: string | null | undefined;
  status?: PetStatus | null | undefined;
}>;


export type UpdatePetStatusMutation = { updatePet: { id: string, name: string, status: PetStatus | null } };

export type CreatePetWithStatusMutationVariables = Exact<{
  categoryId: string | number;
  status?: PetStatus | null | undefined;
}>;


export type CreatePetWithStatusMutation = { createPet: { id: string, status: PetStatus | null } };

export type StockSummaryQueryVariables = Exact<{ [key: string]: never; }>;


export type StockSummaryQuery = { inventorySummary: Array<{ status: PetStatus, quantity: number }> };

export type DeletePetByIdMutationVariables = Exact<{
  id: string | number;
}>;


export type DeletePetByIdMutation = { deletePet: { id: string } };

export type MovePetMutationVariables = Exact<{
  id: string | number;
  categoryId: string | number;
}>;


export type MovePetMutation = { updatePet: { id: string } };

export type CreatePetMutationVariables = Exact<{
  input: NewPet;
}>;


export type CreatePetMutation = { createPet: { id: string, name: string, categoryId: string, status: PetStatus | null, category: { id: string, name: string }, inventory: { petId: string, quantity: number, status: PetStatus } | null } };

export type GetPetQueryVariables = Exact<{
  id: string | number;
}>;


export type GetPetQuery = { pet: { id: string, name: string, status: PetStatus | null, categoryId: string } | null };

export type UpdatePetMutationVariables = Exact<{
  id: string | number;
  input: PetUpdate;
}>;


export type UpdatePetMutation = { updatePet: { id: string, name: string, categoryId: string, status: PetStatus | null } };

export type SetPetStatusMutationVariables = Exact<{
  id: string | number;
  status: PetStatus;
}>;


export type SetPetStatusMutation = { setPetStatus: { id: string, status: PetStatus | null } };

export type DeletePetMutationVariables = Exact<{
  id: string | number;
}>;


export type DeletePetMutation = { deletePet: { id: string, name: string } };

export type PlannedPetsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  orderBy?: PetOrder | null | undefined;
  filter?: PetFilter | null | undefined;
}>;


export type PlannedPetsQuery = { pets: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, name: string, status: PetStatus | null, category: { id: string, name: string, description: string | null }, inventory: { petId: string, quantity: number, status: PetStatus } | null } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type PlannedOrdersQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  filter?: OrderFilter | null | undefined;
}>;


export type PlannedOrdersQuery = { orders: { totalCount: number, nodes: Array<{ id: string, petId: string | null, quantity: number | null, complete: boolean | null, pet: { id: string, name: string, categoryId: string, status: PetStatus | null, category: { name: string }, inventory: { quantity: number } | null } | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type PlannedCategoriesQueryVariables = Exact<{
  first?: number | null | undefined;
  pets?: number | null | undefined;
  after?: string | null | undefined;
  filter?: PetFilter | null | undefined;
}>;


export type PlannedCategoriesQuery = { categories: { nodes: Array<{ id: string, name: string, pets: { totalCount: number, nodes: Array<{ id: string, name: string, status: PetStatus | null, inventory: { quantity: number } | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } }> } };

export type PlannedTrimmedPagesQueryVariables = Exact<{
  first?: number | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  pets?: number | null | undefined;
}>;


export type PlannedTrimmedPagesQuery = { pets: { edges: Array<{ cursor: string, node: { id: string, name: string, category: { name: string }, inventory: { quantity: number } | null } }>, pageInfo: { startCursor: string | null, endCursor: string | null } }, categories: { nodes: Array<{ name: string, pets: { nodes: Array<{ name: string, inventory: { quantity: number } | null }>, pageInfo: { endCursor: string | null } } }> } };

export type PlannedMixedQueryVariables = Exact<{
  skip: boolean;
}>;


export type PlannedMixedQuery = { categories: { edges: Array<{ node: { name: string, few: { nodes: Array<{ name: string }> }, pets: { nodes: Array<{ name: string, inventory: { quantity: number } | null, orders: { nodes: Array<{ id: string }> } }> } } }> }, pets: { nodes: Array<{ name: string, category?: { name: string } }> } };

export type CategoryFieldsFragment = { name: string, pets: { nodes: Array<{ name: string, inventory: { quantity: number } | null, orders: { nodes: Array<{ id: string }> } }> } };

export type CompiledEveryRelationQueryVariables = Exact<{
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type CompiledEveryRelationQuery = { pet: { id: string, name: string, category: { id: string, name: string, description: string | null, pets: { totalCount: number, nodes: Array<{ name: string }> } }, inventory: { petId: string, quantity: number, status: PetStatus, pet: { id: string, status: PetStatus | null } } | null, orders: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, petId: string | null, quantity: number | null, shipDate: string | null, complete: boolean | null, pet: { name: string } | null } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } } | null, inventoryItems: { totalCount: number, nodes: Array<{ petId: string, quantity: number, status: PetStatus, pet: { __typename: 'Pet', name: string, category: { name: string } } }> }, order: { id: string, shipDate: string | null, pet: { inventory: { quantity: number } | null } | null } | null, inventory: { quantity: number } | null, category: { a: { nodes: Array<{ id: string }> }, b: { totalCount: number, edges: Array<{ cursor: string, node: { name: string, orders: { nodes: Array<{ id: string }> } } }> } } | null };

export type CompiledTwinPathsQueryVariables = Exact<{ [key: string]: never; }>;


export type CompiledTwinPathsQuery = { categories: { nodes: Array<{ x: { nodes: Array<{ id: string }> } }>, edges: Array<{ node: { x: { nodes: Array<{ name: string }> } } }> } };

export type CompiledTwoAliasesOneRefusedQueryVariables = Exact<{
  id: string | number;
}>;


export type CompiledTwoAliasesOneRefusedQuery = { category: { a: { nodes: Array<{ id: string }> }, b: { nodes: Array<{ id: string }> } } | null };

export type PlannedPetQueryVariables = Exact<{
  id: string | number;
}>;


export type PlannedPetQuery = { pet: { id: string, name: string, categoryId: string, status: PetStatus | null } | null };

export type NarrowRowsQueryVariables = Exact<{ [key: string]: never; }>;


export type NarrowRowsQuery = { pets: { nodes: Array<{ name: string }> } };

export type NarrowNestedQueryVariables = Exact<{ [key: string]: never; }>;


export type NarrowNestedQuery = { categories: { nodes: Array<{ pets: { nodes: Array<{ name: string }> } }> } };

export type NarrowJoinedQueryVariables = Exact<{ [key: string]: never; }>;


export type NarrowJoinedQuery = { orders: { nodes: Array<{ quantity: number | null, pet: { name: string } | null }> } };

export type PetsWithRelationsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type PetsWithRelationsQuery = { pets: { nodes: Array<{ id: string, name: string, category: { name: string }, inventory: { quantity: number, status: PetStatus } | null }> } };

export type OrdersWithPetsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type OrdersWithPetsQuery = { orders: { nodes: Array<{ id: string, pet: { name: string, category: { name: string } } | null }> } };

export type CategoriesWithPetsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CategoriesWithPetsQuery = { categories: { nodes: Array<{ name: string, pets: { totalCount: number, nodes: Array<{ name: string, orders: { totalCount: number, nodes: Array<{ id: string }> } }> } }> } };

export type CategoriesPetsInventoryQueryVariables = Exact<{
  first?: number | null | undefined;
  pets?: number | null | undefined;
}>;


export type CategoriesPetsInventoryQuery = { categories: { nodes: Array<{ id: string, name: string, pets: { nodes: Array<{ id: string, name: string, status: PetStatus | null, inventory: { quantity: number } | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } }> } };

export type PlannedPetByIdQueryVariables = Exact<{
  id: string | number;
}>;


export type PlannedPetByIdQuery = { pet: { id: string, name: string, categoryId: string, status: PetStatus | null } | null };

export type CompiledPetsCountedQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CompiledPetsCountedQuery = { pets: { totalCount: number, nodes: Array<{ name: string }> } };

export type CompiledPetsWithOrdersQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CompiledPetsWithOrdersQuery = { pets: { nodes: Array<{ name: string, orders: { totalCount: number, nodes: Array<{ id: string, shipDate: string | null }> } }> } };

export type CompiledInventoryWithPetsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CompiledInventoryWithPetsQuery = { inventoryItems: { nodes: Array<{ quantity: number, pet: { name: string, category: { name: string } } }> } };

export type CompiledPetWithRelationsQueryVariables = Exact<{
  id: string | number;
}>;


export type CompiledPetWithRelationsQuery = { pet: { name: string, category: { name: string }, inventory: { quantity: number } | null } | null };

export type CompiledTwoAliasesQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CompiledTwoAliasesQuery = { categories: { nodes: Array<{ few: { nodes: Array<{ id: string }> }, available: { totalCount: number, edges: Array<{ cursor: string, node: { name: string } }> } }> } };

export type CompiledDeepRelationsQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type CompiledDeepRelationsQuery = { categories: { nodes: Array<{ pets: { nodes: Array<{ category: { name: string } }> } }> }, orders: { nodes: Array<{ pet: { orders: { nodes: Array<{ pet: { inventory: { pet: { name: string } } | null } | null }> } } | null }> } };

export type CompiledSeveralRootsQueryVariables = Exact<{
  id: string | number;
}>;


export type CompiledSeveralRootsQuery = { pet: { name: string } | null, category: { pets: { totalCount: number } } | null, order: { pet: { name: string } | null } | null, inventory: { pet: { category: { name: string } } } | null, pets: { totalCount: number } };

export type PlaceOrderCountedMutationVariables = Exact<{
  petId: string | number;
}>;


export type PlaceOrderCountedMutation = { placeOrder: { id: string, quantity: number | null } };

export type CompleteOrderCountedMutationVariables = Exact<{
  id: string | number;
}>;


export type CompleteOrderCountedMutation = { completeOrder: { id: string, complete: boolean | null } };

export type CancelOrderCountedMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelOrderCountedMutation = { cancelOrder: { id: string } };

export type SetStockCountedMutationVariables = Exact<{
  petId: string | number;
}>;


export type SetStockCountedMutation = { updateInventory: { quantity: number, status: PetStatus } };

export type DeletePetNowMutationVariables = Exact<{
  id: string | number;
}>;


export type DeletePetNowMutation = { deletePet: { id: string } };

export type OrderByIdQueryVariables = Exact<{
  id: string | number;
}>;


export type OrderByIdQuery = { order: { id: string, quantity: number | null, shipDate: string | null, pet: { id: string } | null } | null };

export type PlaceOrderMutationVariables = Exact<{
  input: NewOrder;
}>;


export type PlaceOrderMutation = { placeOrder: { id: string, petId: string | null, quantity: number | null, shipDate: string | null, complete: boolean | null, pet: { id: string, status: PetStatus | null, inventory: { quantity: number, status: PetStatus } | null } | null } };

export type CompleteOrderMutationVariables = Exact<{
  id: string | number;
}>;


export type CompleteOrderMutation = { completeOrder: { id: string, petId: string | null, quantity: number | null, shipDate: string | null, complete: boolean | null } };

export type CancelOrderMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelOrderMutation = { cancelOrder: { id: string, petId: string | null, quantity: number | null, shipDate: string | null, complete: boolean | null } };

export type PetStockQueryVariables = Exact<{
  id: string | number;
}>;


export type PetStockQuery = { pet: { status: PetStatus | null, inventory: { quantity: number, status: PetStatus } | null } | null };

export type SetStatusMutationVariables = Exact<{
  id: string | number;
  status: PetStatus;
}>;


export type SetStatusMutation = { setPetStatus: { id: string, status: PetStatus | null } };

export type SetStockMutationVariables = Exact<{
  petId: string | number;
  quantity: number;
}>;


export type SetStockMutation = { updateInventory: { petId: string, quantity: number, status: PetStatus } };

export type CategoryCard_CategoryFragment = { id: string, name: string, description: string | null };

export type InventoryCard_ItemFragment = { petId: string, quantity: number };

export type OrderCard_OrderFragment = { id: string, quantity: number | null, complete: boolean | null, pet: { name: string } | null };

export type PetCard_PetFragment = { id: string, name: string, status: PetStatus | null, category: { name: string } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const CategoryFieldsFragmentDoc = new TypedDocumentString(`
    fragment CategoryFields on Category {
  name
  pets(first: 2) {
    nodes {
      name
      inventory {
        quantity
      }
      orders(first: 1) {
        nodes {
          id
        }
      }
    }
  }
}
    `, {"fragmentName":"CategoryFields"}) as unknown as TypedDocumentString<CategoryFieldsFragment, unknown>;
export const CategoryCard_CategoryFragmentDoc = new TypedDocumentString(`
    fragment CategoryCard_category on Category @refetchable(queryName: "CategoryCardRefetchQuery") {
  id
  name
  description
}
    `, {"fragmentName":"CategoryCard_category"}) as unknown as TypedDocumentString<CategoryCard_CategoryFragment, unknown>;
export const InventoryCard_ItemFragmentDoc = new TypedDocumentString(`
    fragment InventoryCard_item on InventoryItem @refetchable(queryName: "InventoryCardRefetchQuery") {
  petId
  quantity
}
    `, {"fragmentName":"InventoryCard_item"}) as unknown as TypedDocumentString<InventoryCard_ItemFragment, unknown>;
export const OrderCard_OrderFragmentDoc = new TypedDocumentString(`
    fragment OrderCard_order on Order @refetchable(queryName: "OrderCardRefetchQuery") {
  id
  quantity
  complete
  pet {
    name
  }
}
    `, {"fragmentName":"OrderCard_order"}) as unknown as TypedDocumentString<OrderCard_OrderFragment, unknown>;
export const PetCard_PetFragmentDoc = new TypedDocumentString(`
    fragment PetCard_pet on Pet @refetchable(queryName: "PetCardRefetchQuery") {
  id
  name
  status
  category {
    name
  }
}
    `, {"fragmentName":"PetCard_pet"}) as unknown as TypedDocumentString<PetCard_PetFragment, unknown>;
export const CreateCategoryDocument = new TypedDocumentString(`
    mutation CreateCategory($input: NewCategory!) {
  createCategory(input: $input) {
    id
    name
    description
  }
}
    `) as unknown as TypedDocumentString<CreateCategoryMutation, CreateCategoryMutationVariables>;
export const UpdateCategoryDocument = new TypedDocumentString(`
    mutation UpdateCategory($id: ID!, $input: CategoryUpdate!) {
  updateCategory(id: $id, input: $input) {
    id
    name
    description
  }
}
    `) as unknown as TypedDocumentString<UpdateCategoryMutation, UpdateCategoryMutationVariables>;
export const DeleteCategoryDocument = new TypedDocumentString(`
    mutation DeleteCategory($id: ID!) {
  deleteCategory(id: $id) {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<DeleteCategoryMutation, DeleteCategoryMutationVariables>;
export const CategoryWithPetsDocument = new TypedDocumentString(`
    query CategoryWithPets($id: ID!, $filter: PetFilter, $first: Int, $after: String) {
  category(id: $id) {
    name
    pets(filter: $filter, first: $first, after: $after) {
      totalCount
      nodes {
        name
        status
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CategoryWithPetsQuery, CategoryWithPetsQueryVariables>;
export const AllCategoriesDocument = new TypedDocumentString(`
    query AllCategories {
  categories {
    nodes {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<AllCategoriesQuery, AllCategoriesQueryVariables>;
export const PetByIdDocument = new TypedDocumentString(`
    query PetById($id: ID!) {
  pet(id: $id) {
    id
    categoryId
    name
    category {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<PetByIdQuery, PetByIdQueryVariables>;
export const InventoryDocument = new TypedDocumentString(`
    query Inventory($petId: ID!) {
  inventory(petId: $petId) {
    petId
    quantity
    status
    pet {
      name
    }
  }
}
    `) as unknown as TypedDocumentString<InventoryQuery, InventoryQueryVariables>;
export const InventoryItemsDocument = new TypedDocumentString(`
    query InventoryItems($filter: InventoryFilter, $first: Int, $after: String) {
  inventoryItems(filter: $filter, first: $first, after: $after) {
    totalCount
    nodes {
      petId
      quantity
      status
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<InventoryItemsQuery, InventoryItemsQueryVariables>;
export const StockOnlyDocument = new TypedDocumentString(`
    query StockOnly($petId: ID!) {
  inventory(petId: $petId) {
    petId
    quantity
  }
}
    `) as unknown as TypedDocumentString<StockOnlyQuery, StockOnlyQueryVariables>;
export const StockCountDocument = new TypedDocumentString(`
    query StockCount($filter: InventoryFilter, $first: Int) {
  inventoryItems(filter: $filter, first: $first) {
    totalCount
    nodes {
      petId
      quantity
    }
  }
}
    `) as unknown as TypedDocumentString<StockCountQuery, StockCountQueryVariables>;
export const SummaryDocument = new TypedDocumentString(`
    query Summary {
  inventorySummary {
    status
    quantity
  }
}
    `) as unknown as TypedDocumentString<SummaryQuery, SummaryQueryVariables>;
export const UpdateInventoryDocument = new TypedDocumentString(`
    mutation UpdateInventory($petId: ID!, $input: InventoryUpdate!) {
  updateInventory(petId: $petId, input: $input) {
    petId
    quantity
    status
  }
}
    `) as unknown as TypedDocumentString<UpdateInventoryMutation, UpdateInventoryMutationVariables>;
export const OrdersDocument = new TypedDocumentString(`
    query Orders($filter: OrderFilter, $first: Int, $after: String) {
  orders(filter: $filter, first: $first, after: $after) {
    totalCount
    nodes {
      id
      petId
      quantity
      complete
      shipDate
      pet {
        name
        category {
          name
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<OrdersQuery, OrdersQueryVariables>;
export const PetOrdersDocument = new TypedDocumentString(`
    query PetOrders($id: ID!, $first: Int) {
  pet(id: $id) {
    orders(first: $first) {
      totalCount
      nodes {
        id
      }
      pageInfo {
        hasNextPage
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PetOrdersQuery, PetOrdersQueryVariables>;
export const PagePetsDocument = new TypedDocumentString(`
    query PagePets($filter: PetFilter, $orderBy: PetOrder, $first: Int, $after: String, $last: Int, $before: String) {
  pets(
    filter: $filter
    orderBy: $orderBy
    first: $first
    after: $after
    last: $last
    before: $before
  ) {
    totalCount
    edges {
      cursor
      node {
        name
      }
    }
    pageInfo {
      hasNextPage
      hasPreviousPage
      startCursor
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<PagePetsQuery, PagePetsQueryVariables>;
export const UpdatePetStatusDocument = new TypedDocumentString(`
    mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {
  updatePet(id: $id, input: {name: $name, status: $status}) {
    id
    name
    status
  }
}
    `) as unknown as TypedDocumentString<UpdatePetStatusMutation, UpdatePetStatusMutationVariables>;
export const CreatePetWithStatusDocument = new TypedDocumentString(`
    mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {
  createPet(input: {name: "Fresh", categoryId: $categoryId, status: $status}) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<CreatePetWithStatusMutation, CreatePetWithStatusMutationVariables>;
export const StockSummaryDocument = new TypedDocumentString(`
    query StockSummary {
  inventorySummary {
    status
    quantity
  }
}
    `) as unknown as TypedDocumentString<StockSummaryQuery, StockSummaryQueryVariables>;
export const DeletePetByIdDocument = new TypedDocumentString(`
    mutation DeletePetById($id: ID!) {
  deletePet(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeletePetByIdMutation, DeletePetByIdMutationVariables>;
export const MovePetDocument = new TypedDocumentString(`
    mutation MovePet($id: ID!, $categoryId: ID!) {
  updatePet(id: $id, input: {categoryId: $categoryId}) {
    id
  }
}
    `) as unknown as TypedDocumentString<MovePetMutation, MovePetMutationVariables>;
export const CreatePetDocument = new TypedDocumentString(`
    mutation CreatePet($input: NewPet!) {
  createPet(input: $input) {
    id
    name
    categoryId
    status
    category {
      id
      name
    }
    inventory {
      petId
      quantity
      status
    }
  }
}
    `) as unknown as TypedDocumentString<CreatePetMutation, CreatePetMutationVariables>;
export const GetPetDocument = new TypedDocumentString(`
    query GetPet($id: ID!) {
  pet(id: $id) {
    id
    name
    status
    categoryId
  }
}
    `) as unknown as TypedDocumentString<GetPetQuery, GetPetQueryVariables>;
export const UpdatePetDocument = new TypedDocumentString(`
    mutation UpdatePet($id: ID!, $input: PetUpdate!) {
  updatePet(id: $id, input: $input) {
    id
    name
    categoryId
    status
  }
}
    `) as unknown as TypedDocumentString<UpdatePetMutation, UpdatePetMutationVariables>;
export const SetPetStatusDocument = new TypedDocumentString(`
    mutation SetPetStatus($id: ID!, $status: PetStatus!) {
  setPetStatus(id: $id, status: $status) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<SetPetStatusMutation, SetPetStatusMutationVariables>;
export const DeletePetDocument = new TypedDocumentString(`
    mutation DeletePet($id: ID!) {
  deletePet(id: $id) {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<DeletePetMutation, DeletePetMutationVariables>;
export const PlannedPetsDocument = new TypedDocumentString(`
    query PlannedPets($first: Int, $after: String, $last: Int, $before: String, $orderBy: PetOrder, $filter: PetFilter) {
  pets(
    first: $first
    after: $after
    last: $last
    before: $before
    orderBy: $orderBy
    filter: $filter
  ) {
    totalCount
    edges {
      cursor
      node {
        id
        name
        status
        category {
          id
          name
          description
        }
        inventory {
          petId
          quantity
          status
        }
      }
    }
    pageInfo {
      hasNextPage
      hasPreviousPage
      startCursor
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<PlannedPetsQuery, PlannedPetsQueryVariables>;
export const PlannedOrdersDocument = new TypedDocumentString(`
    query PlannedOrders($first: Int, $after: String, $filter: OrderFilter) {
  orders(first: $first, after: $after, filter: $filter) {
    totalCount
    nodes {
      id
      petId
      quantity
      complete
      pet {
        id
        name
        categoryId
        status
        category {
          name
        }
        inventory {
          quantity
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<PlannedOrdersQuery, PlannedOrdersQueryVariables>;
export const PlannedCategoriesDocument = new TypedDocumentString(`
    query PlannedCategories($first: Int, $pets: Int, $after: String, $filter: PetFilter) {
  categories(first: $first) {
    nodes {
      id
      name
      pets(first: $pets, after: $after, filter: $filter) {
        totalCount
        nodes {
          id
          name
          status
          inventory {
            quantity
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PlannedCategoriesQuery, PlannedCategoriesQueryVariables>;
export const PlannedTrimmedPagesDocument = new TypedDocumentString(`
    query PlannedTrimmedPages($first: Int, $last: Int, $before: String, $pets: Int) {
  pets(first: $first, last: $last, before: $before) {
    edges {
      cursor
      node {
        id
        name
        category {
          name
        }
        inventory {
          quantity
        }
      }
    }
    pageInfo {
      startCursor
      endCursor
    }
  }
  categories(first: 3) {
    nodes {
      name
      pets(first: $pets) {
        nodes {
          name
          inventory {
            quantity
          }
        }
        pageInfo {
          endCursor
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PlannedTrimmedPagesQuery, PlannedTrimmedPagesQueryVariables>;
export const PlannedMixedDocument = new TypedDocumentString(`
    query PlannedMixed($skip: Boolean!) {
  categories(first: 3) {
    edges {
      node {
        ...CategoryFields
        few: pets(first: 1) {
          nodes {
            name
          }
        }
      }
    }
  }
  pets(first: 4) {
    nodes {
      ... on Pet {
        name
        category @skip(if: $skip) {
          name
        }
      }
    }
  }
}
    fragment CategoryFields on Category {
  name
  pets(first: 2) {
    nodes {
      name
      inventory {
        quantity
      }
      orders(first: 1) {
        nodes {
          id
        }
      }
    }
  }
}`) as unknown as TypedDocumentString<PlannedMixedQuery, PlannedMixedQueryVariables>;
export const CompiledEveryRelationDocument = new TypedDocumentString(`
    query CompiledEveryRelation($id: ID!, $first: Int, $after: String) {
  pet(id: $id) {
    id
    name
    category {
      id
      name
      description
      pets(first: 2) {
        totalCount
        nodes {
          name
        }
      }
    }
    inventory {
      petId
      quantity
      status
      pet {
        id
        status
      }
    }
    orders(first: $first, after: $after) {
      totalCount
      edges {
        cursor
        node {
          id
          petId
          quantity
          shipDate
          complete
          pet {
            name
          }
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
  inventoryItems(first: $first, filter: {quantityBelow: 3}) {
    totalCount
    nodes {
      petId
      quantity
      status
      pet {
        __typename
        name
        category {
          name
        }
      }
    }
  }
  order(id: $id) {
    id
    shipDate
    pet {
      inventory {
        quantity
      }
    }
  }
  inventory(petId: $id) {
    quantity
  }
  category(id: $id) {
    a: pets(first: 1) {
      nodes {
        id
      }
    }
    b: pets(first: 3, filter: {status: AVAILABLE}) {
      totalCount
      edges {
        cursor
        node {
          name
          orders(first: 1) {
            nodes {
              id
            }
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledEveryRelationQuery, CompiledEveryRelationQueryVariables>;
export const CompiledTwinPathsDocument = new TypedDocumentString(`
    query CompiledTwinPaths {
  categories(first: 4) {
    nodes {
      x: pets(first: 1) {
        nodes {
          id
        }
      }
    }
    edges {
      node {
        x: pets(first: 2) {
          nodes {
            name
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledTwinPathsQuery, CompiledTwinPathsQueryVariables>;
export const CompiledTwoAliasesOneRefusedDocument = new TypedDocumentString(`
    query CompiledTwoAliasesOneRefused($id: ID!) {
  category(id: $id) {
    a: pets(first: 1) {
      nodes {
        id
      }
    }
    b: pets(first: 101) {
      nodes {
        id
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledTwoAliasesOneRefusedQuery, CompiledTwoAliasesOneRefusedQueryVariables>;
export const PlannedPetDocument = new TypedDocumentString(`
    query PlannedPet($id: ID!) {
  pet(id: $id) {
    id
    name
    categoryId
    status
  }
}
    `) as unknown as TypedDocumentString<PlannedPetQuery, PlannedPetQueryVariables>;
export const NarrowRowsDocument = new TypedDocumentString(`
    query NarrowRows {
  pets(first: 3) {
    nodes {
      name
    }
  }
}
    `) as unknown as TypedDocumentString<NarrowRowsQuery, NarrowRowsQueryVariables>;
export const NarrowNestedDocument = new TypedDocumentString(`
    query NarrowNested {
  categories(first: 2) {
    nodes {
      pets(first: 2) {
        nodes {
          name
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<NarrowNestedQuery, NarrowNestedQueryVariables>;
export const NarrowJoinedDocument = new TypedDocumentString(`
    query NarrowJoined {
  orders(first: 2) {
    nodes {
      quantity
      pet {
        name
      }
    }
  }
}
    `) as unknown as TypedDocumentString<NarrowJoinedQuery, NarrowJoinedQueryVariables>;
export const PetsWithRelationsDocument = new TypedDocumentString(`
    query PetsWithRelations($first: Int) {
  pets(first: $first) {
    nodes {
      id
      name
      category {
        name
      }
      inventory {
        quantity
        status
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PetsWithRelationsQuery, PetsWithRelationsQueryVariables>;
export const OrdersWithPetsDocument = new TypedDocumentString(`
    query OrdersWithPets($first: Int) {
  orders(first: $first) {
    nodes {
      id
      pet {
        name
        category {
          name
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<OrdersWithPetsQuery, OrdersWithPetsQueryVariables>;
export const CategoriesWithPetsDocument = new TypedDocumentString(`
    query CategoriesWithPets($first: Int) {
  categories(first: $first) {
    nodes {
      name
      pets(first: 3) {
        totalCount
        nodes {
          name
          orders(first: 2) {
            totalCount
            nodes {
              id
            }
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CategoriesWithPetsQuery, CategoriesWithPetsQueryVariables>;
export const CategoriesPetsInventoryDocument = new TypedDocumentString(`
    query CategoriesPetsInventory($first: Int, $pets: Int) {
  categories(first: $first) {
    nodes {
      id
      name
      pets(first: $pets) {
        nodes {
          id
          name
          status
          inventory {
            quantity
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CategoriesPetsInventoryQuery, CategoriesPetsInventoryQueryVariables>;
export const PlannedPetByIdDocument = new TypedDocumentString(`
    query PlannedPetById($id: ID!) {
  pet(id: $id) {
    id
    name
    categoryId
    status
  }
}
    `) as unknown as TypedDocumentString<PlannedPetByIdQuery, PlannedPetByIdQueryVariables>;
export const CompiledPetsCountedDocument = new TypedDocumentString(`
    query CompiledPetsCounted($first: Int) {
  pets(first: $first) {
    totalCount
    nodes {
      name
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledPetsCountedQuery, CompiledPetsCountedQueryVariables>;
export const CompiledPetsWithOrdersDocument = new TypedDocumentString(`
    query CompiledPetsWithOrders($first: Int) {
  pets(first: $first) {
    nodes {
      name
      orders(first: 2) {
        totalCount
        nodes {
          id
          shipDate
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledPetsWithOrdersQuery, CompiledPetsWithOrdersQueryVariables>;
export const CompiledInventoryWithPetsDocument = new TypedDocumentString(`
    query CompiledInventoryWithPets($first: Int) {
  inventoryItems(first: $first) {
    nodes {
      quantity
      pet {
        name
        category {
          name
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledInventoryWithPetsQuery, CompiledInventoryWithPetsQueryVariables>;
export const CompiledPetWithRelationsDocument = new TypedDocumentString(`
    query CompiledPetWithRelations($id: ID!) {
  pet(id: $id) {
    name
    category {
      name
    }
    inventory {
      quantity
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledPetWithRelationsQuery, CompiledPetWithRelationsQueryVariables>;
export const CompiledTwoAliasesDocument = new TypedDocumentString(`
    query CompiledTwoAliases($first: Int) {
  categories(first: $first) {
    nodes {
      few: pets(first: 1) {
        nodes {
          id
        }
      }
      available: pets(first: 5, filter: {status: AVAILABLE}) {
        totalCount
        edges {
          cursor
          node {
            name
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledTwoAliasesQuery, CompiledTwoAliasesQueryVariables>;
export const CompiledDeepRelationsDocument = new TypedDocumentString(`
    query CompiledDeepRelations($first: Int) {
  categories(first: $first) {
    nodes {
      pets(first: 3) {
        nodes {
          category {
            name
          }
        }
      }
    }
  }
  orders(first: $first) {
    nodes {
      pet {
        orders(first: 2) {
          nodes {
            pet {
              inventory {
                pet {
                  name
                }
              }
            }
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CompiledDeepRelationsQuery, CompiledDeepRelationsQueryVariables>;
export const CompiledSeveralRootsDocument = new TypedDocumentString(`
    query CompiledSeveralRoots($id: ID!) {
  pet(id: $id) {
    name
  }
  category(id: $id) {
    pets(first: 2) {
      totalCount
    }
  }
  order(id: $id) {
    pet {
      name
    }
  }
  inventory(petId: $id) {
    pet {
      category {
        name
      }
    }
  }
  pets(first: 2) {
    totalCount
  }
}
    `) as unknown as TypedDocumentString<CompiledSeveralRootsQuery, CompiledSeveralRootsQueryVariables>;
export const PlaceOrderCountedDocument = new TypedDocumentString(`
    mutation PlaceOrderCounted($petId: ID!) {
  placeOrder(input: {petId: $petId, quantity: 1}) {
    id
    quantity
  }
}
    `) as unknown as TypedDocumentString<PlaceOrderCountedMutation, PlaceOrderCountedMutationVariables>;
export const CompleteOrderCountedDocument = new TypedDocumentString(`
    mutation CompleteOrderCounted($id: ID!) {
  completeOrder(id: $id) {
    id
    complete
  }
}
    `) as unknown as TypedDocumentString<CompleteOrderCountedMutation, CompleteOrderCountedMutationVariables>;
export const CancelOrderCountedDocument = new TypedDocumentString(`
    mutation CancelOrderCounted($id: ID!) {
  cancelOrder(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<CancelOrderCountedMutation, CancelOrderCountedMutationVariables>;
export const SetStockCountedDocument = new TypedDocumentString(`
    mutation SetStockCounted($petId: ID!) {
  updateInventory(petId: $petId, input: {quantity: 7}) {
    quantity
    status
  }
}
    `) as unknown as TypedDocumentString<SetStockCountedMutation, SetStockCountedMutationVariables>;
export const DeletePetNowDocument = new TypedDocumentString(`
    mutation DeletePetNow($id: ID!) {
  deletePet(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeletePetNowMutation, DeletePetNowMutationVariables>;
export const OrderByIdDocument = new TypedDocumentString(`
    query OrderById($id: ID!) {
  order(id: $id) {
    id
    quantity
    shipDate
    pet {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<OrderByIdQuery, OrderByIdQueryVariables>;
export const PlaceOrderDocument = new TypedDocumentString(`
    mutation PlaceOrder($input: NewOrder!) {
  placeOrder(input: $input) {
    id
    petId
    quantity
    shipDate
    complete
    pet {
      id
      status
      inventory {
        quantity
        status
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PlaceOrderMutation, PlaceOrderMutationVariables>;
export const CompleteOrderDocument = new TypedDocumentString(`
    mutation CompleteOrder($id: ID!) {
  completeOrder(id: $id) {
    id
    petId
    quantity
    shipDate
    complete
  }
}
    `) as unknown as TypedDocumentString<CompleteOrderMutation, CompleteOrderMutationVariables>;
export const CancelOrderDocument = new TypedDocumentString(`
    mutation CancelOrder($id: ID!) {
  cancelOrder(id: $id) {
    id
    petId
    quantity
    shipDate
    complete
  }
}
    `) as unknown as TypedDocumentString<CancelOrderMutation, CancelOrderMutationVariables>;
export const PetStockDocument = new TypedDocumentString(`
    query PetStock($id: ID!) {
  pet(id: $id) {
    status
    inventory {
      quantity
      status
    }
  }
}
    `) as unknown as TypedDocumentString<PetStockQuery, PetStockQueryVariables>;
export const SetStatusDocument = new TypedDocumentString(`
    mutation SetStatus($id: ID!, $status: PetStatus!) {
  setPetStatus(id: $id, status: $status) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<SetStatusMutation, SetStatusMutationVariables>;
export const SetStockDocument = new TypedDocumentString(`
    mutation SetStock($petId: ID!, $quantity: Int!) {
  updateInventory(petId: $petId, input: {quantity: $quantity}) {
    petId
    quantity
    status
  }
}
    `) as unknown as TypedDocumentString<SetStockMutation, SetStockMutationVariables>;