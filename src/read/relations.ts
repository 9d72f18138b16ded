/**
 * THE relation table of the read compiler (compiler.ts): how each object type of the registry
 * (src/common/object-types.ts: its key and access rule) is read, with its columns, and every field that leads from one type to another (the root query fields being the
 * relations of `Query`), with its join and its cardinality. The compiler has no function per query
 * shape: it walks a selection over this table. Filters, sorts, cursors and counts of connections are
 * the services' own builders (`listSql`, `categoryPageSql`, `petPageSql`), so a list reads the same
 * rows whether it is compiled or loaded.
 *
 * Everything a source yields is a row under the model's field names (`categoryId`, `petId`), the
 * shape the services return and the types' field resolvers expect as their root.
 */
import type { Prisma } from '../generated/prisma/client';
import type { PageSql } from '../common/pagination';
import type { Services } from '../modules/services';
import type { ObjectTypeName } from '../common/object-types';
import { CATEGORY_ROWS } from '../modules/categories/category.service';
import { INVENTORY_ROWS, STOCK_ROWS } from '../modules/inventory/inventory.service';
import { ORDER_ROWS } from '../modules/orders/order.service';
import { PET_ROWS } from '../modules/pets/pet.service';
// Also what sets Order's access rule in the registry (order.access.ts): every read loads it.
import { ownOrderConditions } from '../modules/orders/order.access';
import type { Viewer } from '../common/object-types';

/**
 * What a scalar column is, for the rows of nested pages, which leave PostgreSQL as text (arrays of
 * text, compiler.ts) and are parsed back in the gateway: an int8 key as bigint, a timestamptz as a
 * Date, an int as a number, a boolean, or text as it is.
 */
export type ScalarKind = 'id' | 'datetime' | 'int' | 'bool' | 'text';

export interface ObjectEntry {
  /**
   * Rows of the type by key: `SELECT <select> FROM <from> WHERE <key> = ...`, `key` being the SQL of
   * the registry key's column. The registry's `visible` condition is written over `from`'s columns.
   */
  rows: { select: string; from: string; key: string };
  /** The scalar fields (GraphQL name = row field name). */
  scalars: Record<string, ScalarKind>;
  /**
   * What the relations below a row of this type are read from: its key and the fields its to-one
   * relations join on (`categoryId`) or take from it (`Pet.inventory`'s status). Rows at hand (a
   * mutation's result, an event's object: `readRelationsOf`) are bound by these fields. A row that
   * a statement reads carries only its key, what is selected and its page's sort keys: the joins
   * are written over the row's SQL, so nothing unasked leaves PostgreSQL.
   */
  carried: readonly string[];
  /**
   * Scalars that are a field of a to-one relation's target row (`InventoryItem.status` is its pet's
   * status), read from their own rows' SQL through a join (`ENTRIES_FROM`'s LEFT JOIN pets). When the
   * statement joins that relation anyway (`inventory { status pet { name } }`), the scalar is read
   * from the joined row instead: the row's own join is then unread and PostgreSQL drops it, where it
   * would otherwise probe the same table twice per row.
   */
  borrowed?: Record<string, { relation: string; field: string }>;
}

export const OBJECTS = {
  Pet: {
    rows: PET_ROWS,
    scalars: { id: 'id', name: 'text', categoryId: 'id', status: 'text' },
    carried: ['id', 'categoryId', 'status'],
  },
  Category: {
    rows: CATEGORY_ROWS,
    scalars: { id: 'id', name: 'text', description: 'text' },
    carried: ['id'],
  },
  Order: {
    rows: ORDER_ROWS,
    scalars: { id: 'id', petId: 'id', quantity: 'int', shipDate: 'datetime', complete: 'bool' },
    carried: ['id', 'petId'],
  },
  InventoryItem: {
    rows: INVENTORY_ROWS,
    scalars: { petId: 'id', quantity: 'int', status: 'text' },
    // Not the status: it is the pet's, and a read that does not ask for it does not join the pet.
    carried: ['petId'],
    borrowed: { status: { relation: 'pet', field: 'status' } },
  },
} satisfies Record<ObjectTypeName, ObjectEntry>;

export type ObjectName = ObjectTypeName;

/** SQL naming a column of the parent row (`t3."categoryId"`), or null at the root. */
export type ParentRef = (field: string) => Prisma.Sql;

