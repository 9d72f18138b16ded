/**
 * One order for a response's errors, whatever executed it. graphql-js and graphql-jit append a
 * field's error when its resolver throws, so the order follows when each resolver ran: depth first
 * where the values were at hand (the read compiler's, src/read), level by level where
 * each level waited for a DataLoader batch (a field-by-field reader). The spec leaves the order
 * open; the read compiler promises the same bytes either way (docs/read-compiler.md), so errors are
 * put in response order: depth first, a page's items by index, an object's fields in the order the
 * response has them (document order), which is what a synchronous execution gives.
 */
import type { GraphQLFormattedError } from 'graphql';

type Path = readonly (string | number)[];

/** The value at `path` in `data`, or undefined when a parent on the way is null or absent. */
function valueAt(data: unknown, path: Path, length: number): unknown {
  let value = data;
  for (let i = 0; i < length && value != null; i++) value = (value as Record<string | number, unknown>)[path[i]!];
  return value;
}

/** Compares two positions of a response (`data` has the fields of each object in response order). */
function compareErrors(data: unknown, a: GraphQLFormattedError, b: GraphQLFormattedError): number {
  const pa = a.path ?? [];
  const pb = b.path ?? [];
  // Errors without a path (none are raised while executing) keep their place before the others.
  if (!pa.length || !pb.length) return pa.length - pb.length;
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    const parent = valueAt(data, pa, i);
    if (parent && typeof parent === 'object' && !Array.isArray(parent)) {
      const keys = Object.keys(parent);
      const ix = keys.indexOf(String(x));
      const iy = keys.indexOf(String(y));
      if (ix !== -1 && iy !== -1) return ix - iy;
    }
    // The object was nulled by an error below it: its fields' order is the document's.
    const la = a.locations?.[0];
    const lb = b.locations?.[0];
    if (la && lb && (la.line !== lb.line || la.column !== lb.column)) return la.line - lb.line || la.column - lb.column;
    return String(x) < String(y) ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** `errors` in response order (see the header); a stable sort, so equal positions keep their order. */
export function inResponseOrder(
  errors: readonly GraphQLFormattedError[],
  data: unknown,
): readonly GraphQLFormattedError[] {
  if (errors.length < 2) return errors;
  return [...errors].sort((a, b) => compareErrors(data, a, b));
}
