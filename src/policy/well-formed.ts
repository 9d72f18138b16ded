/**
 * Variables are checked before anything runs, in one walk that is iterative (an explicit stack, no
 * recursion), so any depth costs a bounded stack:
 *
 * - nesting: objects and lists in a variable may nest at most GRAPHQL_MAX_INPUT_DEPTH levels. JSON
 *   carries any depth (`{"a":{"a":...}}` 8,000 deep is 50 KB), and graphql-js's input coercion,
 *   loggers and serializers walk values recursively: past the limit the request is refused with 400
 *   VALIDATION_FAILED naming the variable, before any of them sees it. The schema's own input types
 *   nest a few levels; 32 leaves room for JSON-like values.
 * - strings must be well-formed Unicode. JSON can carry a lone UTF-16 surrogate (`"\ud800x"`), which
 *   JavaScript keeps but PostgreSQL refuses (UTF-8 cannot encode it): the write would fail as an
 *   unexpected database error. Such a variable is refused with 400 VALIDATION_FAILED naming it. (A
 *   surrogate in the query text itself is refused by the GraphQL parser: a syntax error.)
 *
 * Used for HTTP (the request step below, for each operation of a batch too) and for WebSocket
 * subscriptions (subscription-operation.ts).
 */
import { apolloError } from '../common/graphql/apollo-error';
import type { RequestStep, RequestStepListener } from '../common/graphql/request-steps';
import { ValidationError } from '../errors/app-error';
import type { GraphQLContext } from '../modules/context';

/** In `u` mode a surrogate pair is one code point, so this matches only a lone surrogate. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * An object or list on the walk's stack: where its walk stands (`next`, into `keys` for an object),
 * and its parent link and key, to spell its path only when a problem is found. Only containers get
 * a frame: a variable of 450,000 numbers is one frame, not 450,000 frames and path strings (which
 * cost ~0.15 s of CPU per request for a 1 MiB body, against ~10 ms now).
 */
interface Frame {
  value: object;
  keys: string[] | null;
  next: number;
  depth: number;
  parent: Frame | null;
  step: string | number;
}

const stepOf = (step: string | number): string => (typeof step === 'number' ? `[${step}]` : step);

const pathOf = (frame: Frame | null, last?: string | number): string => {
  const steps: string[] = last === undefined ? [] : [stepOf(last)];
  for (let f = frame; f; f = f.parent) steps.push(stepOf(f.step));
  return steps.reverse().join('');
};

/** What is wrong with a value: nested too deep, or a string that is not well-formed. */
export type InputProblem = { kind: 'too-deep'; path: string } | { kind: 'ill-formed'; path: string };

/**
 * The first problem in `value` (named from `path`, e.g. `$input`), or null, in document order.
 * `maxDepth` counts the objects and lists around the deepest value: `{"a": 1}` is 1, `{"a": [1]}` is 2.
 */
export function inputProblem(value: unknown, path: string, maxDepth: number): InputProblem | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? { kind: 'ill-formed', path } : null;
  if (!value || typeof value !== 'object') return null;
  if (maxDepth <= 0) return { kind: 'too-deep', path };
  const stack: Frame[] = [
    { value, keys: Array.isArray(value) ? null : Object.keys(value), next: 0, depth: 1, parent: null, step: path },
  ];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const { value: container, keys } = frame;
    const length = keys ? keys.length : (container as unknown[]).length;
    let child: Frame | null = null;
    while (frame.next < length && !child) {
      const i = frame.next++;
      const step = keys ? `.${keys[i]!}` : i;
      const v = keys ? (container as Record<string, unknown>)[keys[i]!] : (container as unknown[])[i];
      if (typeof v === 'string') {
        if (LONE_SURROGATE.test(v)) return { kind: 'ill-formed', path: pathOf(frame, step) };
      } else if (v && typeof v === 'object') {
        if (frame.depth >= maxDepth) return { kind: 'too-deep', path: pathOf(frame, step) };
        child = {
          value: v,
          keys: Array.isArray(v) ? null : Object.keys(v),
          next: 0,
          depth: frame.depth + 1,
          parent: frame,
          step,
        };
      }
    }
    if (child) stack.push(child);
    else stack.pop();
  }
  return null;
}

/** The path (`$input.name`) of the first string in `value` that is not well-formed, or null. */
export function illFormedStringPath(value: unknown, path: string): string | null {
  const problem = inputProblem(value, path, Infinity);
  return problem?.kind === 'ill-formed' ? problem.path : null;
}

/** The refusal of the first problem in `variables`, or null. */
export function variablesError(
  variables: Record<string, unknown> | undefined,
  maxDepth: number,
): ValidationError | null {
  for (const [name, value] of Object.entries(variables ?? {})) {
    const problem = inputProblem(value, `$${name}`, maxDepth);
    if (!problem) continue;
    return new ValidationError(
      problem.kind === 'too-deep'
        ? `Variable ${problem.path} nests objects or lists deeper than ${maxDepth} levels (GRAPHQL_MAX_INPUT_DEPTH)`
        : `Variable ${problem.path} is not well-formed Unicode (it holds a lone UTF-16 surrogate)`,
    );
  }
  return null;
}

/** Refuses an operation whose variables are not well-formed (src/common/graphql/request-steps.ts). */
export function wellFormedVariablesStep(maxDepth: number): RequestStep<GraphQLContext> {
  const listener: RequestStepListener<GraphQLContext> = {
    didResolveOperation(rc) {
      const error = variablesError(rc.request.variables, maxDepth);
      if (error) throw apolloError(error);
    },
  };
  return () => listener;
}
