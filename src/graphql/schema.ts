import 'reflect-metadata';
import { buildSchema } from 'type-graphql';
import { specifiedDirectives, type GraphQLSchema } from 'graphql';
import { CategoryResolver } from '../modules/categories/category.resolver';
import { InventoryResolver } from '../modules/inventory/inventory.resolver';
import { OrderResolver } from '../modules/orders/order.resolver';
import { PetResolver } from '../modules/pets/pet.resolver';
import { authChecker } from './auth-checker';
import { resolveTotalCounts } from './connection';
import { ErrorExtensions } from './error-code';
import { labelStability, stabilityDirective } from './stability';

export const resolvers = [PetResolver, CategoryResolver, OrderResolver, InventoryResolver] as const;

/** Builds the executable schema. `schema.graphql` at the top level is its committed print. */
export async function createSchema(): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers,
    // Inputs are validated by the services (shared with REST), not by class-validator.
    validate: false,
    orphanedTypes: [ErrorExtensions],
    // One checker for every `@Authorized()` field; it reads SCOPE_TABLE (src/modules/auth/scopes.ts).
    authChecker,
    directives: [...specifiedDirectives, stabilityDirective],
  });
  return labelStability(resolveTotalCounts(schema));
}
