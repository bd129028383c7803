// Time as the controller runtime sees it. Retries and delayed requeues go through a
// Clock so that tests drive them with a fake one instead of waiting.

/** A scheduled callback that can be called off. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Calls `fn` once after `ms` milliseconds, unless cancelled first. */
  setTimer(ms: number, fn: () => void): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

/** Resolves after `ms` on `clock`; `cancel` settles it early. */
export function sleep(clock: Clock, ms: number): { done: Promise<void>; cancel(): void } {
  let wake!: () => void;
  const done = new Promise<void>((resolve) => (wake = resolve));
  const timer = clock.setTimer(ms, wake);
  return {
    done,
    cancel() {
      timer.cancel();
      wake();
    },
  };
}
