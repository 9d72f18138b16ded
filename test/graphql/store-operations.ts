/**
 * GraphQL operations and small readers shared by the store-rules suites (orders, lifecycle,
 * concurrency, transactions). Not a test file itself.
 */
import { graphql } from '../gql';
import type { TestApp } from '../helpers/test-app';

/** An order by id, with its pet's id. */
export const OrderById = graphql(`
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
`);

export const PlaceOrder = graphql(`
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
`);

export const CompleteOrder = graphql(`
  mutation CompleteOrder($id: ID!) {
    completeOrder(id: $id) {
      id
      petId
      quantity
      shipDate
      complete
    }
  }
`);

export const CancelOrder = graphql(`
  mutation CancelOrder($id: ID!) {
    cancelOrder(id: $id) {
      id
      petId
      quantity
      shipDate
      complete
    }
  }
`);

export const PetStock = graphql(`
  query PetStock($id: ID!) {
    pet(id: $id) {
      status
      inventory {
        quantity
        status
      }
    }
  }
`);

export const SetStatus = graphql(`
  mutation SetStatus($id: ID!, $status: PetStatus!) {
    setPetStatus(id: $id, status: $status) {
      id
      status
    }
  }
`);

export const UpdateInventory = graphql(`
  mutation SetStock($petId: ID!, $quantity: Int!) {
    updateInventory(petId: $petId, input: { quantity: $quantity }) {
      petId
      quantity
      status
    }
  }
`);

/**
 * A pet's status and stock as the API shows them; also checks that the inventory entry's status is
 * the pet's status (the invariant of InventoryItem.status).
 */
export async function stockOf(t: TestApp, petId: bigint): Promise<{ status: string; quantity: number }> {
  const { pet } = await t.gqlOk(PetStock, { id: petId.toString() });
  if (!pet?.inventory) throw new Error(`pet ${petId} has no inventory entry`);
  expect(pet.inventory.status).toBe(pet.status);
  return { status: pet.status!, quantity: pet.inventory.quantity };
}

/** Rows of the orders table for one pet (the database's own word, beside what the API says). */
export async function ordersOf(t: TestApp, petId: bigint) {
  return t.db.prisma.order.findMany({ where: { petId }, orderBy: { id: 'asc' } });
}
