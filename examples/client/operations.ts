/**
 * The operations this example client ships: the only documents a gateway in
 * `TRUSTED_DOCUMENTS=enforce` with this client's manifest (gql/persisted-documents.json) runs.
 */
import { graphql } from './gql';

/** A page of pets with their category and stock (the benchmark's W2 read). */
export const PetPage = graphql(`
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
`);

export const PetName = graphql(`
  query PetName($id: ID!) {
    pet(id: $id) {
      id
      name
    }
  }
`);

/** Over WebSocket (graphql-ws): stock changes of every pet. */
export const StockChanges = graphql(`
  subscription StockChanges {
    stockChanged {
      petId
      quantity
    }
  }
`);
