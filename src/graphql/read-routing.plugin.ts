import type { ApolloServerPlugin } from '@apollo/server';
import { markWrite } from '../db/read-routing';

/**
 * A mutation writes: from the moment it starts executing, the request reads from the primary (its
 * own answer sees its write) and its caller's read-your-writes window starts (src/db/read-routing.ts),
 * recorded before anything runs. Not earlier: a mutation refused before execution (401, 403, a limit,
 * the cost budget) writes nothing, and must not pin its caller's (or its address's) reads to the
 * primary. Queries are untouched. A no-op without replicas (no read scope).
 */
export function readRoutingPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async executionDidStart({ operation }) {
          if (operation?.operation === 'mutation') await markWrite();
        },
      };
    },
  };
}
