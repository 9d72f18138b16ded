/**
 * The one TypeGraphQL auth checker. Fields marked `@Authorized()` are checked against the scope
 * table under their schema coordinate (`Query.orders`, `Pet.orders`, `Mutation.placeOrder`), so the
 * decorator marks *that* a field is guarded and SCOPE_TABLE alone says *by what*. It runs before the
 * resolver converts or validates its arguments, so 401/403 come before any business rule.
 */
import type { AuthCheckerFn } from 'type-graphql';
import { authorize } from '../modules/auth/authorize';
import type { GraphQLContext } from '../modules/context';

export const authChecker: AuthCheckerFn<GraphQLContext> = ({ context, info }) => {
  authorize(context.caller, `${info.parentType.name}.${info.fieldName}`);
  return true;
};
