/**
 * The differential tests' reference: a naive reader generated from the relation table
 * (src/graphql/planner/relations.ts), sharing nothing with the read compiler but the services' own
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
import type { Services } from '../../src/services';
import { OBJECTS, RELATIONS, type ObjectName, type Relation } from '../../src/graphql/planner/relations';

type Row = Record<string, unknown>;

async function rowsByKey(services: Services, rows: { select: string; from: string; key: string }, key: unknown) {
  return services.reader.query<Row>(
    Prisma.sql`SELECT ${Prisma.raw(rows.select)} FROM ${Prisma.raw(rows.from)} WHERE ${Prisma.raw(rows.key)} = ${key}`,
  );
}

/** One relation's value for one parent (null at the root), read on its own. */
async function readNaively(services: Services, relation: Relation, parent: Row | null, args: Row): Promise<unknown> {
  if (relation.kind === 'one') {
    const key = 'field' in relation.from ? parent![relation.from.field] : args[relation.from.arg];
    if (key == null) return null;
    const [row] = await rowsByKey(services, relation.via?.rows ?? OBJECTS[relation.target].rows, key);
    if (!row) return null;
    for (const [field, parentField] of Object.entries(relation.via?.fromParent ?? {}))
      row[field] = parent![parentField];
    return row;
  }
  const page = relation.page(services, parent && ((field) => Prisma.sql`${parent[field]}`), args);
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
      const resolve: GraphQLFieldResolver<Row | undefined, unknown> = (parent, args) =>
        readNaively(services, relation, typeName === 'Query' ? null : parent!, args);
      return { ...field, resolve };
    },
  });
}

/** Objects of `type` by key, in key order, null where absent: one statement per key. */
export async function referenceByKeys(services: Services, type: ObjectName, keys: readonly bigint[]) {
  return Promise.all(keys.map(async (key) => (await rowsByKey(services, OBJECTS[type].rows, key))[0] ?? null));
}
