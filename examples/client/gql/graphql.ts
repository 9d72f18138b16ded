/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Sales status of a pet (the spec's available | pending | sold). */
export type PetStatus =
  | 'AVAILABLE'
  | 'PENDING'
  | 'SOLD';

export type PetPageQueryVariables = Exact<{
  first: number;
}>;


export type PetPageQuery = { pets: { edges: Array<{ cursor: string, node: { id: string, name: string, status: PetStatus | null, category: { id: string, name: string }, inventory: { quantity: number } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type PetNameQueryVariables = Exact<{
  id: string | number;
}>;


export type PetNameQuery = { pet: { id: string, name: string } | null };

export type StockChangesSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type StockChangesSubscription = { stockChanged: { petId: string, quantity: number } };

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

export const PetPageDocument = new TypedDocumentString(`
    query PetPage($first: Int!) {
  pets(first: $first) {
    edges {
      cursor
      node {
        id
        name
        status
        category {
          id
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
    `, {"hash":"sha256:85fbdb8c3259d6bed3f6fb2b6ce0a030af29cdd0b3d03216f4378db4c7ee2908"}) as unknown as TypedDocumentString<PetPageQuery, PetPageQueryVariables>;
export const PetNameDocument = new TypedDocumentString(`
    query PetName($id: ID!) {
  pet(id: $id) {
    id
    name
  }
}
    `, {"hash":"sha256:02f037924be6ec9da15cbcc7d1a2d97c062278507dfd21c52f0969b0b9482171"}) as unknown as TypedDocumentString<PetNameQuery, PetNameQueryVariables>;
export const StockChangesDocument = new TypedDocumentString(`
    subscription StockChanges {
  stockChanged {
    petId
    quantity
  }
}
    `, {"hash":"sha256:8c6d7c87d9a6a4647c9e7f1320eb34af23dba4bf62f9a01f19e758e4597a71d2"}) as unknown as TypedDocumentString<StockChangesSubscription, StockChangesSubscriptionVariables>;