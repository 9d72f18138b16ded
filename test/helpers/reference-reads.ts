/**
 * The differential tests' reference: a naive reader generated from the relation table
 * (src/read/relations.ts), sharing nothing with the read compiler but the services' own
 * page builders (filters, sorts, cursors). Every relation field, root or nested, reads its own
 * parent's value with its own statements, one parent at a time: a to-one relation selects the
 * target row by key, a connection runs its service's page statement for that parent and counts it
 * when asked. It is slow on purpose and simple enough to be right by reading it; the compiler's
 * answers (one statement per root field, PostgreSQL shaping the JSON) must be the same bytes.
 *
 * `referenceSchema` is given to an app as `transformSchema` (buildApp): the same HTTP pipeline,
 * errors and limits, only the reads differ.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { Prisma } from '../../src/generated/prisma/client';
import { buildPage } from '../../src/common/pagination';
import type { Services } from '../../src/modules/services';
import { objectType, type Viewer } from '../../src/common/object-types';
import { OBJECTS, RELATIONS, type ObjectName, type Relation } from '../../src/read/relations';

type Row = Record<string, unknown>;

/** The registry's access condition on rows of `type` for `viewer` (object-types.ts), if any. */
const visible = (type: ObjectName, viewer: Viewer | null) => {
  const condition = objectType(type).access.visible?.(viewer);
  return condition ? [condition] : [];
};

async function rowsByKey(
  services: Services,
  rows: { select: string; from: string; key: string },
  key: unknown,
  where: Prisma.Sql[],
) {
  const conditions = [Prisma.sql`${Prisma.raw(rows.key)} = ${key}`, ...where];
  return services.reader.query<Row>(
    Prisma.sql`SELECT ${Prisma.raw(rows.select)} FROM ${Prisma.raw(rows.from)} WHERE ${Prisma.join(conditions, ' AND ')}`,
  );
}

/** One relation's value for one parent (null at the root), read on its own. */
async function readNaively(
  services: Services,
  viewer: Viewer | null,
  relation: Relation,
  parent: Row | null,
  args: Row,
): Promise<unknown> {
  if (relation.kind === 'one') {
    const key = 'field' in relation.from ? parent![relation.from.field] : args[relation.from.arg];
    if (key == null) return null;
    const rows = relation.via?.rows ?? OBJECTS[relation.target].rows;
    const [row] = await rowsByKey(services, rows, key, visible(relation.target, viewer));
    if (!row) return null;
    for (const [field, parentField] of Object.entries(relation.via?.fromParent ?? {}))
      row[field] = parent![parentField];
    return row;
  }
  const parentRef = parent && ((field: string) => Prisma.sql`${parent[field]}`);
  const page = relation.page(services, parentRef, args, visible(relation.target, viewer), viewer);
  const rows = await services.reader.query<Row>(page.statement);
  return buildPage(rows, page.window, page.sort, async () => {
    const [count] = await services.reader.query<{ count: number }>(page.count);
    return Number(count!.count);
  });
}

/** `schema` with every field of the relation table read naively (see above). */
export function referenceSchema(schema: GraphQLSchema, services: Services): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const relation = (RELATIONS as Record<string, Record<string, Relation>>)[typeName]?.[fieldName];
      if (!relation) return field;
      const resolve: GraphQLFieldResolver<Row | undefined, { caller: Viewer | null }> = (parent, args, ctx) =>
        readNaively(services, ctx.caller, relation, typeName === 'Query' ? null : parent!, args);
      return { ...field, resolve };
    },
  });
}

/** Objects of `type` by key, in key order, null where absent: one statement per key. */
export async function referenceByKeys(
  services: Services,
  viewer: Viewer | null,
  type: ObjectName,
  keys: readonly bigint[],
) {
  const where = visible(type, viewer);
  return Promise.all(keys.map(async (key) => (await rowsByKey(services, OBJECTS[type].rows, key, where))[0] ?? null));
}
