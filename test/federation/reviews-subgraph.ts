/**
 * A second subgraph, for tests only: reviews of pets, built with `@apollo/subgraph`. It adds
 * `Pet.reviews` to the petstore's Pet and points each review back at a Pet entity, so a router
 * composing both must resolve across them in both directions. Its SDL is test/federation/reviews.graphql
 * (composed into federation/supergraph.graphql by federation/compose.js).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';

export interface Review {
  petId: string;
  stars: number;
}

export interface ReviewsSubgraph {
  url: string;
  /** The `authorization` header of each request it received. */
  authorizations: (string | undefined)[];
  stop(): Promise<void>;
}

const typeDefs = parse(fs.readFileSync(path.join(__dirname, 'reviews.graphql'), 'utf8'));

/** Starts the reviews subgraph on a free port, serving `reviews`. */
export async function startReviewsSubgraph(reviews: Review[]): Promise<ReviewsSubgraph> {
  const authorizations: (string | undefined)[] = [];
  const asReview = (r: Review) => ({ stars: r.stars, pet: { __typename: 'Pet', id: r.petId } });
  const schema = buildSubgraphSchema([
    {
      typeDefs,
      resolvers: {
        Query: {
          topReviews: (_: unknown, { first }: { first: number }) =>
            [...reviews]
              .sort((a, b) => b.stars - a.stars || a.petId.localeCompare(b.petId))
              .slice(0, first)
              .map(asReview),
        },
        Pet: {
          __resolveReference: (pet: { id: string }) => ({ id: pet.id }),
          reviews: (pet: { id: string }) => reviews.filter((r) => r.petId === pet.id).map(asReview),
        },
      },
    },
  ]);
  const server = new ApolloServer({ schema });
  const { url } = await startStandaloneServer(server, {
    listen: { host: '127.0.0.1', port: 0 },
    context: async ({ req }) => {
      authorizations.push(req.headers.authorization);
      return {};
    },
  });
  return { url, authorizations, stop: () => server.stop() };
}
