/**
 * The test app on a real socket (127.0.0.1, a free port), for tests that drive it with the client
 * libraries themselves (their own fetch calls, headers and body encodings), not with `inject`.
 */
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app';

export interface ListeningApp extends TestApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
}

export async function createListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  const t = await createTestApp(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { ...t, url: `http://127.0.0.1:${port}` };
}
