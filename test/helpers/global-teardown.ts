import fs from 'node:fs';

/** Stops the run's PgBouncer and removes the run's directory (global-setup.ts). */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { petstorePgBouncer?: { stop(): Promise<void> } }).petstorePgBouncer?.stop();
  const dir = process.env.PETSTORE_TEST_RUN_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
