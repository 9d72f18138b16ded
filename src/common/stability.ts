/**
 * Stability labels, one table for both APIs (keys as in the scope table, src/common/scopes.ts).
 * REST operations carry theirs as `x-stability` in the OpenAPI document; GraphQL root fields carry
 * theirs as `@stability(level: ...)` in the schema and as "Stability: ..." in their description.
 *
 * - stable: the contract holds; a breaking change needs a new field or path and a deprecation period.
 * - beta: complete and supported, but details may still change after feedback, announced in the
 *   changelog without a deprecation period.
 * - experimental: may change or go away in any release; do not build on it without talking to us.
 *
 * A root field missing here is labelled experimental: a new operation starts there until someone
 * decides otherwise in this table.
 */
export const STABILITY_LEVELS = ['experimental', 'beta', 'stable'] as const;
export type StabilityLevel = (typeof STABILITY_LEVELS)[number];

export const DEFAULT_STABILITY: StabilityLevel = 'experimental';

export const STABILITY_TABLE = {
  // GraphQL queries
  'Query.pet': 'stable',
  'Query.pets': 'stable',
  'Query.category': 'stable',
  'Query.categories': 'stable',
  'Query.inventory': 'stable',
  'Query.inventoryItems': 'stable',
  // A new aggregate: its shape (per status only) may grow per category.
  'Query.inventorySummary': 'experimental',
  'Query.order': 'stable',
  'Query.orders': 'stable',
  // Who is calling (issue 31): new, with sign-in by access tokens.
  'Query.me': 'beta',
  // Relay's object identification (docs/relay.md): new; the node id format is opaque and may change.
  'Query.node': 'beta',
  'Query.nodes': 'beta',
  // GraphQL mutations
  'Mutation.createPet': 'stable',
  'Mutation.updatePet': 'stable',
  'Mutation.setPetStatus': 'stable',
  'Mutation.deletePet': 'stable',
  'Mutation.createCategory': 'stable',
  'Mutation.updateCategory': 'stable',
  'Mutation.deleteCategory': 'stable',
  'Mutation.updateInventory': 'stable',
  // The store rules (stock, transitions) are new; their error cases may still be refined.
  'Mutation.placeOrder': 'beta',
  'Mutation.completeOrder': 'beta',
  'Mutation.cancelOrder': 'beta',
  // REST. The pet path is frozen until its sunset: stable (and deprecated). The orders path gained
  // filters, limit/offset paging and its headers here, so it is beta until legacy clients confirm them.
  'GET /pets/:petId': 'stable',
  'GET /store/orders': 'beta',
} as const satisfies Record<string, StabilityLevel>;

export function stabilityOf(operation: string): StabilityLevel {
  return (STABILITY_TABLE as Record<string, StabilityLevel>)[operation] ?? DEFAULT_STABILITY;
}
