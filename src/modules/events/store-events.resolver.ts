import { Arg, Authorized, Resolver, Root, Subscription } from 'type-graphql';
import { z } from 'zod';
import { BadRequestError } from '../../errors/app-error';
import { validate } from '../../common/validation';
import type { GraphQLContext } from '../context';
import { IdScalar } from '../../common/graphql/scalars';
import { InventoryItem } from '../inventory/inventory.type';
import { canSeeOrder, orderReadAccess } from '../orders/order.access';
import { OrderEvent } from './store-events.type';
import type { OrderEvent as OrderEventPayload, StockEvent, StoreEvent } from './store-events';

/** The most pet ids one subscription may filter on. */
export const MAX_PET_FILTER = 100;
const petIdsSchema = z.object({
  petIds: z.array(z.bigint()).max(MAX_PET_FILTER, `must list at most ${MAX_PET_FILTER} pet ids`).nullish(),
});

/** The subscription's event stream, filtered by pet; VALIDATION_FAILED for a bad filter. */
function stream<T>(ctx: GraphQLContext, petIds: bigint[] | null | undefined, select: (e: StoreEvent) => T | undefined) {
  const { petIds: ids } = validate(petIdsSchema, { petIds });
  if (!ctx.openEventStream) {
    throw new BadRequestError('Subscriptions are served over WebSocket (the graphql-ws protocol) at /graphql');
  }
  // An empty list is no pet; only an absent (or null) filter is every pet.
  const only = ids ? new Set(ids.map(String)) : null;
  return ctx.openEventStream((event) => {
    const value = select(event);
    if (value === undefined) return undefined;
    const petId = event.type === 'stock' ? event.petId : event.order.petId;
    return only && (petId === null || !only.has(String(petId))) ? undefined : value;
  });
}

const petIdsArg = {
  nullable: true,
  description: `Only these pets (at most ${MAX_PET_FILTER}); every pet when absent.`,
} as const;

@Resolver()
export class StoreEventsResolver {
  @Subscription(() => InventoryItem, {
    description:
      "A pet's stock entry each time its quantity or its pet's status changes (as the committing transaction left it). Public, like the inventory reads.",
    subscribe: ({ args, context }) =>
      stream(context as GraphQLContext, args.petIds as bigint[] | null, (e) => (e.type === 'stock' ? e : undefined)),
  })
  stockChanged(
    @Root() event: StockEvent,
    @Arg('petIds', () => [IdScalar], petIdsArg) _petIds: bigint[] | null,
  ): InventoryItem {
    return { petId: event.petId, quantity: event.quantity, status: event.status };
  }

  @Authorized()
  @Subscription(() => OrderEvent, {
    description:
      'Orders placed, completed and cancelled, each with the order as the change left it. Needs scope orders:read; ' +
      "a signed-in customer receives their own orders' events only.",
    subscribe: ({ args, context }) => {
      const ctx = context as GraphQLContext;
      // Decided once, when the subscription starts: the connection's caller does not change.
      const access = orderReadAccess(ctx.caller);
      return stream(ctx, args.petIds as bigint[] | null, (e) =>
        e.type === 'order' && canSeeOrder(access, e.owner) ? e : undefined,
      );
    },
  })
  orderEvents(
    @Root() event: OrderEventPayload,
    @Arg('petIds', () => [IdScalar], petIdsArg) _petIds: bigint[] | null,
  ): OrderEvent {
    return { kind: event.kind, order: event.order as OrderEvent['order'] };
  }
}
