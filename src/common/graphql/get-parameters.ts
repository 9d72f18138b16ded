/**
 * A GraphQL GET's search parameters, read as Apollo reads them (URLSearchParams over the URL's
 * search, @as-integrations/fastify), never from Fastify's querystring parser: the two differ on a raw
 * `#` (the URL's fragment to Apollo, more parameters to Fastify) and on malformed percent-escapes.
 * Whatever decides about a GET's operation before Apollo runs it (the response cache's key, the
 * trusted-documents check) reads it here, so none of them can see another operation than the one
 * Apollo runs: each reading of its own once let a request be filed under another's cache key, or
 * run an unlisted document past `TRUSTED_DOCUMENTS=enforce`.
 */
import type { RequestStep } from './request-steps';

export const GET_PARAMETERS = ['query', 'operationName', 'variables', 'extensions', 'documentId'] as const;
export type GetParameter = (typeof GET_PARAMETERS)[number];

export type GetParameters =
  /** Each parameter present, as text (`variables` and `extensions` are JSON still to be parsed). */
  | { ok: true; values: Partial<Record<GetParameter, string>> }
  /** What Apollo refuses: a URL it cannot read, a parameter given more than once. */
  | { ok: false; problem: string };

export function readGetParameters(url: string): GetParameters {
  let params: URLSearchParams;
  try {
    params = new URL(url, 'http://localhost').searchParams;
  } catch {
    return { ok: false, problem: 'The request URL cannot be read' };
  }
  const values: Partial<Record<GetParameter, string>> = {};
  for (const name of GET_PARAMETERS) {
    const all = params.getAll(name);
    if (all.length > 1) return { ok: false, problem: `The ${name} search parameter may only be specified once` };
    // An empty operationName is no operationName (emptyOperationNameStep, below).
    if (all.length === 1 && !(name === 'operationName' && all[0] === '')) values[name] = all[0]!;
  }
  return { ok: true, values };
}

/**
 * "Setting the value of the operationName parameter to the empty string is equivalent to omitting
 * the operationName parameter" (GraphQL over HTTP, GET). Apollo read `operationName=` as the name
 * `""`: 400 `Unknown operation named ""` for a document it could run, and 400, not 405, for a
 * mutation. This step, the first of the service's request steps, removes it before Apollo chooses
 * the operation, as `readGetParameters` leaves it out for the checks that run before Apollo.
 */
export function emptyOperationNameStep<C extends object>(): RequestStep<C> {
  return (rc) => {
    if (rc.request.operationName === '' && rc.request.http?.method === 'GET') rc.request.operationName = undefined;
  };
}
