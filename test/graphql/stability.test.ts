import fs from 'node:fs';
import path from 'node:path';
import { isObjectType, type GraphQLSchema } from 'graphql';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { STABILITY_TABLE } from '../../src/common/stability';
import { createSchema } from '../../src/schema/schema';
import { createTestApp } from '../helpers/test-app';

const rootFields = (schema: GraphQLSchema) =>
  [schema.getQueryType(), schema.getMutationType()]
    .filter(isObjectType)
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ key: `${type.name}.${field.name}`, field })));

describe('stability labels on GraphQL fields', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await createSchema();
  });

  it('has a label in the table for every root field', () => {
    const missing = rootFields(schema)
      .map((f) => f.key)
      .filter((key) => !(key in STABILITY_TABLE));
    expect(missing).toEqual([]);
  });

  it('puts the label on each root field as @stability and at the end of its description', () => {
    const sdl = printSchemaWithDirectives(schema);
    expect(sdl).toContain('directive @stability(');
    for (const { key, field } of rootFields(schema)) {
      const level = STABILITY_TABLE[key as keyof typeof STABILITY_TABLE];
      expect(field.description).toMatch(new RegExp(`Stability: ${level}\\.$`));
      expect(sdl).toMatch(
        new RegExp(`\\n  ${field.name}[(:][^\\n]*(\\n    [^\\n]*)*\\n?[^\\n]*@stability\\(level: "${level}"\\)`),
      );
    }
  });

  it('is in the committed schema.graphql', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8');
    expect(committed).toContain('pet(id: ID!): Pet @stability(level: "stable")');
    expect(committed).toContain('inventorySummary: [InventoryCount!]! @stability(level: "experimental")');
  });

  it('shows the label in the descriptions that Sandbox reads by introspection', async () => {
    const t = await createTestApp();
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: { query: '{ __type(name: "Query") { fields { name description } } }' },
      });
      const fields = res.json().data.__type.fields as { name: string; description: string }[];
      expect(fields.find((f) => f.name === 'inventorySummary')?.description).toMatch(/Stability: experimental\.$/);
      expect(fields.find((f) => f.name === 'pet')?.description).toBe('A pet by id, or null. Stability: stable.');
    } finally {
      await t.close();
    }
  });
});
