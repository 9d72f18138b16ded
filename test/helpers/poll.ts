/**
 * Polls `read` until `done` holds or `withinMs` has passed, and returns the last value read, for
 * what happens soon but not synchronously (a notification crossing PostgreSQL to another
 * connection). The caller asserts on the value, so a timeout fails with what was last seen.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, withinMs = 5_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    value = await read();
  }
  return value;
}
