/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query PetPage($first: Int!) {\n    pets(first: $first) {\n      edges {\n        cursor\n        node {\n          id\n          name\n          status\n          category {\n            id\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.PetPageDocument,
    "\n  query PetName($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n    }\n  }\n": typeof types.PetNameDocument,
    "\n  subscription StockChanges {\n    stockChanged {\n      petId\n      quantity\n    }\n  }\n": typeof types.StockChangesDocument,
};
const documents: Documents = {
    "\n  query PetPage($first: Int!) {\n    pets(first: $first) {\n      edges {\n        cursor\n        node {\n          id\n          name\n          status\n          category {\n            id\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.PetPageDocument,
    "\n  query PetName($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n    }\n  }\n": types.PetNameDocument,
    "\n  subscription StockChanges {\n    stockChanged {\n      petId\n      quantity\n    }\n  }\n": types.StockChangesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetPage($first: Int!) {\n    pets(first: $first) {\n      edges {\n        cursor\n        node {\n          id\n          name\n          status\n          category {\n            id\n            name\n          }\n          inventory {\n            quantity\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').PetPageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetName($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n    }\n  }\n"): typeof import('./graphql').PetNameDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription StockChanges {\n    stockChanged {\n      petId\n      quantity\n    }\n  }\n"): typeof import('./graphql').StockChangesDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
