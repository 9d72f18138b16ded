/**
 * Every read of a GraphQL request, through the read compiler (compiler.ts) and nothing else:
 *
 * - a root query field (`pets`, `pet(id)`, ...): its statement, with everything selected below it;
 * - objects by key (`_entities`, `node`, `nodes`): one statement per type and selection;
 * - the relations below objects already at hand (a mutation's result, a subscription's event):
 *   one statement per type and selection.
 *
 * By-key and by-row reads go through DataLoader, the batching primitive: those made in one tick for
 * one field (the same AST node, hence the same selection) become ONE compiled statement. The loaders
 * batch without caching, so a subscription's context, which outlives many events, never answers an
 * event with rows read for an earlier one.
 */
import DataLoader from 'dataloader';
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { Services } from '../modules/services';
import type { ReadPath } from '../modules/context';
import { compiledField } from './compiled';
import { readByKeys, readRelationsOf, readRoot, readTopLevel, type CompileInfo } from './compiler';
import { OBJECT_TYPES, type Viewer } from '../common/object-types';
import type { ObjectName } from './relations';

type Row = Record<string | symbol, unknown>;

interface Batched<K> {
  info: CompileInfo & Pick<GraphQLResolveInfo, 'fieldNodes'>;
  key: K;
}

/** The request's reads (GraphQLContext.reads); one per request, or per subscription. */
export class Reads implements ReadPath {
  /** Made on the first by-key or by-row read: most requests make none (a root field reads its all). */
  private batches: WeakMap<FieldNode, Map<string, DataLoader<Batched<unknown>, unknown>>> | undefined;

  /** `viewer`: who reads (the registry's access conditions are written for them). */
  constructor(
    private readonly services: Services,
    private readonly viewer: Viewer | null,
  ) {}

  /** A root query field's value, with every relation selected below it, in one statement. */
  root(info: GraphQLResolveInfo): Promise<unknown> {
    return readRoot(this.services, this.viewer, info);
  }

  /** `Me.orders`: the caller's own orders, in one statement like a root field. */
  meOrders(info: GraphQLResolveInfo): Promise<unknown> {
    return readTopLevel(this.services, this.viewer, info, 'Me');
  }

  /** What the statement that read `parent` read for this relation field of it (compiled.ts). */
  compiled(parent: object, info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'parentType' | 'fieldName'>): unknown {
    return compiledField(parent, info);
  }

  /**
   * The objects of `type` with these keys (null where absent), with the relations the field of
   * `info` selects below them, in its order: one statement for every call of the tick.
   */
  byKeys(info: GraphQLResolveInfo, type: ObjectName, keys: readonly bigint[]): Promise<Array<Row | null>> {
    const loader = this.loader<bigint, Row | null>('keys', info, type, async (batch) => {
      const rows = await readByKeys(this.services, this.viewer, batch[0]!.info, type, batch[0]!.info.fieldNodes, [
        ...new Set(batch.map((b) => b.key)),
      ]);
      const keyField = OBJECT_TYPES[type].key;
      const byKey = new Map(rows.map((row) => [String(row[keyField]), row]));
      return batch.map((b) => byKey.get(String(b.key)) ?? null);
    });
    return Promise.all(keys.map((key) => loader.load({ info, key })));
  }

  /**
   * `row` (an object of `type` that no compiled statement read) with the relations the field of
   * `info` selects below it: one statement for every row of the tick, none when no relation is
   * selected.
   */
  relationsOf(info: GraphQLResolveInfo, type: ObjectName, row: Row): Promise<Row> {
    return this.loader<Row, Row>('rows', info, type, (batch) =>
      readRelationsOf(
        this.services,
        this.viewer,
        batch[0]!.info,
        type,
        batch[0]!.info.fieldNodes,
        batch.map((b) => b.key as Record<string, unknown>),
      ),
    ).load({ info, key: row });
  }

  private loader<K, V>(
    kind: string,
    info: GraphQLResolveInfo,
    type: ObjectName,
    read: (batch: readonly Batched<K>[]) => Promise<V[]>,
  ): DataLoader<Batched<K>, V> {
    const node = info.fieldNodes[0]!;
    this.batches ??= new WeakMap();
    let byType = this.batches.get(node);
    if (!byType) this.batches.set(node, (byType = new Map()));
    const name = `${kind}:${type}`;
    let loader = byType.get(name) as DataLoader<Batched<K>, V> | undefined;
    if (!loader) {
      loader = new DataLoader<Batched<K>, V>(read, { cache: false, maxBatchSize: 1000 });
      byType.set(name, loader as DataLoader<Batched<unknown>, unknown>);
    }
    return loader;
  }
}
