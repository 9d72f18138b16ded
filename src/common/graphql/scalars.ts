/**
 * GraphQL's `ID`, made int64-exact. graphql-js's built-in ID cannot serialise a bigint and accepts any
 * string; this scalar keeps the name `ID` (the contract) but parses to `bigint` with range checks, so
 * a malformed id is rejected while variables are coerced (VALIDATION_FAILED, 400) and resolvers
 * receive exact values. The built-in ID is never referenced, so the schema holds only this one.
 */
import { GraphQLScalarType, Kind } from 'graphql';
import { parseId } from '../ids';

export const IdScalar = new GraphQLScalarType<bigint, string>({
  name: 'ID',
  description:
    'A 64-bit integer identifier, serialised as a string of decimal digits. Accepted as a string or an integer literal.',
  serialize(value) {
    return parseId(value, 'ID').toString();
  },
  parseValue(value) {
    return parseId(value, 'ID');
  },
  parseLiteral(ast) {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT) return parseId(ast.value, 'ID');
    throw new TypeError('ID: must be a 64-bit integer id in decimal digits');
  },
});

export { DateTimeResolver as DateTimeScalar } from 'graphql-scalars';
