/**
 * THE registry of the API's object types, each said once: its key, its access rule. Everything else
 * is derived from it: the types the read compiler reads (src/read/relations.ts adds how
 * each is read), the federation entities and their `@key` (federation.ts), the Relay node types,
 * whose node id is `<type name>:<key>` (node-ids.ts), and the scope each is read under by `node`,
 * `nodes` and `_entities` (operation-access.ts, node.resolver.ts). Adding a type is adding an entry
 * here and its reading in relations.ts (docs/architecture.md shows how).
 *
 * A ground-floor file: it imports nothing of the project but the Prisma types, so that the id
 * helpers beside it and every floor above may read it.
 */
import type { Prisma } from '../generated/prisma/client';

/**
 * Who reads: the caller (src/modules/auth/caller.ts, `Caller`: an API key by its id, or a signed-in
 * subject by its token's issuer and `sub`) and its scopes, or null when anonymous. Said here by its
 * shape, so this floor imports nothing of the caller's; every `Caller` is a Viewer.
 */
export type Viewer =
  | { kind: 'key'; keyId: bigint; scopes: readonly string[] }
  | { kind: 'token'; issuer: string; subject: string; scopes: readonly string[] };

export interface ObjectTypeEntry {
  /**
   * The row field that identifies an object of the type (never null in a row): its primary key, its
   * federation entity key (`@key(fields: ...)`) and the key in its node id.
   */
  key: string;
  access: {
    /** The scope-table entry (src/common/scopes.ts) an object of the type is read under. */
    operation: string;
    /**
     * Which rows of the type `viewer` may see, as a condition over the columns of the type's rows
     * (`rows.from` in relations.ts), or null for all. The read compiler adds it to EVERY read of
     * the type: a root field, a nested relation (to-one or page, its count included), a read by key
     * (`_entities`, `node`). Orders have one: their owner's, or staff's, written in
     * src/modules/orders/order.access.ts and set here by `setAccessRule` when that module loads
     * (this floor cannot import it; the read compiler's relation table imports it, so no read of
     * the registry's types runs without it).
     */
    visible?: (viewer: Viewer | null) => Prisma.Sql | null;
  };
}

export const OBJECT_TYPES = {
  Pet: { key: 'id', access: { operation: 'Query.pet' } },
  Category: { key: 'id', access: { operation: 'Query.category' } },
  Order: { key: 'id', access: { operation: 'Query.order' } },
  /** A pet's stock entry: keyed by its pet. */
  InventoryItem: { key: 'petId', access: { operation: 'Query.inventory' } },
} as const satisfies Record<string, ObjectTypeEntry>;

export type ObjectTypeName = keyof typeof OBJECT_TYPES;

/** The registry's types, in its order. */
export const OBJECT_TYPE_NAMES = Object.keys(OBJECT_TYPES) as ObjectTypeName[];

/** The entry of `type`, typed as the general shape (for optional parts such as `visible`). */
export const objectType = (type: ObjectTypeName): ObjectTypeEntry => OBJECT_TYPES[type];

export const isObjectTypeName = (name: unknown): name is ObjectTypeName =>
  typeof name === 'string' && Object.hasOwn(OBJECT_TYPES, name);

/**
 * Sets the access rule (`access.visible`) of `type`: how a module above this floor gives the
 * registry a rule written in terms of its own (orders' ownership: order.access.ts). A type has one
 * rule: setting a second is a programming error.
 */
export function setAccessRule(type: ObjectTypeName, visible: NonNullable<ObjectTypeEntry['access']['visible']>): void {
  const access = objectType(type).access;
  if (access.visible && access.visible !== visible) throw new Error(`${type} already has an access rule`);
  access.visible = visible;
}
