import type { ApolloServerPlugin } from '@apollo/server';
import { markWrite } from '../db/read-routing';

/**
 * A mutation writes: from the moment its operation is known, the request reads from the primary (its
 * own answer sees its write) and its caller's read-your-writes window starts (src/db/read-routing.ts).
 * Queries are untouched. A no-op without replicas (no read scope).
 */
export function readRoutingPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation === 'mutation') markWrite();
        },
      };
    },
  };
}
