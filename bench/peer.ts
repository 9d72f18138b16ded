/**
 * T2, the peer: PostGraphile v5 (amber preset) over the same PostgreSQL database and data
 * (bench/peer/server.mjs). PostGraphile 5.1 needs Node >= 22, a line this project supports but does
 * not require (Node 20 still works), so it is no dependency of the project: `npm run bench` installs
 * bench/peer/ (its own package.json and lock) on first use. Every target, T2 included, runs on the
 * Node that bench/node.ts provides (24 by default), so T2 and T3 are compared on the same Node.
 *
 * PostGraphile generates its own schema (`allPets`, `rowId`, `categoryByCategoryId`, ...), so T2 gets
 * its own documents asking for the same rows in the same order, and its answers are compared with the
 * gateway's row for row after renaming its fields (`asGatewayAnswer`). WG's generated shapes are
 * translated by bench/peer-translate.ts instead, and compared there.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config';
import { peerGeneratedRequest } from './generated';
import { graphqlBody, W2_PAGE, W3_PAGE, W6_PAGE, type RequestSpec, type WorkloadId } from './workloads';

const PEER_DIR = path.join(projectRoot, 'bench', 'peer');
export const PEER_SCRIPT = path.join(PEER_DIR, 'server.mjs');
/** Where the agent finds the peer's own `pg`, to count its statements (bench/agent.ts). */
export const PEER_PG_MODULE = path.join(PEER_DIR, 'node_modules', 'pg');

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
  });

/** Installs PostGraphile into bench/peer when missing (its engines field wants Node 22+). */
export function ensurePeer(log: (line: string) => void): void {
  if (fs.existsSync(path.join(PEER_DIR, 'node_modules', 'postgraphile', 'package.json'))) return;
  log('T2: installing PostGraphile into bench/peer (first use)');
  // The install itself works on any npm; the server runs on the bench's Node 24 (bench/node.ts).
  npm(['ci', '--engine-strict=false'], PEER_DIR);
}

const W1 = 'query W1($id: BigInt!) { petByRowId(rowId: $id) { rowId name categoryId status } }';
const W2 =
  'query W2($first: Int!) { allPets(first: $first, orderBy: PRIMARY_KEY_ASC) { edges { cursor node { rowId name status categoryByCategoryId { rowId name } inventoryItemByPetId { quantity } } } pageInfo { hasNextPage endCursor } } }';
const W3 =
  'query W3($first: Int!) { allOrders(first: $first, orderBy: PRIMARY_KEY_DESC) { nodes { rowId quantity shipDate complete petByPetId { rowId name categoryByCategoryId { rowId name } } } pageInfo { hasNextPage endCursor } } }';
const W6 =
  'query W6($first: Int!, $pets: Int!) { allCategories(first: $first, orderBy: PRIMARY_KEY_ASC) { nodes { rowId name petsByCategoryId(first: $pets, orderBy: PRIMARY_KEY_ASC) { nodes { rowId name status inventoryItemByPetId { quantity } } } } } }';

/** T2's request for the i-th request of a workload (as `requestFor`), or null: not offered (W4, W5, W7). */
export function peerRequestFor(workload: WorkloadId, i: number, data: { pets: number }): RequestSpec | null {
  const post = (query: string, variables: Record<string, unknown>): RequestSpec => ({
    method: 'POST',
    path: '/graphql',
    body: graphqlBody(query, variables),
  });
  switch (workload) {
    case 'W1':
      return post(W1, { id: String(1 + (i % data.pets)) });
    case 'W2':
      return post(W2, { first: W2_PAGE });
    case 'W3':
      return post(W3, { first: W3_PAGE });
    case 'W6':
      return post(W6, { first: W6_PAGE, pets: W6_PAGE });
    case 'WG':
      // The generated shapes it answers alike, translated (bench/generated.ts, peer-translate.ts).
      return peerGeneratedRequest(i);
    default:
      return null;
  }
}

const RENAMED: Record<string, string> = {
  rowId: 'id',
  petByRowId: 'pet',
  allPets: 'pets',
  allOrders: 'orders',
  allCategories: 'categories',
  categoryByCategoryId: 'category',
  inventoryItemByPetId: 'inventory',
  petByPetId: 'pet',
  petsByCategoryId: 'pets',
};
/** Cursors are opaque and each server's own: compared are the rows, not the cursors. */
const OPAQUE = new Set(['cursor', 'endCursor', 'startCursor']);
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const ENUMS = new Set(['status']);

function canonical(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => canonical(v));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (OPAQUE.has(k)) continue;
      const name = RENAMED[k] ?? k;
      out[name] = canonical(v, name);
    }
    return out;
  }
  if (typeof value === 'string' && TIMESTAMP.test(value)) return new Date(value).toISOString();
  if (typeof value === 'string' && key && ENUMS.has(key)) return value.toUpperCase();
  return value;
}

/**
 * An answer as rows in the gateway's field names: T2's renamed, enum values in upper case,
 * timestamps as ISO instants, cursors left out. Applied to both sides of a T2 comparison.
 */
export function asGatewayAnswer(body: string): string {
  return JSON.stringify(canonical(JSON.parse(body)));
}
