/**
 * A GraphQL request over real HTTP (fetch) to a listening gateway at `url`: the one way the process
 * and identity suites post an operation, answered with its status, headers and parsed body.
 */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  // Each suite reads the body its own way.
  body: any;
}

export async function postGraphql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
