/**
 * Preloaded (`node -r dist/bench/agent.js ...`) into every benchmark target, T3 included, so that
 * src/ needs no benchmark hooks. It does three things and nothing else:
 *
 * - counts SQL statements sent to the database: every `pg.Client#query` (what `pg.Pool#query`,
 *   Prisma's adapter-pg and T0 all go through) or, on the embedded database, every
 *   `PGlite#query`/`#exec`. The cost is one integer increment per statement;
 * - answers the runner over the IPC channel with that count and `process.cpuUsage()` (all threads,
 *   microseconds), so CPU per request is measured per server process;
 * - exits when the runner goes away, so no target outlives an interrupted benchmark.
 */
import type { AgentReply, AgentRequest } from './protocol';

let statements = 0;

function countCalls(proto: Record<string, unknown>, method: string): void {
  const original = proto[method] as (...args: unknown[]) => unknown;
  if (typeof original !== 'function') return;
  proto[method] = function counted(this: unknown, ...args: unknown[]) {
    statements++;
    return original.apply(this, args);
  };
}

if (process.env.BENCH_DB_KIND === 'pglite') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as { PGlite: { prototype: Record<string, unknown> } };
  countCalls(PGlite.prototype, 'query');
  countCalls(PGlite.prototype, 'exec');
} else {
  // The peer (T2) brings its own pg (bench/peer.ts names it); everyone else uses the project's.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require(process.env.BENCH_PG_MODULE ?? 'pg') as { Client: { prototype: Record<string, unknown> } };
  countCalls(pg.Client.prototype, 'query');
}

if (process.send) {
  process.on('message', (message: AgentRequest) => {
    if (message?.type !== 'stats') return;
    const cpu = process.cpuUsage();
    const reply: AgentReply = { type: 'stats', seq: message.seq, statements, cpuMicros: cpu.user + cpu.system };
    process.send!(reply);
  });
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel must not keep a target alive by itself.
  (process.channel as unknown as { unref?: () => void } | undefined)?.unref?.();
}
