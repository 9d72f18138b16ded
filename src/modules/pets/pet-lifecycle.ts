/**
 * The pet-status lifecycle (docs/store-rules.md). Every change to a pet's stock, its open orders or
 * its status runs inside one transaction:
 *
 *   1. take the pet's row lock (`SELECT ... FOR UPDATE`, `lockPet` here), so every change to one pet
 *      is serialised in the database, across requests and across gateway processes;
 *   2. make its change (stock moves themselves are conditional updates, checked by PostgreSQL);
 *   3. settle: re-read stock and open orders and move the status where the rules put it.
 *
 * The writes driven by orders and stock (placeOrder, completeOrder, cancelOrder, updateInventory)
 * are SQL functions, one statement each (migrations 20261122170000_store_functions and
 * 20261128090000_store_writes_without_counting), and their
 * automatic transitions are the SQL function `store_settle`: stock > 0 is available (restock,
 * cancel); no stock with open orders is pending (an order took the last unit, or the stock was set
 * to 0 under open orders); a pending pet left with neither is sold (its orders completed); otherwise
 * the status stays. The manual moves (updatePet, setPetStatus, deletePet) stay here, in TypeScript
 * transactions: `checkManualMove` over a `PetState`.
 * Invariant after every transaction: pending <=> no stock and open orders; sold => no stock and no
 * open orders; available otherwise (a listed pet may be out of stock, e.g. a new one).
 */
import { Prisma } from '../../generated/prisma/client';
import { InvalidTransitionError } from '../../errors/app-error';
import type { PetStatus } from './pet-status';

/** What the lifecycle looks at: the status, the stock, and how many orders are still open. */
export interface PetState {
  status: PetStatus;
  stock: number;
  openOrders: number;
}

/** The transaction client that the services pass around. */
export type Tx = Prisma.TransactionClient;

/**
 * Options of every store transaction. Prisma's defaults (2 s to get a connection, 5 s to finish) are
 * short when many requests queue on one pet's row lock; these keep a burst of orders from failing on
 * time-outs while still bounding a stuck transaction.
 */
export const STORE_TX_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

/**
 * The moves a client may make by hand (setPetStatus, updatePet's status); anything else is
 * INVALID_TRANSITION. Pending is entered and left only through orders and stock; `available -> sold`
 * needs the stock at 0 and no open orders (a pet in stock or on order is not sold); `sold ->
 * available` relists a sold-out pet (its stock stays 0 until a restock). Setting the current status is
 * a no-op.
 */
export function checkManualMove(petId: bigint, state: PetState, to: PetStatus): void {
  const from = state.status;
  if (from === to) return;
  const refuse = (why: string) => {
    throw new InvalidTransitionError(`Pet ${petId} cannot go from ${from} to ${to}: ${why}`);
  };
  if (to === 'pending') refuse('a pet becomes pending only when open orders hold its last stock');
  if (from === 'pending')
    refuse('a pending pet becomes sold when its orders complete, available when one is cancelled or on restock');
  if (to === 'sold' && state.stock > 0) refuse(`it still has ${state.stock} in stock (set the stock to 0 first)`);
  if (to === 'sold' && state.openOrders > 0) refuse(`it has ${state.openOrders} open order(s)`);
}

/** The status a pet may be created with: it has no stock and no orders yet, so never pending. */
export function checkInitialStatus(status: PetStatus): void {
  if (status === 'pending') {
    throw new InvalidTransitionError(
      'A new pet cannot be pending: a pet becomes pending only when open orders hold its last stock',
    );
  }
}

async function readState(tx: Tx, petId: bigint): Promise<PetState | null> {
  const rows = await tx.$queryRaw<PetState[]>`
    SELECT p.status AS status, i.quantity AS stock,
           (SELECT count(*) FROM orders o WHERE o.pet_id = p.id AND NOT o.complete)::int AS "openOrders"
    FROM pets p JOIN inventory_items i ON i.pet_id = p.id
    WHERE p.id = ${petId}`;
  return rows[0] ?? null;
}

/**
 * Locks the pet's row until the transaction ends and returns its state, or null when there is no
 * such pet. The state is read by a second statement on purpose: under READ COMMITTED a statement that
 * waited for the lock still sees its own starting snapshot for the other tables, while the next
 * statement sees everything committed before the lock was granted.
 */
export async function lockPet(tx: Tx, petId: bigint): Promise<PetState | null> {
  const locked = await tx.$queryRaw<{ id: bigint }[]>`SELECT id FROM pets WHERE id = ${petId} FOR UPDATE`;
  if (locked.length === 0) return null;
  return readState(tx, petId);
}
