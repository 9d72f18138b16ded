/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
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