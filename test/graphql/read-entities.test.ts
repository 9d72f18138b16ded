import {
  execute,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  parse,
  type GraphQLScalarType,
} from 'graphql';
import pino from 'pino';
import { createSchema } from '../../src/schema/schema';
import { createContext } from '../../src/modules/context';
import { Reads } from '../../src/read/reads';
import { readEntities, type EntityType } from '../../src/read/entities';
import { referenceByKeys, referenceSchema } from '../helpers/reference-reads';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { insertOrder, makeCategory, makePet } from '../helpers/factories';

/**
 * The schema plus a field shaped like federation's `_entities` (a list of a union, objects found by
 * type and key), resolved by readEntities: the contract federation and Relay's `nodes` build on.
 */
async function schemaWithEntities(read: typeof readEntities = readEntities): Promise<GraphQLSchema> {
  const base = await createSchema();
  const config = base.toConfig();
  const entity = new GraphQLUnionType({
    name: 'TestEntity',
    types: ['Pet', 'Category', 'Order', 'InventoryItem'].map((name) => base.getType(name) as GraphQLObjectType),
    resolveType: (value: { __testType: string }) => value.__testType,
  });
  const query = new GraphQLObjectType({
    name: 'Query',
    fields: () => ({
      ...base.getQueryType()!.toConfig().fields,
      testEntities: {
        type: new GraphQLList(entity),
        args: {
          type: { type: new GraphQLNonNull(GraphQLString) },
          keys: {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(base.getType('ID') as GraphQLScalarType))),
          },
        },
        resolve: async (_source, args: { type: EntityType; keys: bigint[] }, ctx, info) =>
          (await read(ctx, info, args.type, args.keys)).map(
            (row) => row && Object.assign(row, { __testType: args.type }),
          ),
      },
    }),
  });
  return new GraphQLSchema({ ...config, query, types: [...config.types.filter((t) => t.name !== 'Query'), entity] });
}

const ENTITIES = parse(`
  query Entities($type: String!, $keys: [ID!]!) {
    testEntities(type: $type, keys: $keys) {
      __typename
      ... on Pet {
        id
        name
        category {
          name
          pets(first: 2) {
            totalCount
            nodes {
              id
            }
          }
        }
        inventory {
          quantity
          status
        }
        orders(first: 2) {
          totalCount
          edges {
            cursor
            node {
              id
              pet {
                name
              }
            }
          }
        }
      }
      ... on Category {
        id
        name
        description
        pets(first: 3) {
          nodes {
            name
            inventory {
              quantity
            }
          }
        }
      }
      ... on Order {
        id
        petId
        pet {
          name
        }
      }
      ... on InventoryItem {
        petId
        quantity
        status
        pet {
          id
          category {
            name
          }
        }
      }
    }
  }
`);

describe('readEntities (objects of one type by key, for federation and Relay)', () => {
  let t: TestApp;
  let schema: GraphQLSchema;
  /** The same, read by the reference reader (test/helpers/reference-reads.ts). */
  let referenceSchemaWithEntities: GraphQLSchema;
  const ids: Record<EntityType, string[]> = { Pet: [], Category: [], Order: [], InventoryItem: [] };

  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    schema = await schemaWithEntities();
    referenceSchemaWithEntities = referenceSchema(
      await schemaWithEntities(async (ctx, _info, type, keys) => referenceByKeys(t.services, ctx.caller, type, keys)),
      t.services,
    );
    const category = await makeCategory(t);
    const pets = [];
    for (let i = 0; i < 4; i++) pets.push(await makePet(t, { categoryId: category.id, stock: i }));
    const order = await insertOrder(t, { petId: pets[1]!.id });
    await insertOrder(t, { petId: pets[1]!.id });
    ids.Pet = [pets[1]!.id.toString(), '999999', pets[0]!.id.toString()];
    ids.Category = [category.id.toString(), '999999'];
    ids.Order = [order.id.toString(), '999999'];
    ids.InventoryItem = [pets[2]!.id.toString(), '999999', pets[3]!.id.toString()];
  }, 240_000);
  afterAll(() => t.close());

  async function read(type: EntityType, reference: boolean) {
    const caller = { kind: 'key' as const, keyId: 1n, name: 'test', scopes: ['admin'] as const };
    const contextValue = createContext(
      t.services,
      {
        id: 'entities',
        log: pino({ level: 'silent' }),
        caller: { ...caller, scopes: [...caller.scopes] },
        headers: {},
      },
      new Reads(t.services, caller),
    );
    t.sql.reset();
    const result = await execute({
      schema: reference ? referenceSchemaWithEntities : schema,
      document: ENTITIES,
      variableValues: { type, keys: ids[type] },
      contextValue,
    });
    return { count: t.sql.count, statements: [...t.sql.statements], result: JSON.stringify(result) };
  }

  it.each(['Pet', 'Category', 'Order', 'InventoryItem'] as const)(
    'reads %s objects in key order, null where absent, with every relation below, in one statement',
    async (type) => {
      const compiled = await read(type, false);
      const loaded = await read(type, true);
      expect(compiled.result).toBe(loaded.result);
      expect(JSON.parse(compiled.result).errors).toBeUndefined();
      expect(JSON.parse(compiled.result).data.testEntities[1]).toBeNull();
      expect(compiled.count).toBe(1);
    },
  );
});
