/**
 * THE visibility rule of orders, in one place: which orders a caller may see (and cancel).
 *
 * Staff (scope `orders:read`, or `admin`) see every order, as API keys always have. Anyone else who
 * reaches an order read (a signed-in customer: scopes.ts, CUSTOMER_OPERATIONS) sees only the orders
 * they own (`orders.owner`, src/modules/auth/caller.ts); another customer's order does not exist for
 * them (null, NOT_FOUND, left out of lists and counts). Cancelling follows the same rule with
 * `orders:write`.
 *
 * Who applies it: the read compiler, to every read of an Order (`orderVisible`, the Order entry's
 * access rule in the type registry, src/common/object-types.ts: root fields, Pet.orders, Me.orders,
 * node/nodes, _entities, by key, payload relations; `me.orders` adds `ownOrderConditions`); the REST list (given the condition by its
 * route); the cancel mutation (`store_finish_order`'s owner, `storeOwner`); and the orderEvents subscription
 * (`canSeeOrder`).
 */
import { Prisma } from '../../generated/prisma/client';
import { setAccessRule, type Viewer } from '../../common/object-types';
import { ownerOf } from '../auth/caller';
import { allows, type Scope } from '../../common/scopes';

/** Every order, or only those of `owner` (null: none at all, an anonymous caller). */
export type OrderAccess = { all: true } | { all: false; owner: string | null };

function accessFor(caller: Viewer | null, scope: Scope): OrderAccess {
  if (caller && allows(caller.scopes as readonly Scope[], scope)) return { all: true };
  return { all: false, owner: ownerOf(caller) };
}

/** The orders `caller` may read. */
export function orderReadAccess(caller: Viewer | null): OrderAccess {
  return accessFor(caller, 'orders:read');
}

/** The orders `caller` may cancel (completing is staff's alone: the scope table). */
export function orderWriteAccess(caller: Viewer | null): OrderAccess {
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

/**
 * The caller's own orders only (`me.orders`), whatever else its scopes let it see: the conditions
 * of a customer's access, for any caller.
 */
export function ownOrderConditions(caller: Viewer | null): Prisma.Sql[] {
  return orderConditions({ all: false, owner: ownerOf(caller) });
}

/**
 * The access as the store functions take it (`p_owner` of store_finish_order): null for every
 * order, else the one owner whose orders are in reach; undefined when no order is (anonymous).
 */
export function storeOwner(access: OrderAccess): string | null | undefined {
  if (access.all) return null;
  return access.owner ?? undefined;
}

/** The visibility rule for an order already at hand (an event's payload carries its owner). */
export function canSeeOrder(access: OrderAccess, owner: string | null): boolean {
  return access.all || (access.owner !== null && owner === access.owner);
}

/**
 * The registry's access rule of Order (src/common/object-types.ts): the condition the read compiler
 * adds to every read of an order for `viewer`, null when it may see every order.
 */
export function orderVisible(viewer: Viewer | null): Prisma.Sql | null {
  const conditions = orderConditions(orderReadAccess(viewer));
  return conditions.length ? Prisma.join(conditions, ' AND ') : null;
}

setAccessRule('Order', orderVisible);
