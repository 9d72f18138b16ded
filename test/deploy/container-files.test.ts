/**
 * Issue 30, item 5: no container engine runs here, so the Dockerfile and compose.yaml cannot be built
 * or started by the tests. What they name is checked instead: every file the Dockerfile copies or runs
 * exists, its build stage runs the runtime script the runtime test runs (test/deploy/runtime.test.ts),
 * its HEALTHCHECK and CMD are built entry points, PID 1 is node itself (exec form); every variable the
 * compose file gives the gateway and the migration job is one the configuration knows.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** A built file (dist/src/x.js) exists as a source (src/x.ts). */
const sourceOf = (built: string) => built.replace(/^dist\//, '').replace(/\.js$/, '.ts');

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));

  it('copies only files that exist, and builds the runtime with scripts/build-runtime.js', () => {
    const copies = instructions.filter((l) => /^COPY /.test(l) && !l.includes('--from'));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const sources = copy.split(/\s+/).slice(1, -1);
      for (const source of sources) expect([source, fs.existsSync(path.join(root, source))]).toEqual([source, true]);
    }
    expect(instructions).toContain('RUN node scripts/build-runtime.js /runtime');
    expect(fs.existsSync(path.join(root, 'scripts', 'build-runtime.js'))).toBe(true);
  });

  it('runs as a non-root user, node as PID 1 (exec form), health from /readyz', () => {
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages).toHaveLength(2);
    const final = stages[1]!;
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/^COPY --from=build \/runtime \.\/$/m);
    const cmd = /^CMD (\[.*\])$/m.exec(final)![1]!;
    expect(JSON.parse(cmd)).toEqual(['node', 'dist/src/main.js']);
    const health = /^\s*CMD (\[.*\])$/m.exec(final.slice(final.indexOf('HEALTHCHECK')))![1]!;
    const [node, script] = JSON.parse(health) as string[];
    expect(node).toBe('node');
    expect(fs.existsSync(path.join(root, sourceOf(script!)))).toBe(true);
    expect(read(sourceOf(script!))).toContain('/readyz');
    expect(fs.existsSync(path.join(root, sourceOf('dist/src/main.js')))).toBe(true);
  });
});

describe('compose.yaml', () => {
  const compose = read('compose.yaml');
  const services = new Map(
    compose
      .slice(compose.indexOf('\nservices:\n'), compose.indexOf('\nvolumes:\n'))
      .split(/^ {2}(?=[a-z]+:\n)/m)
      .slice(1)
      .map((block) => [block.slice(0, block.indexOf(':')), block]),
  );
  const configured = read('docs/configuration.md');

  it('has PostgreSQL, PgBouncer, Redis, a migration job and the gateway with WEB_CONCURRENCY', () => {
    expect([...services.keys()].sort()).toEqual(['gateway', 'migrate', 'pgbouncer', 'postgres', 'redis']);
    expect(services.get('gateway')).toMatch(/WEB_CONCURRENCY: /);
    expect(services.get('gateway')).toMatch(/MIGRATE_ON_START: 'false'/);
    expect(services.get('gateway')).toMatch(/condition: service_completed_successfully/);
    const command = /command: (\[.*\])/.exec(services.get('migrate')!)![1]!;
    const [, script] = JSON.parse(command.replace(/'/g, '"')) as string[];
    expect(fs.existsSync(path.join(root, sourceOf(script!)))).toBe(true);
    for (const mount of compose.matchAll(/- \.\/([^\s:]+):/g))
      expect(fs.existsSync(path.join(root, mount[1]!))).toBe(true);
  });

  it('trusts no X-Forwarded-For: the gateway publishes its port and no proxy stands in front of it', () => {
    // TRUST_PROXY=true here let any client choose its address, and so its rate limit.
    expect(services.get('gateway')).toMatch(/ports:\n\s+- '4000:4000'/);
    expect([...services.keys()].filter((s) => /proxy|nginx|haproxy|traefik|envoy|caddy/.test(s))).toEqual([]);
    expect(services.get('gateway')).toMatch(/TRUST_PROXY: 'false'/);
  });

  it("gives the gateway's role, behind PgBouncer, the server-side settings it cannot send there", () => {
    expect(services.get('gateway')).toMatch(/DATABASE_URL: .*\?pgbouncer=true/);
    const roles = read('deploy/postgres/roles.sh');
    expect(roles).toMatch(/ALTER ROLE petstore_app SET statement_timeout = '\d+s';/);
    expect(roles).toMatch(/ALTER ROLE petstore_app SET enable_memoize = off;/);
  });

  it('gives the gateway and the migration job only variables the configuration knows', () => {
    for (const service of ['gateway', 'migrate']) {
      const env = /environment:\n((?: {6}.*\n)+)/.exec(services.get(service)!)![1]!;
      const names = [...env.matchAll(/^ {6}([A-Z_]+):/gm)].map((m) => m[1]!);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect([name, configured.includes(`\`${name}\``)]).toEqual([name, true]);
    }
  });
});
