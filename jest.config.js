/**
 * Jest: TypeScript through ts-jest (transpile only; `npm run typecheck` checks types), Node's
 * experimental VM modules for PGlite's dynamic WASM import, one migrated PGlite template shared by
 * every suite (test/helpers/global-setup.ts).
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  testTimeout: 60_000,
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 2,
  // A worker that ran PGlite has no handle left when told to end (its 'exit' event comes within
  // ~60 ms), but the process then takes ~0.7 s to be gone: V8 tearing down its heap and WebAssembly
  // memories. Jest's default of 500 ms force-killed it with "A worker process has failed to exit
  // gracefully". A worker that really leaks a handle never exits, and is still reported after 3 s.
  workerGracefulExitTimeout: 3000,
};
