/**
 * What HTTP does not serve: an operation only the WebSocket serves (a subscription). Read by the
 * request step (src/subscriptions/subscriptions.ts), which refuses it, and by the cost budget
 * (cost-budget.ts), which charges a batch nothing for it: one rule, in the policy floor both import.
 */
import type { OperationDefinitionNode } from 'graphql';
import { BadRequestError } from '../errors/app-error';

/**
 * The refusal of an operation sent over HTTP that only the WebSocket serves (a subscription), or null:
 * graphql-js would otherwise run the subscription's resolver once without an event.
 */
export function overHttpRefusal(operation: OperationDefinitionNode): BadRequestError | null {
  if (operation.operation !== 'subscription') return null;
  return new BadRequestError(
    'Subscriptions are served over WebSocket (the graphql-ws protocol) at /graphql, not over HTTP',
  );
}
