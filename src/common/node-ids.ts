/**
 * Relay's global object identifiers (docs/relay.md): `nodeId` is `base64url("<Type>:<key>")`, e.g.
 * `Pet:42` -> `UGV0OjQy`. Opaque to clients; `id` keeps its meaning (the row's int64 id). The type
 * is in the id so that `node(nodeId:)` knows what to read, and so that the scope table can be
 * checked before execution (an Order needs orders:read: src/policy/operation-access.ts).
 */
import { ValidationError } from '../errors/app-error';
import { INT64_MAX } from './ids';
import { OBJECT_TYPE_NAMES, type ObjectTypeName } from './object-types';

/** Every type of the registry (object-types.ts) is a Node; its name is its node ids' prefix. */
export const NODE_TYPES = OBJECT_TYPE_NAMES;
export type NodeType = ObjectTypeName;

const DECODED = new RegExp(`^(${NODE_TYPES.join('|')}):([1-9][0-9]{0,18})$`);
const BASE64URL = /^[A-Za-z0-9_-]{1,64}$/;

/** The node id of the object of `type` whose key (its registry key: id, or petId for InventoryItem) is `key`. */
export function encodeNodeId(type: NodeType, key: bigint): string {
  return Buffer.from(`${type}:${key}`).toString('base64url');
}

/** The message of every malformed node id. */
export const NODE_ID_FORMAT_MESSAGE = "is not a node id of this API (a value of some object's `nodeId` field)";

/** The type and key of a node id; throws VALIDATION_FAILED (400) for anything else. */
export function decodeNodeId(value: unknown): { type: NodeType; key: bigint } {
  const match =
    typeof value === 'string' && BASE64URL.test(value)
      ? DECODED.exec(Buffer.from(value, 'base64url').toString('latin1'))
      : null;
  const key = match ? BigInt(match[2]!) : 0n;
  // Only the canonical spelling: one object, one node id (a cache key for Relay).
  if (!match || key > INT64_MAX || encodeNodeId(match[1] as NodeType, key) !== value) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value);
    throw new ValidationError(`nodeId: ${shown} ${NODE_ID_FORMAT_MESSAGE}`);
  }
  return { type: match[1] as NodeType, key };
}
