/**
 * T2 of the benchmark: PostGraphile v5 (amber preset, its defaults) over the bench's own PostgreSQL
 * database, the auto-generated peer a team would compare this gateway with. Runs on Node >= 22
 * (PostGraphile 5.1 needs it); bench/peer.ts installs this folder and a Node 22 binary on demand.
 * Plain ESM, not compiled with the project: its dependencies live only in bench/peer/node_modules.
 *
 * Environment: PORT, HOST, DATABASE_URL, DB_POOL_SIZE (default 10, as the gateway).
 */
import http from 'node:http';
import { postgraphile } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';

const pgService = makePgService({
  connectionString: process.env.DATABASE_URL,
  schemas: ['public'],
  poolConfig: { max: Number(process.env.DB_POOL_SIZE ?? 10) },
});

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [pgService],
  grafast: { explain: false },
  grafserv: { graphiql: false, watch: false, maxRequestLength: 100_000 },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const handler = serv.createHandler();
const server = http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  handler(req, res, () => res.writeHead(404).end());
});
// Build the schema before taking traffic, so the first timed request does not pay for it.
await pgl.getSchemaResult();
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeIdleConnections?.();
  void pgl.release().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 5000).unref();
});
