import type Redis from 'ioredis';

/** How often a Redis connection is asked PING. */
const HEARTBEAT_MS = 1_000;

/**
 * Asks `redis` PING every second; a connection that does not answer within its command timeout is
 * dropped and reconnected, so that a Redis that stopped answering without closing (a frozen host, a
 * dropped network path) counts as unreachable as a closed one does: requests stop waiting for it
 * (they see a connection that is not 'ready'), and it is taken back once it answers again. Returns
 * what stops the heartbeat.
 */
export function redisHeartbeat(redis: Redis): () => void {
  let asking = false;
  const timer = setInterval(() => {
    if (asking || redis.status !== 'ready') return;
    asking = true;
    redis.ping().then(
      () => {
        asking = false;
      },
      () => {
        asking = false;
        if (redis.status === 'ready') redis.disconnect(true);
      },
    );
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
