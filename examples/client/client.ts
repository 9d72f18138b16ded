/**
 * The example client: sends its operations by hash (`documentId`, the GraphQL-over-HTTP proposal's
 * field), never their text. GraphQL Code Generator's client preset embeds each document's hash in it
 * (`__meta__.hash`, `sha256:<hex>`) and writes the same hashes to gql/persisted-documents.json, the
 * manifest a gateway in `TRUSTED_DOCUMENTS=enforce` is started with (docs/trusted-documents.md).
 *
 *   npm run example:codegen                        # operations.ts -> gql/ and the manifest
 *   GATEWAY_URL=http://localhost:4000/graphql npm run example:client
 */
import type { TypedDocumentString } from './gql/graphql';
import { PetName, PetPage } from './operations';

export interface ExampleReply<TResult> {
  status: number;
  headers: Headers;
  data?: TResult | null;
  errors?: { message: string; extensions?: { code?: string; status?: number } }[];
}

/** The hash the preset embedded: what is sent instead of the document. */
export function documentIdOf(document: TypedDocumentString<unknown, unknown>): string {
  const hash = document.__meta__?.hash;
  if (typeof hash !== 'string') throw new Error('the document has no embedded hash: run npm run example:codegen');
  return hash;
}

/**
 * Runs `document` by hash: POST `{ documentId, variables }`, or GET `?documentId=...&variables=...`
 * (cacheable by a CDN when anonymous, see TRUSTED_DOCUMENTS_CACHE_MAX_AGE_S).
 */
export async function execute<TResult, TVariables>(
  url: string,
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  { method = 'POST', headers = {} }: { method?: 'GET' | 'POST'; headers?: Record<string, string> } = {},
): Promise<ExampleReply<TResult>> {
  const documentId = documentIdOf(document as TypedDocumentString<unknown, unknown>);
  const res =
    method === 'GET'
      ? await fetch(`${url}?${new URLSearchParams({ documentId, variables: JSON.stringify(variables) })}`, {
          headers: { accept: 'application/graphql-response+json', ...headers },
        })
      : await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
          body: JSON.stringify({ documentId, variables }),
        });
  const body = (await res.json()) as Omit<ExampleReply<TResult>, 'status' | 'headers'>;
  return { status: res.status, headers: res.headers, ...body };
}

async function main(): Promise<void> {
  const url = process.env.GATEWAY_URL ?? 'http://localhost:4000/graphql';
  const page = await execute(url, PetPage, { first: 5 });
  if (page.errors) throw new Error(`PetPage: ${JSON.stringify(page.errors)}`);
  for (const { node } of page.data!.pets.edges) {
    console.log(
      `${node.id} ${node.name} (${node.category?.name ?? 'no category'}): ${node.inventory?.quantity ?? 0} in stock`,
    );
  }
  const first = page.data!.pets.edges[0]?.node.id;
  if (first) {
    const pet = await execute(url, PetName, { id: first }, { method: 'GET' });
    console.log(`GET by hash: ${JSON.stringify(pet.data)} (cache-control: ${pet.headers.get('cache-control')})`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
