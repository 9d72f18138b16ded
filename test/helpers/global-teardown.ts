import fs from 'node:fs';
import path from 'node:path';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { petstorePgBouncer?: { stop(): Promise<void> } }).petstorePgBouncer?.stop();
  const file = process.env.PETSTORE_TEST_TEMPLATE;
  if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
