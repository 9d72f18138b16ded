/**
 * Stability labels on GraphQL root fields, from the table REST uses too (src/common/stability.ts):
 * `@stability(level: "beta")` on the field (printed in schema.graphql) and "Stability: beta." at the
 * end of its description, which is what Apollo Sandbox shows (introspection does not carry directive
 * uses).
 */
import { DirectiveLocation, GraphQLDirective, GraphQLNonNull, GraphQLString, type GraphQLSchema } from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { STABILITY_LEVELS, stabilityOf } from '../common/stability';

export const stabilityDirective = new GraphQLDirective({
  name: 'stability',
  description: `How settled an operation is: ${STABILITY_LEVELS.join(', ')} (see docs/rest.md, "Stability labels").`,
  locations: [DirectiveLocation.FIELD_DEFINITION],
  args: {
    level: { type: new GraphQLNonNull(GraphQLString), description: STABILITY_LEVELS.join(' | ') },
  },
});

/** Puts the label of every Query and Mutation field on it, as a directive and in its description. */
export function labelStability(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.ROOT_FIELD]: (field, fieldName, typeName) => {
      const level = stabilityOf(`${typeName}.${fieldName}`);
      const note = `Stability: ${level}.`;
      return {
        ...field,
        description: field.description ? `${field.description} ${note}` : note,
        extensions: {
          ...field.extensions,
          directives: { ...(field.extensions?.directives as object), stability: { level } },
        },
      };
    },
  });
}
