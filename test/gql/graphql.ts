/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
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

export type SummaryQueryVariables = Exact<{ [key: string]: never; }>;


export type SummaryQuery = { inventorySummary: Array<{ status: PetStatus, quantity: number }> };

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

export type DeletePetNowMutationVariables = Exact<{
  id: string | number;
}>;


export type DeletePetNowMutation = { deletePet: { id: string } };

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

export type UpdateInventoryMutationVariables = Exact<{
  petId: string | number;
  quantity: number;
}>;


export type UpdateInventoryMutation = { updateInventory: { petId: string, quantity: number, status: PetStatus } };

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
export const SummaryDocument = new TypedDocumentString(`
    query Summary {
  inventorySummary {
    status
    quantity
  }
}
    `) as unknown as TypedDocumentString<SummaryQuery, SummaryQueryVariables>;
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
export const DeletePetNowDocument = new TypedDocumentString(`
    mutation DeletePetNow($id: ID!) {
  deletePet(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeletePetNowMutation, DeletePetNowMutationVariables>;
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
export const UpdateInventoryDocument = new TypedDocumentString(`
    mutation UpdateInventory($petId: ID!, $quantity: Int!) {
  updateInventory(petId: $petId, input: {quantity: $quantity}) {
    petId
    quantity
    status
  }
}
    `) as unknown as TypedDocumentString<UpdateInventoryMutation, UpdateInventoryMutationVariables>;