/**
 * A to-one relation: the target row whose key equals `key` (a field of the parent row, or an
 * argument of a root field). Absent: null. The key is unique in the target (its primary key): the
 * compiler joins the target beside the parent row, which must never multiply the parent's rows.
 */
export interface OneRelation {
  kind: 'one';
  target: ObjectName;
  from: { field: string } | { arg: string };
  /**
   * Reads the target from these rows instead of its own, taking the named fields from the parent
   * row (`Pet.inventory`: the entry's status is the pet's, already at hand, so no second pets join).
   */
  via?: { rows: ObjectEntry['rows']; fromParent: Record<string, string> };
  /**
   * `from.field` is a FOREIGN KEY to the target's key (prisma/schema.prisma): a row it names exists
   * in the same snapshot, and a null names none. So a selection of the key alone (`category { id }`,
   * `pet { nodeId }`) is the parent's field itself, read without joining the target, unless the
   * target has an access rule (then whether the row may be seen is the join's to say).
   */
  foreignKey?: true;
}

/**
 * A connection: a page of target rows built by the service's own builder, for a parent (nested
 * connections, `parent` names its key column) or for the root (`parent` is null). `visible` is the
 * registry's condition on the target's rows for this reader (none: empty), which the builder adds to
 * its page and its count alike. `viewer`: who reads
 * (`Me.orders` reads the viewer's own).
 */
export interface PageRelation {
  kind: 'page';
  target: ObjectName;
  page: (
    services: Services,
    parent: ParentRef | null,
    args: Record<string, unknown>,
    visible: Prisma.Sql[],
    viewer: Viewer | null,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each relation pages its own row type
  ) => PageSql<any>;
}

export type Relation = OneRelation | PageRelation;

const pageArgs = (args: Record<string, unknown>) => ({
  first: args.first as number | null | undefined,
  after: args.after as string | null | undefined,
  last: args.last as number | null | undefined,
  before: args.before as string | null | undefined,
});

/** `Query.me` (the caller, no row of its own): its relations, like the root's. */
export type ParentName = 'Query' | 'Me' | ObjectName;

export const RELATIONS: Record<ParentName, Record<string, Relation>> = {
  Query: {
    pet: { kind: 'one', target: 'Pet', from: { arg: 'id' } },
    category: { kind: 'one', target: 'Category', from: { arg: 'id' } },
    order: { kind: 'one', target: 'Order', from: { arg: 'id' } },
    inventory: { kind: 'one', target: 'InventoryItem', from: { arg: 'petId' } },
    pets: {
      kind: 'page',
      target: 'Pet',
      page: (s, _parent, a, v) => s.pets.listSql(a.filter as never, a.orderBy as never, pageArgs(a), v),
    },
    categories: {
      kind: 'page',
      target: 'Category',
      page: (s, _parent, a, v) => s.categories.listSql(pageArgs(a), v),
    },
    orders: {
      kind: 'page',
      target: 'Order',
      page: (s, _parent, a, v) => s.orders.listSql(a.filter as never, pageArgs(a), v),
    },
    inventoryItems: {
      kind: 'page',
      target: 'InventoryItem',
      page: (s, _parent, a, v) => s.inventory.listSql(a.filter as never, pageArgs(a), v),
    },
  },
  Pet: {
    category: { kind: 'one', target: 'Category', from: { field: 'categoryId' }, foreignKey: true },
    inventory: {
      kind: 'one',
      target: 'InventoryItem',
      from: { field: 'id' },
      via: { rows: STOCK_ROWS, fromParent: { status: 'status' } },
    },
    orders: {
      kind: 'page',
      target: 'Order',
      page: (s, parent, a, v) => s.orders.petPageSql(parent!('id'), pageArgs(a), v),
    },
  },
  Category: {
    pets: {
      kind: 'page',
      target: 'Pet',
      page: (s, parent, a, v) => s.pets.categoryPageSql(parent!('id'), a.filter as never, pageArgs(a), v),
    },
  },
  Me: {
    // The caller's own orders, whatever else its scopes let it see.
    orders: {
      kind: 'page',
      target: 'Order',
      page: (s, _parent, a, v, viewer) => s.orders.listSql(null, pageArgs(a), [...v, ...ownOrderConditions(viewer)]),
    },
  },
  Order: {
    pet: { kind: 'one', target: 'Pet', from: { field: 'petId' }, foreignKey: true },
  },
  InventoryItem: {
    pet: { kind: 'one', target: 'Pet', from: { field: 'petId' }, foreignKey: true },
  },
};
