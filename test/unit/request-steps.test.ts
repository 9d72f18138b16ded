/**
 * The request steps keep what Apollo promised them as plugins of their own: every step's hook runs,
 * in order; when several refuse an operation the first listed wins; a hook's promise is waited for
 * before the answer leaves. Through a real ApolloServer (executeOperation).
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { requestStepsPlugin, type RequestStep } from '../../src/common/graphql/request-steps';

const typeDefs = 'type Query { hello: String }';
const resolvers = { Query: { hello: () => 'world' } };

async function run(steps: RequestStep<object>[], after: ApolloServerPlugin[] = []) {
  const server = new ApolloServer({ typeDefs, resolvers, plugins: [requestStepsPlugin(steps), ...after] });
  await server.start();
  try {
    const response = await server.executeOperation({ query: '{ hello }' });
    return response;
  } finally {
    await server.stop();
  }
}

describe('request steps', () => {
  it('runs every step in order, answers the first refusal, and still runs the later steps', async () => {
    const seen: string[] = [];
    const refusing =
      (name: string): RequestStep<object> =>
      () => ({
        didResolveOperation() {
          seen.push(name);
          throw new GraphQLError(`refused by ${name}`, { extensions: { code: name.toUpperCase() } });
        },
      });
    const response = await run([
      () => ({ didResolveOperation: () => void seen.push('first') }),
      refusing('a'),
      () => undefined, // a step with nothing to do for this request
      refusing('b'),
      () => ({ willSendResponse: () => void seen.push('sent') }),
    ]);
    expect(seen).toEqual(['first', 'a', 'b', 'sent']);
    const body = response.body.kind === 'single' ? response.body.singleResult : null;
    expect(body?.errors?.map((e) => e.message)).toEqual(['refused by a']);
    expect(body?.data).toBeUndefined();
  });

  it("waits for a hook's promise before the answer leaves, and lets the operation run when nobody refuses", async () => {
    const response = await run([
      () => ({
        willSendResponse: (rc) =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              rc.response.http.headers.set('x-step', 'late');
              resolve();
            }, 20),
          ),
      }),
      () => ({ willSendResponse: (rc) => void rc.response.http.headers.set('x-other', 'now') }),
    ]);
    expect(response.http.headers.get('x-step')).toBe('late');
    expect(response.http.headers.get('x-other')).toBe('now');
    expect(response.body.kind === 'single' && response.body.singleResult.data).toEqual({ hello: 'world' });
  });

  // Apollo calls every plugin's hook before it waits for any (patches/README.md): a step failing
  // synchronously would stop it before the plugins listed after the steps (tracing, the cost budget).
  it('lets the plugins after the steps have their hooks when a step refuses the operation or fails to start', async () => {
    const seen: string[] = [];
    const later: ApolloServerPlugin = {
      async requestDidStart() {
        seen.push('later started');
        return {
          async didResolveOperation() {
            seen.push('later resolved');
          },
        };
      },
    };
    const refused = await run(
      [
        () => ({
          didResolveOperation() {
            throw new GraphQLError('refused', { extensions: { code: 'REFUSED' } });
          },
        }),
      ],
      [later],
    );
    expect(refused.body.kind === 'single' && refused.body.singleResult.errors?.map((e) => e.message)).toEqual([
      'refused',
    ]);
    expect(seen).toEqual(['later started', 'later resolved']);

    seen.length = 0;
    const failing: RequestStep<object> = () => {
      throw new Error('a step failed to start');
    };
    // Apollo answers the failure as its own internal error, as it did when the hook was async.
    await expect(run([failing], [later])).rejects.toThrow('Internal server error');
    expect(seen).toEqual(['later started']);
  });
});
