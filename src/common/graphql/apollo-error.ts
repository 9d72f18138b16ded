/**
 * How the service refuses a GraphQL request before it executes (a limit, ill-formed variables, a
 * subscription over HTTP, an operation the caller may not run, a document not in the list): the
 * GraphQL error Apollo sends for an AppError. `formatError` (src/policy/errors.ts) reads the error's
 * code from `originalError`; Apollo sends the AppError's status and `headers` on the HTTP answer.
 * A fresh one each time: Apollo writes into an error's HTTP extensions.
 */
import { HeaderMap } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { AppError } from '../../errors/app-error';

export function apolloError(error: AppError, headers: HeaderMap = new HeaderMap()): GraphQLError {
  return new GraphQLError(error.message, {
    originalError: error,
    extensions: { http: { status: error.status, headers } },
  });
}
