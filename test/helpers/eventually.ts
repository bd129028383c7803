// Waiting for something the server does in the background (a controller, the watch
// cache catching up, a process starting) without guessing how long it takes: the
// check runs again until it passes, and only a generous deadline turns it into a
// failure, with the check's own last error.

// Taken at load, so that a test which mocks timers (t.mock.timers) still polls in real time.
const realSetTimeout = globalThis.setTimeout;

export interface EventuallyOptions {
  /** Give up after this long (default 10 s: only reached when something is broken). */
  timeoutMs?: number;
  /** Named in the failure, e.g. "the namespace to be removed". */
  what?: string;
}

/**
 * Runs `check` until it returns without throwing, and answers what it returned.
 * `check` asserts (node:assert) what it waits for. Between tries it waits 5 ms,
 * growing to 100 ms, so a fast outcome is seen at once and a slow one is not polled hard.
 * After `timeoutMs` it throws the last error of `check`, its message prefixed with the wait.
 */
export async function eventually<T>(check: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const deadline = performance.now() + timeoutMs;
  let pause = 5;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (performance.now() >= deadline) {
        const waited = `not within ${timeoutMs} ms${opts.what === undefined ? '' : ` (${opts.what})`}`;
        if (err instanceof Error) {
          err.message = `${waited}: ${err.message}`;
          throw err;
        }
        throw new Error(`${waited}: ${String(err)}`);
      }
    }
    await new Promise((resolve) => realSetTimeout(resolve, pause));
    pause = Math.min(pause * 2, 100);
  }
}
