/**
 * The helper that starts the service as a real process (test/helpers/server-process.ts): a port that
 * freePort found free may be taken by another test's process before the child listens, and that
 * process then answers the health check. The helper must hand back its own child, on another port.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { freePort, listenedOnBy, startServerProcess } from '../helpers/server-process';

jest.setTimeout(120_000);

const onLinux = fs.existsSync('/proc/net/tcp') ? it : it.skip;

describe('startServerProcess', () => {
  onLinux('tells which process listens on a port (this one, not another)', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(listenedOnBy(process.pid, port)).toBe(true);
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
      try {
        expect(listenedOnBy(other.pid!, port)).toBe(false);
      } finally {
        other.kill();
      }
      expect(listenedOnBy(process.pid, await freePort())).toBe(false);
      // A process already gone holds nothing (it was "cannot tell": a decoy then passed for it).
      const gone = spawn(process.execPath, ['-e', '0']);
      await new Promise((resolve) => gone.once('exit', resolve));
      expect(listenedOnBy(gone.pid!, port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  onLinux('starts on another port when the one it picked is taken by a process that answers /healthz too', async () => {
    // Another process's server, answering the health check as the gateway does.
    const decoy = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
    );
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    const taken = (decoy.address() as AddressInfo).port;
    const ports = [taken];
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-port-'));
    const server = await startServerProcess(
      { PGLITE_DATA_DIR: dataDir },
      { pickPort: async () => ports.shift() ?? freePort() },
    );
    try {
      const port = Number(new URL(server.url).port);
      expect(port).not.toBe(taken);
      expect(listenedOnBy(server.child.pid!, port)).toBe(true);
      // The gateway itself answers there (the decoy has no GraphQL).
      const answer = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(await answer.json()).toEqual({ data: { __typename: 'Query' } });
    } finally {
      await server.stop();
      await new Promise((resolve) => decoy.close(resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
