/**
 * THE visibility rule of orders, in one place: which orders a caller may see (and cancel).
 *
 * Staff (scope `orders:read`, or `admin`) see every order, as API keys always have. Anyone else who
 * reaches an order read (a signed-in customer: scopes.ts, CUSTOMER_OPERATIONS) sees only the orders
 * they own (`orders.owner`, src/modules/auth/caller.ts); another customer's order does not exist for
 * them (null, NOT_FOUND, left out of lists and counts). Cancelling follows the same rule with
 * `orders:write`.
 *
 * Who applies it: the read compiler, to every read of an Order (its relation table's access hook,
 * src/graphql/planner/relations.ts: root fields, Pet.orders, node/nodes, _entities, by key); the
 * order service's loader-path reads and REST list (given the condition by their callers); the
 * cancel mutation (`store_finish_order`'s owner); and the orderEvents subscription (`canSeeOrder`).
 */
import { Prisma } from '../../generated/prisma/client';
import { ownerOf, type Caller } from '../auth/caller';
import { allows, type Scope } from '../auth/scopes';

/** Every order, or only those of `owner` (null: none at all, an anonymous caller). */
export type OrderAccess = { all: true } | { all: false; owner: string | null };

function accessFor(caller: Caller | null, scope: Scope): OrderAccess {
  if (caller && allows(caller.scopes, scope)) return { all: true };
  return { all: false, owner: ownerOf(caller) };
}

/** The orders `caller` may read. */
export function orderReadAccess(caller: Caller | null): OrderAccess {
  return accessFor(caller, 'orders:read');
}

/** The orders `caller` may cancel (completing is staff's alone: the scope table). */
export function orderWriteAccess(caller: Caller | null): OrderAccess {
  return accessFor(caller, 'orders:write');
}

/**
 * The access as SQL conditions over the `orders` table's own columns (unqualified: every statement
 * that uses them reads `FROM orders`), none for every order.
 */
export function orderConditions(access: OrderAccess): Prisma.Sql[] {
  if (access.all) return [];
  return [access.owner === null ? Prisma.sql`false` : Prisma.sql`owner = ${access.owner}`];
}

/** The visibility rule for an order already at hand (an event's payload carries its owner). */
export function canSeeOrder(access: OrderAccess, owner: string | null): boolean {
  return access.all || (access.owner !== null && owner === access.owner);
}
