import { Writable } from 'node:stream';
import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';

const Categories = graphql(`
  query AllCategories {
    categories {
      nodes {
        id
      }
    }
  }
`);

describe('GraphQL errors', () => {
  let t: TestApp;
  const logLines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp({ logger: { level: 'info', stream } });
  });
  afterAll(() => t.close());

  it('masks an unexpected failure as INTERNAL with the request id, and logs it with its stack', async () => {
    // Break this suite's own database under the service: the query fails inside Prisma.
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE categories RENAME TO categories_gone');
    try {
      const reply = await t.gql(Categories, undefined, { 'x-request-id': 'req-mask-1' });
      expect(reply.headers['x-request-id']).toBe('req-mask-1');
      expect(reply.errors).toEqual([
        {
          message: 'Internal server error (request id req-mask-1)',
          locations: expect.any(Array),
          path: ['categories'],
          extensions: { code: 'INTERNAL', status: 500, requestId: 'req-mask-1' },
        },
      ]);
      const text = JSON.stringify(reply);
      expect(text).not.toMatch(/categories_gone|relation|prisma|SELECT|stack|at \w+ \(/i);
      const logged = logLines.find((l) => l.reqId === 'req-mask-1' && l.msg === 'unexpected GraphQL error');
      expect(logged).toBeDefined();
      expect(String((logged!.err as { stack?: string }).stack)).toMatch(/\n\s+at /);
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE categories_gone RENAME TO categories');
    }
  });

  it('answers a syntax error with BAD_REQUEST and an unknown field with VALIDATION_FAILED, both HTTP 400', async () => {
    const syntax = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ pets { ' } });
    expect(syntax.statusCode).toBe(400);
    expect(syntax.json().errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
    const unknown = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ nope }' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
  });

  it('publishes the ErrorCode enum in the schema', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ __type(name: "ErrorCode") { enumValues { name } } }' },
    });
    const values = res.json().data.__type.enumValues.map((v: { name: string }) => v.name);
    expect(values).toEqual(
      expect.arrayContaining(['VALIDATION_FAILED', 'NOT_FOUND', 'CONFLICT', 'INTERNAL', 'OUT_OF_STOCK']),
    );
  });

  it('answers an argument that a null variable made invalid with VALIDATION_FAILED, not INTERNAL', async () => {
    // `$q: Int = 1` may stand where `Int!` is expected (it has a default), but an explicit null
    // reaches the non-null input field: graphql-js refuses the argument while executing.
    for (const executor of ['jit', 'graphql-js'] as const) {
      // graphql-js on the same database (one PGlite start less); close() leaves it to `t`.
      const app = executor === 'jit' ? t : await createTestApp({ env: { GRAPHQL_JIT: 'false' }, database: t });
      try {
        const res = await app.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { ...app.admin, 'content-type': 'application/json' },
          payload: {
            query: 'mutation NullQuantity($q: Int = 1) { placeOrder(input: { petId: "1", quantity: $q }) { id } }',
            variables: { q: null },
          },
        });
        const body = res.json();
        expect(body.errors).toHaveLength(1);
        expect(body.errors[0].message).toMatch(/^Argument "input" has invalid value/);
        expect(body.errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
        const data = await app.db.prisma.order.count();
        expect(data).toBe(0);
      } finally {
        if (app !== t) await app.close();
      }
    }
  });
});
