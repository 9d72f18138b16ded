/**
 * Who may do what: the one scope table. Every GraphQL root operation, every protected object field,
 * and every REST route is listed with the scope it needs (`public` needs none). GraphQL and REST
 * enforcement both read this table; a test fails when an operation of the schema is missing here.
 */
export const SCOPES = ['orders:read', 'orders:write', 'catalog:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
export type Requirement = Scope | 'public';

export const SCOPE_TABLE = {
  // GraphQL queries
  'Query.pet': 'public',
  'Query.pets': 'public',
  'Query.category': 'public',
  'Query.categories': 'public',
  'Query.inventory': 'public',
  'Query.inventoryItems': 'public',
  'Query.inventorySummary': 'public',
  // Who is calling (anonymous: null), and a signed-in caller's own orders.
  'Query.me': 'public',
  'Query.order': 'orders:read',
  'Query.orders': 'orders:read',
  // Federation (GRAPHQL_FEDERATION=true): `_entities` obeys the root field of each entity type it
  // reads (`Order` -> Query.order), checked by src/policy/operation-access.ts.
  'Query._entities': 'public',
  'Query._service': 'public',
  // Relay's object identification: public as fields; each node id is checked as its type's root
  // field above (an Order's needs orders:read), from the id, before execution (operation-access.ts).
  'Query.node': 'public',
  'Query.nodes': 'public',
  // GraphQL fields that reach protected data from public types
  'Pet.orders': 'orders:read',
  // GraphQL mutations
  'Mutation.createPet': 'catalog:write',
  'Mutation.updatePet': 'catalog:write',
  'Mutation.setPetStatus': 'catalog:write',
  'Mutation.deletePet': 'catalog:write',
  'Mutation.createCategory': 'catalog:write',
  'Mutation.updateCategory': 'catalog:write',
  'Mutation.deleteCategory': 'catalog:write',
  'Mutation.updateInventory': 'catalog:write',
  'Mutation.placeOrder': 'orders:write',
  'Mutation.completeOrder': 'orders:write',
  'Mutation.cancelOrder': 'orders:write',
  // GraphQL subscriptions (graphql-ws on /graphql; checked when subscribing)
  'Subscription.stockChanged': 'public',
  'Subscription.orderEvents': 'orders:read',
  // REST
  'GET /pets/:petId': 'public',
  'GET /store/orders': 'orders:read',
} as const satisfies Record<string, Requirement>;

export type Operation = keyof typeof SCOPE_TABLE;

/**
 * What any signed-in person (an access token, whatever its scopes) may use beyond the table's
 * scopes: placing orders, cancelling and reading their own. Which orders they see or cancel is the
 * orders' visibility rule (src/modules/orders/order.access.ts): a customer's own, unless the token
 * also grants `orders:read` (or `orders:write` for cancelling). Completing an order stays staff's.
 */
export const CUSTOMER_OPERATIONS: ReadonlySet<string> = new Set<Operation>([
  'Query.order',
  'Query.orders',
  'Pet.orders',
  'Subscription.orderEvents',
  'GET /store/orders',
  'Mutation.placeOrder',
  'Mutation.cancelOrder',
]);

/** `admin` holds every scope. */
export function allows(granted: readonly Scope[], required: Requirement): boolean {
  return required === 'public' || granted.includes('admin') || granted.includes(required);
}
