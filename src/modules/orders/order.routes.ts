/**
 * GET /store/orders: the legacy list of orders, by offset. Thin: OrderService.listByOffset shares its
 * filter and order with the GraphQL `orders` list. Needs the `orders:read` scope: the route names its
 * operation in `config`, and the auth hook enforces SCOPE_TABLE for it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { orderReadAccess } from './order.access';
import { parseId } from '../../common/ids';
import { ValidationError } from '../../errors/app-error';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../common/pagination';
import { stabilityOf } from '../../common/stability';
import { SCOPE_TABLE, type Operation } from '../../common/scopes';
import { int64Param } from '../../http/openapi';
import '../../http/route-config';
import type { Services } from '../services';
import { MAX_OFFSET, type Order } from './order.service';

export const ORDERS_URL = '/store/orders';
const operation = 'GET /store/orders' satisfies Operation;

/**
 * The spec's Order as REST writes it: every field present, `null` where there is no value.
 * `nullable` rather than `type: [..., 'null']`: fast-json-stringify checks type unions with Ajv,
 * which does not count a bigint as an integer.
 */
export const restOrderSchema = {
  type: 'object',
  description: 'A store order for a pet.',
  required: ['id', 'petId', 'quantity', 'shipDate', 'complete'],
  properties: {
    id: { type: 'integer', format: 'int64', description: 'Unique order identifier.' },
    petId: {
      type: 'integer',
      format: 'int64',
      nullable: true,
      description: 'ID of the pet ordered; null once the pet is deleted.',
    },
    quantity: { type: 'integer', format: 'int32', description: 'Number of units ordered.' },
    shipDate: { type: 'string', format: 'date-time', nullable: true, description: 'Expected or actual ship date.' },
    complete: { type: 'boolean', description: 'Whether the order has been fulfilled.' },
  },
} as const;

const toRestOrder = (o: Order) => ({
  id: o.id,
  petId: o.petId,
  quantity: o.quantity,
  shipDate: o.shipDate,
  complete: o.complete,
});

interface OrdersQuery {
  complete?: boolean;
  petId?: string;
  limit: number;
  offset: number;
}

/**
 * `Link` with `rel="next"` / `rel="prev"` (RFC 8288) while such pages exist, as root-relative URIs
 * that keep the filters. `prev` from beyond the end leads to the last page that has orders.
 */
export function pageLinks(
  query: { complete?: boolean; petId?: bigint },
  limit: number,
  offset: number,
  total: number,
): string | null {
  const href = (at: number) => {
    const params = new URLSearchParams();
    if (query.complete !== undefined) params.set('complete', String(query.complete));
    if (query.petId !== undefined) params.set('petId', query.petId.toString());
    params.set('limit', String(limit));
    params.set('offset', String(at));
    return `<${ORDERS_URL}?${params}>`;
  };
  const links: string[] = [];
  if (offset + limit < total) links.push(`${href(offset + limit)}; rel="next"`);
  if (offset > 0 && total > 0) {
    const lastPage = Math.floor((total - 1) / limit) * limit;
    links.push(`${href(Math.max(0, Math.min(offset - limit, lastPage)))}; rel="prev"`);
  }
  return links.length ? links.join(', ') : null;
}

/**
 * `limit` and `offset` as digits only: the schema's integer coercion also reads `0x1`, `1e0`,
 * `+1` and ` 1` as numbers, which no client means as a page (400, as any other bad value).
 */
async function pagingAsDigits(request: FastifyRequest): Promise<void> {
  const query = request.query as unknown as Record<string, unknown>;
  for (const name of ['limit', 'offset']) {
    const value = query[name];
    // As the schema says it. Ranges stay the schema's, whatever the number of digits: `-1` is
    // "must be >= 0", `99999999999999` "must be <= 2147483647", `0000000000001` is 1.
    if (value === undefined) continue;
    const digits = typeof value === 'string' ? /^(-?)0*(\d+)$/.exec(value) : null;
    if (!digits) throw new ValidationError(`${name}: must be integer`);
    // Past 15 digits a number is out of every range but may not be finite (400 nines are
    // Infinity): the schema is handed one that is finite and as far out, on the same side.
    if (digits[2]!.length > 15) query[name] = `${digits[1]}${'9'.repeat(15)}`;
  }
}

