/**
 * Issue 30, item 1: the runtime an operator ships is dist/, prisma/migrations, package.json (and its
 * lock) and the production dependencies, made by scripts/build-runtime.js (the Dockerfile's build
 * stage runs the same script). This builds it in a temporary directory (`npm ci --omit=dev`, from
 * npm's local cache when it holds the packages), starts it as production does, and checks that it
 * serves GraphQL and every file the server reads at run time (the favicon, the explorer's scripts),
 * that its migrate command and container health check run from it, with no build step.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describeIf } from '../helpers/describe-if';
import { imageNodeOptionsOf } from '../helpers/image-env';
import { freePort, prepareDataDir } from '../helpers/server-process';
import { usingPostgres } from '../helpers/test-database';

jest.setTimeout(600_000);

const root = path.resolve(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-runtime-'));
const runtime = path.join(tmp, 'app');
let server: ChildProcess | undefined;
let url = '';

const run = promisify(execFile);

// The runtime runs on the embedded database here, whatever the run's database: the PostgreSQL runs of
// CI would only install and start the same runtime again.
const describeRuntime = describeIf(!usingPostgres(), {
  needs: 'a run on the embedded database (it installs and starts the runtime on PGlite)',
  run: 'npm test without TEST_DATABASE_URL (CI does)',
});

beforeAll(async () => {
  if (usingPostgres()) return;
  // `npm test` built dist/ already (pretest): the runtime is made from that build.
  await run(
    process.execPath,
    [path.join(root, 'scripts', 'build-runtime.js'), runtime, '--no-build', '--prefer-offline'],
    {
      cwd: root,
      timeout: 480_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const dataDir = path.join(tmp, 'data');
  prepareDataDir(dataDir);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: runtime,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      // The image's environment (its NODE_OPTIONS, when it sets any); the in-process response cache on.
      ...(imageNodeOptionsOf(root) === null ? {} : { NODE_OPTIONS: imageNodeOptionsOf(root)! }),
      RESPONSE_CACHE_TTL_S: '5',
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DATA_DIR: dataDir,
      EXPLORER: 'graphiql',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  server.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  for (const deadline = Date.now() + 120_000; ;) {
    if (server.exitCode !== null) throw new Error(`the runtime exited with ${server.exitCode}: ${stderr}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`the runtime did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The fixes of patches/ (patches/README.md), each seen in the file it changes under `dir`. */
function expectPatched(dir: string): void {
  const patched = (file: string) => fs.readFileSync(path.join(dir, 'node_modules', file), 'utf8');
  expect(patched('@apollo/server/dist/cjs/utils/makeGatewayGraphQLRequestContext.js')).toContain(
    'class GatewayResponseHTTP',
  );
  expect(patched('@apollo/server/dist/cjs/requestPipeline.js')).toContain('/deferspec/i.test(');
  expect(patched('@apollo/server/dist/cjs/requestPipeline.js')).toContain('queryHashes.get(query)');
  expect(patched('@apollo/server/dist/cjs/requestPipeline.js')).toContain('function eachListener(');
  expect(patched('@apollo/server/dist/cjs/ApolloServer.js')).toContain('singleResultContentTypes.get(acceptHeader)');
  expect(patched('@apollo/utils.createhash/dist/index.js')).toContain('nodeCrypto ??=');
  expect(patched('pg/lib/utils.js')).toContain('Object.getPrototypeOf(config) === Object.prototype');
  expect(patched('@as-integrations/fastify/build/cjs/fastify-request-to-graphql-request.js')).toContain(
    'request.url.includes("?")',
  );
  expect(patched('graphql/validation/rules/SingleFieldSubscriptionsRule.js')).toContain(
    "directive.name.value === 'skip'",
  );
  expect(patched('@fastify/swagger-ui/lib/swagger-initializer.js')).toContain(".split('?', 1)[0]");
}

