/**
 * Child of bench/sql-cpu.ts: `node dist/bench/sql-capture.js ROOT URL` loads the build of the
 * checkout ROOT (its dist/src, one build per process), executes each read shape (shapes.ts)
 * through its schema with the read compiler on, against the database URL, and prints the statements
 * each sent as JSON (bigints as strings, which PostgreSQL takes for bigint parameters).
 */
import path from 'node:path';
import { SHAPES } from './shapes';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any -- modules of another build, loaded by path */
async function main(): Promise<void> {
  const [root, url] = process.argv.slice(2) as [string, string];
  const load = (p: string) => require(path.join(root, 'dist', 'src', p)) as any;
  require(path.join(root, 'node_modules', 'reflect-metadata'));
  const { execute, parse } = require(path.join(root, 'node_modules', 'graphql')) as typeof import('graphql');
  const pino = require(path.join(root, 'node_modules', 'pino')) as typeof import('pino');
  const db = await load('db/database.js').createDatabase({ kind: 'postgres', url, poolSize: 2 });
  try {
    const captured: { text: string; values: unknown[] }[] = [];
    const services = load('modules/services.js').createServices({
      prisma: db.prisma,
      sql: {
        query: (statement: { text: string; values: unknown[] }) => (
          captured.push({ text: statement.text, values: statement.values }),
          db.sql.query(statement)
        ),
      },
    });
    const schema = await load('schema/schema.js').createSchema();
    const log = pino.pino({ level: 'silent' });
    const out = [];
    for (const shape of SHAPES) {
      captured.length = 0;
      const caller = { keyId: 1n, name: 'sql-cpu', scopes: ['admin'] };
      const contextValue = load('modules/context.js').createContext(
        services,
        { id: 'sql-cpu', log, caller, headers: {} },
        new (load('read/reads.js').Reads)(services, caller),
      );
      const result = await execute({
        schema,
        document: parse(shape.query),
        variableValues: shape.variables,
        contextValue,
      });
      if (result.errors) throw new Error(`${shape.name}: ${result.errors.map((e) => e.message).join('; ')}`);
      out.push({ shape: shape.name, statements: [...captured] });
    }
    process.stdout.write(
      JSON.stringify(out, (_k, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : v instanceof Date ? v.toISOString() : v,
      ),
    );
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