export async function orderRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const error = (description: string, extra: Record<string, unknown> = {}) => ({
    description,
    headers: { 'Cache-Control': { type: 'string', description: '`no-store`.' }, ...extra },
    $ref: 'Error#',
  });

  app.get<{ Querystring: OrdersQuery }>(
    ORDERS_URL,
    {
      config: { operation, securityHeaders: 'api' },
      schema: {
        tags: ['Store'],
        operationId: 'listOrders',
        summary: 'List store orders, newest first',
        description:
          `Needs an API key with the \`${SCOPE_TABLE[operation]}\` scope, or a signed-in customer's access token ` +
          '(their own orders only). Pages by `limit`/`offset`; ' +
          '`X-Total-Count` gives the number of matching orders and `Link` the next and previous pages.',
        security: [{ bearerAuth: [] }],
        'x-required-scopes': [SCOPE_TABLE[operation]],
        'x-stability': stabilityOf(operation),
        // No live "Try it out" on the reference page (the answer holds other customers' orders).
        'x-readme': { 'explorer-enabled': false },
        querystring: {
          type: 'object',
          properties: {
            complete: { type: 'boolean', description: 'Only fulfilled (true) or open (false) orders.' },
            petId: int64Param('Only orders for this pet.'),
            limit: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_PAGE_SIZE,
              default: DEFAULT_PAGE_SIZE,
              description: `Page size, 1..${MAX_PAGE_SIZE}.`,
            },
            offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Orders to skip.' },
          },
        },
        response: {
          200: {
            type: 'array',
            items: restOrderSchema,
            description: 'A page of orders, newest first.',
            headers: {
              'X-Total-Count': { type: 'integer', description: 'Orders matching the filters, on all pages.' },
              Link: { type: 'string', description: '`rel="next"` and `rel="prev"` pages, while they exist.' },
              'Cache-Control': { type: 'string', description: '`no-store`: orders change and are not public.' },
            },
          },
          400: error('`VALIDATION_FAILED`, naming the parameter.'),
          401: error('`UNAUTHENTICATED`: no API key or access token, or not a valid one.', {
            'WWW-Authenticate': {
              type: 'string',
              description:
                '`Bearer` without a credential; `Bearer error="invalid_token"` for a key or token that is not valid.',
            },
          }),
          403: error(
            '`FORBIDDEN`: an API key without the `orders:read` scope (a token without it lists its own orders).',
          ),
          429: error('`RATE_LIMITED`: too many requests.', {
            'Retry-After': { type: 'integer', description: 'Seconds to wait.' },
          }),
          500: error('`INTERNAL`: unexpected; the message holds a request id to quote.'),
        },
      },
      preValidation: pagingAsDigits,
      // Orders change and are not public: no cache keeps them, errors included.
      onSend: async (_request, reply, payload) => {
        reply.header('cache-control', 'no-store');
        return payload;
      },
    },
    async (request, reply) => {
      const { complete, limit, offset } = request.query;
      const petId = request.query.petId === undefined ? undefined : parseId(request.query.petId, 'petId');
      // A signed-in customer lists their own orders only (order.access.ts).
      const { items, total } = await services.orders.listByOffset(
        { complete, petId },
        { limit, offset },
        orderReadAccess(request.caller),
      );
      const link = pageLinks({ complete, petId }, limit, offset, total);
      reply.header('x-total-count', total);
      if (link) reply.header('link', link);
      return items.map(toRestOrder);
    },
  );
}
