import 'reflect-metadata';
import { buildSchema } from 'type-graphql';
import { specifiedDirectives, type GraphQLSchema } from 'graphql';
import { CategoryResolver } from '../modules/categories/category.resolver';
import { InventoryResolver } from '../modules/inventory/inventory.resolver';
import { OrderResolver } from '../modules/orders/order.resolver';
import { PetResolver } from '../modules/pets/pet.resolver';
import { StoreEventsResolver } from '../modules/events/store-events.resolver';
import { MeResolver } from '../modules/auth/me.resolver';
import { authChecker } from './auth-checker';
import { NodeResolver, resolveNodeIds } from './node.resolver';
import { resolveTotalCounts } from '../common/graphql/connection';
import { ErrorExtensions } from './error-code';
import { labelStability, stabilityDirective } from './stability';
import { compileObjectSources, serveCompiledFields } from '../read/compiled';
import { OBJECTS, RELATIONS } from '../read/relations';
import { SCOPE_TABLE } from '../common/scopes';
import { federateSchema } from './federation';

export const resolvers = [
  PetResolver,
  CategoryResolver,
  OrderResolver,
  InventoryResolver,
  StoreEventsResolver,
  NodeResolver,
  MeResolver,
] as const;

/**
 * Builds the executable schema. `schema.graphql` at the top level is its committed print. With
 * `federation`, the same schema plus the subgraph's `_entities` and `_service` (federation.ts).
 */
export async function createSchema({ federation = false }: { federation?: boolean } = {}): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers,
    // Inputs are validated by the services (shared with REST), not by class-validator.
    validate: false,
    orphanedTypes: [ErrorExtensions],
    // One checker for every `@Authorized()` field; it reads SCOPE_TABLE (src/common/scopes.ts).
    authChecker,
    directives: [...specifiedDirectives, stabilityDirective],
    // TypeGraphQL insists on a pubSub once a @Subscription exists. Ours take no topics: each opens its
    // stream from the database's store events (`subscribe`, store-events.resolver.ts), so nothing
    // publishes through TypeGraphQL; this one only says so if that ever changes.
    pubSub: {
      publish: () => {
        throw new Error('store events are published by the database (src/modules/events/store-events.ts)');
      },
      subscribe: () => {
        throw new Error('subscriptions open their stream with `subscribe` (store-events.resolver.ts)');
      },
    },
  });
  // Every object a resolver sees is read by the compiler: relations answer what their statement
  // read (serveCompiledFields), and the objects of writes and events get theirs read in one
  // statement (compileObjectSources).
  const compiled = serveCompiledFields(
    resolveNodeIds(resolveTotalCounts(schema)),
    RELATIONS,
    new Set(Object.keys(SCOPE_TABLE)),
  );
  const plain = labelStability(compileObjectSources(compiled, OBJECTS));
  return federation ? federateSchema(plain) : plain;
}
