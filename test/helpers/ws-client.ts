/**
 * A real graphql-ws client (the `graphql-ws` package over `ws`) for tests against a listening server:
 * subscriptions as lists that fill up, and the connection's close code and reason.
 */
import { createClient, type Client, type FormattedExecutionResult as ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';

export interface Closed {
  code: number;
  reason: string;
}

export interface TestWsClient {
  client: Client;
  /** Resolves with the close event of the first time the socket closed. */
  closed: Promise<Closed>;
  /** Resolves once the server acknowledged `connection_init`. */
  connected: Promise<void>;
  dispose(): Promise<void>;
}

export interface Subscription<T> {
  results: ExecutionResult<T, unknown>[];
  /** Errors sent as an `error` message (the subscription is over). */
  error: Promise<unknown>;
  /** Resolves when the server completed the subscription. */
  completed: Promise<void>;
  /** Resolves with the first `n` results, once there are that many. */
  take(n: number): Promise<ExecutionResult<T, unknown>[]>;
  unsubscribe(): void;
}

/** `graphql-ws` over `ws` to `url` (http:// is turned into ws://); no retries, so a close is final. */
export function connectWs(
  url: string,
  options: { connectionParams?: Record<string, unknown>; headers?: Record<string, string> } = {},
): TestWsClient {
  let onClosed!: (c: Closed) => void;
  let onConnected!: () => void;
  const closed = new Promise<Closed>((r) => (onClosed = r));
  const connected = new Promise<void>((r) => (onConnected = r));
  const headers = options.headers;
  class HeaderWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const client = createClient({
    url: url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: headers ? HeaderWebSocket : WebSocket,
    connectionParams: options.connectionParams,
    lazy: false,
    retryAttempts: 0,
    // The close is reported through `closed`; graphql-ws would otherwise also log it.
    onNonLazyError: () => undefined,
    on: {
      connected: () => onConnected(),
      closed: (event) => {
        const e = event as { code?: number; reason?: string };
        onClosed({ code: e.code ?? 0, reason: String(e.reason ?? '') });
      },
    },
  });
  return { client, closed, connected, dispose: async () => client.dispose() };
}

export function subscribe<T = Record<string, any>>(
  ws: TestWsClient,
  query: string,
  variables: Record<string, unknown> = {},
): Subscription<T> {
  const results: ExecutionResult<T, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let onError!: (e: unknown) => void;
  let onComplete!: () => void;
  const error = new Promise<unknown>((r) => (onError = r));
  const completed = new Promise<void>((r) => (onComplete = r));
  const unsubscribe = ws.client.subscribe<T>(
    { query, variables },
    {
      next: (value) => {
        results.push(value);
        for (const w of waiters.splice(0)) w();
      },
      error: (e) => onError(e),
      complete: () => onComplete(),
    },
  );
  return {
    results,
    error,
    completed,
    unsubscribe,
    async take(n) {
      while (results.length < n) await new Promise<void>((r) => waiters.push(r));
      return results.slice(0, n);
    },
  };
}

/** Resolves once `predicate` holds, checking after every tick of `interval` ms (no deadline: Jest's). */
export async function until(predicate: () => boolean | Promise<boolean>, interval = 20): Promise<void> {
  while (!(await predicate())) await new Promise((r) => setTimeout(r, interval));
}
