import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { Order } from '../orders/order.type';

/** GraphQL names mapped to the kinds the database triggers publish. */
export const OrderEventKindEnum = {
  PLACED: 'placed',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
} as const;

registerEnumType(OrderEventKindEnum, {
  name: 'OrderEventKind',
  description: 'What happened to an order: placed, completed, or cancelled (a cancelled order is deleted).',
});

@ObjectType({
  simpleResolvers: true,
  description: 'An order placed, completed or cancelled, with the order as that change left it.',
})
export class OrderEvent {
  @Field(() => OrderEventKindEnum)
  kind!: (typeof OrderEventKindEnum)[keyof typeof OrderEventKindEnum];

  @Field(() => Order, {
    description: 'The order as it was when the change committed (for a cancellation: as it was before it was deleted).',
  })
  order!: Order;
}
