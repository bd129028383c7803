// Per-key exponential backoff, after client-go's ItemExponentialFailureRateLimiter:
// the n-th consecutive failure of a key waits baseMs * 2^(n-1), at most maxMs; a
// success forgets the key's failures.

export interface BackoffOptions {
  /** The delay after a key's first failure (default 5 ms, as client-go). */
  baseMs?: number;
  /**
   * The longest delay (default 1 s). client-go's controllers wait up to 1000 s; in-process
   * controllers of a server used for tests should converge soon after the trouble ends.
   */
  maxMs?: number;
}

const defaultBackoff: Required<BackoffOptions> = { baseMs: 5, maxMs: 1_000 };

export class Backoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<string, number>();

  constructor(opts: BackoffOptions = {}) {
    this.#baseMs = opts.baseMs ?? defaultBackoff.baseMs;
    this.#maxMs = opts.maxMs ?? defaultBackoff.maxMs;
  }

  /** Counts one more failure of `key` and answers how long to wait before retrying it. */
  next(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // Past 2^52 the doubling no longer matters: the cap applies.
    return Math.min(this.#maxMs, this.#baseMs * 2 ** Math.min(failures, 52));
  }

  /** The failures counted for `key` since it was last forgotten. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }
}
