/**
 * A GraphQL GET's search parameters, read as Apollo reads them (URLSearchParams over the URL's
 * search, @as-integrations/fastify), never from Fastify's querystring parser: the two differ on a raw
 * `#` (the URL's fragment to Apollo, more parameters to Fastify) and on malformed percent-escapes.
 * Whatever decides about a GET's operation before Apollo runs it (the response cache's key, the
 * trusted-documents check) reads it here, so none of them can see another operation than the one
 * Apollo runs: each reading of its own once let a request be filed under another's cache key, or
 * run an unlisted document past `TRUSTED_DOCUMENTS=enforce`.
 */
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
    if (all.length === 1) values[name] = all[0]!;
  }
  return { ok: true, values };
}
