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
    "\n  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {\n    updatePet(id: $id, input: { name: $name, status: $status }) {\n      id\n      name\n      status\n    }\n  }\n": typeof types.UpdatePetStatusDocument,
    "\n  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {\n    createPet(input: { name: \"Fresh\", categoryId: $categoryId, status: $status }) {\n      id\n      status\n    }\n  }\n": typeof types.CreatePetWithStatusDocument,
    "\n  query Summary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n": typeof types.SummaryDocument,
    "\n  mutation DeletePetById($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": typeof types.DeletePetByIdDocument,
    "\n          mutation MovePet($id: ID!, $categoryId: ID!) {\n            updatePet(id: $id, input: { categoryId: $categoryId }) {\n              id\n            }\n          }\n        ": typeof types.MovePetDocument,
    "\n  mutation CreatePet($input: NewPet!) {\n    createPet(input: $input) {\n      id\n      name\n      categoryId\n      status\n      category {\n        id\n        name\n      }\n      inventory {\n        petId\n        quantity\n        status\n      }\n    }\n  }\n": typeof types.CreatePetDocument,
    "\n  query GetPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      status\n      categoryId\n    }\n  }\n": typeof types.GetPetDocument,
    "\n  mutation UpdatePet($id: ID!, $input: PetUpdate!) {\n    updatePet(id: $id, input: $input) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": typeof types.UpdatePetDocument,
    "\n  mutation SetPetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": typeof types.SetPetStatusDocument,
    "\n  mutation DeletePet($id: ID!) {\n    deletePet(id: $id) {\n      id\n      name\n    }\n  }\n": typeof types.DeletePetDocument,
    "\n  mutation DeletePetNow($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": typeof types.DeletePetNowDocument,
    "\n  mutation PlaceOrder($input: NewOrder!) {\n    placeOrder(input: $input) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n      pet {\n        id\n        status\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n": typeof types.PlaceOrderDocument,
    "\n  mutation CompleteOrder($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": typeof types.CompleteOrderDocument,
    "\n  mutation CancelOrder($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": typeof types.CancelOrderDocument,
    "\n  query PetStock($id: ID!) {\n    pet(id: $id) {\n      status\n      inventory {\n        quantity\n        status\n      }\n    }\n  }\n": typeof types.PetStockDocument,
    "\n  mutation SetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": typeof types.SetStatusDocument,
    "\n  mutation UpdateInventory($petId: ID!, $quantity: Int!) {\n    updateInventory(petId: $petId, input: { quantity: $quantity }) {\n      petId\n      quantity\n      status\n    }\n  }\n": typeof types.UpdateInventoryDocument,
};
const documents: Documents = {
    "\n  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {\n    updatePet(id: $id, input: { name: $name, status: $status }) {\n      id\n      name\n      status\n    }\n  }\n": types.UpdatePetStatusDocument,
    "\n  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {\n    createPet(input: { name: \"Fresh\", categoryId: $categoryId, status: $status }) {\n      id\n      status\n    }\n  }\n": types.CreatePetWithStatusDocument,
    "\n  query Summary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n": types.SummaryDocument,
    "\n  mutation DeletePetById($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": types.DeletePetByIdDocument,
    "\n          mutation MovePet($id: ID!, $categoryId: ID!) {\n            updatePet(id: $id, input: { categoryId: $categoryId }) {\n              id\n            }\n          }\n        ": types.MovePetDocument,
    "\n  mutation CreatePet($input: NewPet!) {\n    createPet(input: $input) {\n      id\n      name\n      categoryId\n      status\n      category {\n        id\n        name\n      }\n      inventory {\n        petId\n        quantity\n        status\n      }\n    }\n  }\n": types.CreatePetDocument,
    "\n  query GetPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      status\n      categoryId\n    }\n  }\n": types.GetPetDocument,
    "\n  mutation UpdatePet($id: ID!, $input: PetUpdate!) {\n    updatePet(id: $id, input: $input) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n": types.UpdatePetDocument,
    "\n  mutation SetPetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": types.SetPetStatusDocument,
    "\n  mutation DeletePet($id: ID!) {\n    deletePet(id: $id) {\n      id\n      name\n    }\n  }\n": types.DeletePetDocument,
    "\n  mutation DeletePetNow($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n": types.DeletePetNowDocument,
    "\n  mutation PlaceOrder($input: NewOrder!) {\n    placeOrder(input: $input) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n      pet {\n        id\n        status\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n": types.PlaceOrderDocument,
    "\n  mutation CompleteOrder($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": types.CompleteOrderDocument,
    "\n  mutation CancelOrder($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n": types.CancelOrderDocument,
    "\n  query PetStock($id: ID!) {\n    pet(id: $id) {\n      status\n      inventory {\n        quantity\n        status\n      }\n    }\n  }\n": types.PetStockDocument,
    "\n  mutation SetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n": types.SetStatusDocument,
    "\n  mutation UpdateInventory($petId: ID!, $quantity: Int!) {\n    updateInventory(petId: $petId, input: { quantity: $quantity }) {\n      petId\n      quantity\n      status\n    }\n  }\n": types.UpdateInventoryDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {\n    updatePet(id: $id, input: { name: $name, status: $status }) {\n      id\n      name\n      status\n    }\n  }\n"): typeof import('./graphql').UpdatePetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {\n    createPet(input: { name: \"Fresh\", categoryId: $categoryId, status: $status }) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').CreatePetWithStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Summary {\n    inventorySummary {\n      status\n      quantity\n    }\n  }\n"): typeof import('./graphql').SummaryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePetById($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql').DeletePetByIdDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n          mutation MovePet($id: ID!, $categoryId: ID!) {\n            updatePet(id: $id, input: { categoryId: $categoryId }) {\n              id\n            }\n          }\n        "): typeof import('./graphql').MovePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreatePet($input: NewPet!) {\n    createPet(input: $input) {\n      id\n      name\n      categoryId\n      status\n      category {\n        id\n        name\n      }\n      inventory {\n        petId\n        quantity\n        status\n      }\n    }\n  }\n"): typeof import('./graphql').CreatePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query GetPet($id: ID!) {\n    pet(id: $id) {\n      id\n      name\n      status\n      categoryId\n    }\n  }\n"): typeof import('./graphql').GetPetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdatePet($id: ID!, $input: PetUpdate!) {\n    updatePet(id: $id, input: $input) {\n      id\n      name\n      categoryId\n      status\n    }\n  }\n"): typeof import('./graphql').UpdatePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetPetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').SetPetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePet($id: ID!) {\n    deletePet(id: $id) {\n      id\n      name\n    }\n  }\n"): typeof import('./graphql').DeletePetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePetNow($id: ID!) {\n    deletePet(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql').DeletePetNowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PlaceOrder($input: NewOrder!) {\n    placeOrder(input: $input) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n      pet {\n        id\n        status\n        inventory {\n          quantity\n          status\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').PlaceOrderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CompleteOrder($id: ID!) {\n    completeOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n"): typeof import('./graphql').CompleteOrderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelOrder($id: ID!) {\n    cancelOrder(id: $id) {\n      id\n      petId\n      quantity\n      shipDate\n      complete\n    }\n  }\n"): typeof import('./graphql').CancelOrderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PetStock($id: ID!) {\n    pet(id: $id) {\n      status\n      inventory {\n        quantity\n        status\n      }\n    }\n  }\n"): typeof import('./graphql').PetStockDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetStatus($id: ID!, $status: PetStatus!) {\n    setPetStatus(id: $id, status: $status) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql').SetStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateInventory($petId: ID!, $quantity: Int!) {\n    updateInventory(petId: $petId, input: { quantity: $quantity }) {\n      petId\n      quantity\n      status\n    }\n  }\n"): typeof import('./graphql').UpdateInventoryDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
