/**
 * The variables check (src/policy/well-formed.ts): depth counted as the docs say, the first problem
 * in document order, its path spelled from the variable's name. The HTTP and WebSocket refusals
 * built on it are tested in test/http and test/faults; this pins the walk itself.
 */
import { inputProblem, variablesError } from '../../src/policy/well-formed';

const nest = (levels: number): unknown => (levels === 0 ? 1 : { a: nest(levels - 1) });

describe('the variables check', () => {
  it('counts the objects and lists around the deepest value: at the limit is accepted, one more is refused', () => {
    expect(inputProblem(nest(3), '$v', 3)).toBeNull();
    expect(inputProblem(nest(4), '$v', 3)).toEqual({ kind: 'too-deep', path: '$v.a.a.a' });
    expect(inputProblem([[[1]]], '$v', 3)).toBeNull();
    expect(inputProblem([[[[1]]]], '$v', 3)).toEqual({ kind: 'too-deep', path: '$v[0][0][0]' });
    expect(inputProblem({}, '$v', 0)).toEqual({ kind: 'too-deep', path: '$v' });
    expect(inputProblem(7, '$v', 0)).toBeNull();
  });

  it('names the first lone surrogate in document order, through objects and lists', () => {
    const value = { a: [1, 'ok', { b: 'x\ud800' }], c: '\udc00', d: nest(40) };
    expect(inputProblem(value, '$input', 32)).toEqual({ kind: 'ill-formed', path: '$input.a[2].b' });
    expect(inputProblem({ a: nest(40), b: 'x\ud800' }, '$v', 32)?.kind).toBe('too-deep');
    expect(inputProblem('\ud83d\ude00 a pair is one code point', '$s', 32)).toBeNull();
    expect(inputProblem('\ud83d', '$s', 32)).toEqual({ kind: 'ill-formed', path: '$s' });
  });

  it('walks large values whole: a problem after 200,000 plain values is still found', () => {
    const xs: unknown[] = Array.from({ length: 200_000 }, (_, i) => (i % 2 ? i : { n: `v${i}` }));
    expect(inputProblem(xs, '$xs', 32)).toBeNull();
    xs.push({ n: ['fine', '\udfff'] });
    expect(inputProblem(xs, '$xs', 32)).toEqual({ kind: 'ill-formed', path: '$xs[200000].n[1]' });
  });

  it('refuses with 400 VALIDATION_FAILED naming the variable', () => {
    const error = variablesError({ fine: { a: 1 }, bad: { list: [{}, { deep: nest(3) }] } }, 3);
    expect(error?.message).toBe(
      'Variable $bad.list[1].deep nests objects or lists deeper than 3 levels (GRAPHQL_MAX_INPUT_DEPTH)',
    );
    expect(variablesError(undefined, 3)).toBeNull();
  });
});