describeRuntime('the slim runtime (scripts/build-runtime.js)', () => {
  it('holds only what production runs: no sources, no development dependencies, no build step', () => {
    expect(fs.readdirSync(runtime).sort()).toEqual([
      'dist',
      'node_modules',
      'package-lock.json',
      'package.json',
      'patches',
      'prisma',
    ]);
    expect(fs.readdirSync(path.join(runtime, 'dist')).sort()).toEqual(['prisma', 'src']);
    // (TypeScript and the Prisma CLI may be there: optional peers of production dependencies, which
    // --omit=dev keeps; nothing runs them.)
    for (const dev of ['jest', 'eslint', 'ts-jest', '@redocly/cli']) {
      expect([dev, fs.existsSync(path.join(runtime, 'node_modules', dev))]).toEqual([dev, false]);
    }
    // The fixes of patches/ (patches/README.md) are applied to the runtime's dependencies too.
    expectPatched(runtime);
    const scripts = JSON.parse(fs.readFileSync(path.join(runtime, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    expect(Object.values(scripts).filter((s) => /build|tsc|prisma generate/.test(s))).toEqual([]);
  });

  it('serves GraphQL', async () => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pets(first: 1) { totalCount } }' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { pets: { totalCount: 0 } } });
  });

  it('serves every file it reads at run time: the favicon and the explorer with its scripts', async () => {
    const favicon = await fetch(`${url}/favicon.ico`);
    expect(favicon.status).toBe(200);
    expect(Buffer.from(await favicon.arrayBuffer())).toEqual(
      fs.readFileSync(path.join(root, 'src', 'http', 'assets', 'favicon.ico')),
    );
    const page = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const scripts = [...(await page.text()).matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(expect.arrayContaining(['/explorer/explorer.browser.js']));
    for (const script of scripts.filter((s) => s.startsWith('/'))) {
      expect([script, (await fetch(`${url}${script}`)).status]).toEqual([script, 200]);
    }
    const browserScript = await fetch(`${url}/explorer/explorer.browser.js`);
    expect(await browserScript.text()).toBe(
      fs.readFileSync(path.join(root, 'src', 'graphql', 'explorer.browser.js'), 'utf8'),
    );
  });

  it('runs the migrate command without building (npm run db:migrate)', async () => {
    const dataDir = path.join(tmp, 'migrated');
    prepareDataDir(dataDir, 'empty');
    const { stdout } = await run('npm', ['run', '--silent', 'db:migrate'], {
      cwd: runtime,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', PGLITE_DATA_DIR: dataDir },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/^applied \d+ migration\(s\): /);
  });

  it("answers the container's health check (node dist/src/healthcheck.js on /readyz)", async () => {
    const port = new URL(url).port;
    const healthy = await run(process.execPath, ['dist/src/healthcheck.js'], { cwd: runtime, env: { PORT: port } });
    expect(healthy.stderr).toBe('');
    // Nothing listens there: exit 1, and a line saying what failed.
    const unhealthy = await run(process.execPath, ['dist/src/healthcheck.js'], {
      cwd: runtime,
      env: { PORT: String(await freePort()) },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(unhealthy).toMatchObject({ code: 1, stderr: expect.stringContaining('/readyz') });
  });

  // docs/deployment.md: `--no-install` leaves node_modules to the target host, which installs them
  // with `npm ci --omit=dev`. The fixes were applied by build-runtime.js alone, so that install ran
  // the dependencies unpatched.
  it('applies the fixes of patches/ when the target host installs it (--no-install, then npm ci --omit=dev)', async () => {
    const target = path.join(tmp, 'target');
    await run(
      process.execPath,
      [path.join(root, 'scripts', 'build-runtime.js'), target, '--no-build', '--no-install'],
      {
        cwd: root,
        timeout: 120_000,
      },
    );
    expect(fs.existsSync(path.join(target, 'node_modules'))).toBe(false);
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
      cwd: target,
      env: { ...process.env, NODE_ENV: 'production' },
      timeout: 480_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expectPatched(target);
  });
});
