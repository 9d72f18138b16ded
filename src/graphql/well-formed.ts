/**
 * Strings must be well-formed Unicode. JSON can carry a lone UTF-16 surrogate (`"\ud800x"`), which
 * JavaScript keeps but PostgreSQL refuses (UTF-8 cannot encode it): the write would fail as an
 * unexpected database error. Such a variable is refused before anything runs, with 400
 * VALIDATION_FAILED naming the variable. (A surrogate in the query text itself is refused by the
 * GraphQL parser: a syntax error.)
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { ValidationError } from '../errors/app-error';
import type { GraphQLContext } from './context';

/** In `u` mode a surrogate pair is one code point, so this matches only a lone surrogate. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The path (`$input.name`) of the first string in `value` that is not well-formed, or null. */
export function illFormedStringPath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedStringPath(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = illFormedStringPath(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

export function wellFormedVariablesPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(rc) {
          for (const [name, value] of Object.entries(rc.request.variables ?? {})) {
            const path = illFormedStringPath(value, `$${name}`);
            if (!path) continue;
            const error = new ValidationError(
              `Variable ${path} is not well-formed Unicode (it holds a lone UTF-16 surrogate)`,
            );
            throw new GraphQLError(error.message, {
              originalError: error,
              extensions: { http: { status: 400, headers: new HeaderMap() } },
            });
          }
        },
      };
    },
  };
}
