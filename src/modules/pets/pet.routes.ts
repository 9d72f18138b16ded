/**
 * GET /pets/{petId}: the legacy read of one pet, deprecated with a sunset date (the lifecycle headers
 * and the 410 after the sunset are src/http/deprecation.ts, registered by src/http/rest.plugin.ts for
 * PET_BY_ID_URL).
 * Thin: the pet comes from PetService.require, as in GraphQL.
 */
import type { FastifyInstance } from 'fastify';
import { parseId } from '../../common/ids';
import { stabilityOf } from '../../common/stability';
import type { Operation } from '../../common/scopes';
import { etagOnSend } from '../../http/etag';
import { int64Param } from '../../http/openapi';
import { deprecationHeaders, type Lifecycle } from '../../http/deprecation';
import type { Services } from '../services';
import '../../http/route-config';
import { PET_STATUSES } from './pet-status';
import type { Pet } from './pet.service';

export const PET_BY_ID_URL = '/pets/:petId';
const operation = 'GET /pets/:petId' satisfies Operation;

/** The spec's Pet as REST writes it: ids as JSON integers with all their digits, status lowercase. */
export const restPetSchema = {
  type: 'object',
  description: 'An animal for sale.',
  required: ['id', 'name', 'categoryId', 'status'],
  properties: {
    id: { type: 'integer', format: 'int64', description: 'Unique identifier, assigned on creation.' },
    name: { type: 'string', description: "The animal's name." },
    categoryId: { type: 'integer', format: 'int64', description: 'ID of the category the animal belongs to.' },
    status: { type: 'string', enum: [...PET_STATUSES], description: 'Sales status of the pet.' },
  },
} as const;

export const toRestPet = (pet: Pet) => ({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });

/**
 * 200 answers may be stored but are revalidated on every use (`no-cache`): a pet's status changes
 * as it sells, and the ETag makes revalidation a cheap 304. Errors are never stored: a 404 turns
 * into a 200 once the pet exists.
 */
export const PET_CACHE_CONTROL = 'no-cache';

export interface PetRoutesOptions {
  services: Services;
  lifecycle: Lifecycle;
}

export async function petRoutes(app: FastifyInstance, { services, lifecycle }: PetRoutesOptions): Promise<void> {
  const sunset = deprecationHeaders(lifecycle).sunset;
  const lifecycleHeaders = {
    Deprecation: { type: 'string', description: 'RFC 9745: `@<unix seconds>` of the deprecation.' },
    Sunset: { type: 'string', description: `RFC 8594: when the path stops answering (${sunset}).` },
    Link: { type: 'string', description: '`</graphql>; rel="successor-version", <docs>; rel="deprecation"`.' },
  };
  const error = (description: string, extra: Record<string, unknown> = {}) => ({
    description,
    headers: { ...lifecycleHeaders, 'Cache-Control': { type: 'string', description: '`no-store`.' }, ...extra },
    $ref: 'Error#',
  });

  app.get<{ Params: { petId: string } }>(
    PET_BY_ID_URL,
    {
      config: { operation, securityHeaders: 'api' },
      schema: {
        tags: ['Pets'],
        operationId: 'getPetById',
        summary: 'Find a pet by id (deprecated)',
        description:
          `**Deprecated; sunset ${sunset}.** From then on this path answers 410 \`GONE\`. ` +
          'Use GraphQL instead: `query { pet(id: "...") { id name categoryId status } }` at `/graphql`. ' +
          'Every answer carries the `Deprecation`, `Sunset` and `Link` headers. ' +
          'Send the `ETag` back in `If-None-Match` to get a 304 while the pet is unchanged.',
        deprecated: true,
        // Public, but a key that is sent must be valid (401 otherwise): the key is optional.
        security: [{}, { bearerAuth: [] }],
        'x-sunset': lifecycle.sunsetAt.toISOString(),
        'x-stability': stabilityOf(operation),
        params: {
          type: 'object',
          required: ['petId'],
          properties: { petId: int64Param('ID of the pet (a 64-bit integer).') },
        },
        headers: {
          type: 'object',
          properties: {
            'if-none-match': { type: 'string', description: 'ETags the client holds; a match answers 304.' },
          },
        },
        response: {
          200: {
            ...restPetSchema,
            description: 'The pet.',
            headers: {
              ...lifecycleHeaders,
              ETag: {
                type: 'string',
                description: 'Weak entity tag (`W/"..."`) of the body, the same for its compressed forms.',
              },
              'Cache-Control': { type: 'string', description: `\`${PET_CACHE_CONTROL}\`: store, but revalidate.` },
            },
          },
          304: {
            type: 'null',
            description: 'Not modified: the tag in `If-None-Match` is current.',
            headers: { ...lifecycleHeaders, ETag: { type: 'string' }, 'Cache-Control': { type: 'string' } },
          },
          400: error('`VALIDATION_FAILED`: petId is not a 64-bit integer.'),
          401: error('`UNAUTHENTICATED`: an Authorization header that is not a valid API key (none is needed).', {
            'WWW-Authenticate': { type: 'string', description: '`Bearer error="invalid_token"`.' },
          }),
          404: error('`NOT_FOUND`: no pet has this id.'),
          410: error('`GONE`: the path was retired at its sunset date.'),
          429: error('`RATE_LIMITED`: too many requests.', {
            'Retry-After': { type: 'integer', description: 'Seconds to wait.' },
          }),
          500: error('`INTERNAL`: unexpected; the message holds a request id to quote.'),
        },
      },
      onSend: [
        async (_request, reply, payload) => {
          // Errors are `no-store` already, as every error is (src/http/errors.ts, sendError).
          if (reply.statusCode < 400) reply.header('cache-control', PET_CACHE_CONTROL);
          return payload;
        },
        etagOnSend,
      ],
    },
    async (request) => {
      const pet = await services.pets.require(parseId(request.params.petId, 'petId'));
      return toRestPet(pet);
    },
  );
}
