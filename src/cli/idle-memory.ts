// Gives the memory of a burst back once the server has gone quiet.
//
// V8 collects garbage when allocation asks for it. After a burst of work (a thousand
// applies, a namespace of objects created and deleted) the heap it grew stays: old-generation
// pages that now hold garbage and a full young generation, until the next burst. V8's own
// memory reducer would shrink it, but it starts only when it measures a low allocation rate,
// and it measures at garbage collections, which an idle process does not have: in Node it
// finds the rate "high" for ever (`--trace-memory-reducer`). So a server idling after a
// burst kept ~350 MiB where ~220 would do.
//
// This watches the event loop's utilization; once it has been low for a few seconds and the
// heap has grown since the last time, it runs one full, compacting collection that also
// shrinks the young generation and hands empty pages back (V8's "last resort" collection).
// That pauses the loop (~50–250 ms for a 40 MiB live heap on a slow machine), which is why it
// waits for quiet, runs once per burst and at most every 30 s.
import { performance } from 'node:perf_hooks';

export interface IdleMemoryOptions {
  /** Between samples of the loop's utilization. */
  intervalMs: number;
  /** A sample is quiet when the loop was busy less than this share of it. */
  quietUtilization: number;
  /** Quiet samples in a row before collecting. */
  quietSamples: number;
  /** Collect only once the heap has grown this much above its size after the last collection. */
  growthBytes: number;
  /** At least this long between collections. */
  minGapMs: number;
}

export const defaultIdleMemoryOptions: IdleMemoryOptions = {
  intervalMs: 1_000,
  quietUtilization: 0.05,
  quietSamples: 3,
  growthBytes: 32 * 1024 * 1024,
  minGapMs: 30_000,
};

/** What the policy reads of the process at each sample. */
export interface IdleMemorySample {
  /** The loop's busy share since the previous sample, 0 to 1. */
  utilization: number;
  /** Committed heap: V8's heap and the memory its objects hold outside it (buffers). */
  heapBytes: number;
  now: number;
}

/** The decision alone: fed one sample per interval, it says when to collect. */
export class IdleMemoryPolicy {
  readonly #options: IdleMemoryOptions;
  #quiet = 0;
  #baseline: number;
  #lastCollection = -Infinity;

  constructor(initialHeapBytes: number, options: IdleMemoryOptions = defaultIdleMemoryOptions) {
    this.#options = options;
    this.#baseline = initialHeapBytes;
  }

  /** Whether to collect now. */
  sample({ utilization, heapBytes, now }: IdleMemorySample): boolean {
    this.#quiet = utilization < this.#options.quietUtilization ? this.#quiet + 1 : 0;
    // A heap that shrank on its own (V8 did collect) is the new floor to grow from.
    this.#baseline = Math.min(this.#baseline, heapBytes);
    return this.#quiet >= this.#options.quietSamples
      && heapBytes - this.#baseline >= this.#options.growthBytes
      && now - this.#lastCollection >= this.#options.minGapMs;
  }

  /** After a collection: the heap it left is the floor, and the quiet count starts over. */
  collected(heapBytes: number, now: number): void {
    this.#baseline = heapBytes;
    this.#lastCollection = now;
    this.#quiet = 0;
  }
}

export interface IdleMemoryRelease {
  /** Collections run so far. */
  readonly collections: number;
  stop(): void;
}

/** What one collection did: committed heap before and after, and how long the loop paused. */
export interface IdleCollection {
  beforeBytes: number;
  afterBytes: number;
  pauseMs: number;
}

export interface IdleMemoryHooks {
  /** After each collection. */
  onCollection?(collection: IdleCollection): void;
  /** The collection could not be had or failed: the release stops, the server goes on. */
  onFailure?(err: Error): void;
  /** Makes the collector (tests give their own); V8's full collection by default. */
  collector?(): () => void;
}

/** Samples this process every interval and collects when the policy says so. */
export function startIdleMemoryRelease(options: IdleMemoryOptions = defaultIdleMemoryOptions, hooks: IdleMemoryHooks = {}): IdleMemoryRelease {
  // Taken at the first collection: a server that never has a burst never makes the context.
  let collect: (() => void) | undefined;
  const heapBytes = () => {
    const usage = process.memoryUsage();
    return usage.heapTotal + usage.external;
  };
  const policy = new IdleMemoryPolicy(heapBytes(), options);
  let previous = performance.eventLoopUtilization();
  let collections = 0;
  const timer = setInterval(() => {
    const current = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(current, previous);
    previous = current;
    const beforeBytes = heapBytes();
    const start = performance.now();
    if (!policy.sample({ utilization, heapBytes: beforeBytes, now: start })) return;
    try {
      collect ??= (hooks.collector ?? fullCollection)();
      collect();
    } catch (err) {
      // A Node that refuses the flag or the call: give up on it rather than fail the process.
      clearInterval(timer);
      hooks.onFailure?.(err as Error);
      return;
    }
    collections++;
    const afterBytes = heapBytes();
    const end = performance.now();
    policy.collected(afterBytes, end);
    hooks.onCollection?.({ beforeBytes, afterBytes, pauseMs: end - start });
    // The collection's own pause is not the next sample's work.
    previous = performance.eventLoopUtilization();
  }, options.intervalMs);
  timer.unref();
  return {
    get collections() { return collections; },
    stop: () => clearInterval(timer),
  };
}

/**
 * V8's full collection that compacts, shrinks the young generation and releases empty
 * pages. Node offers it only as `gc()` under `--expose-gc`: the flag is turned on just
 * long enough to take the function from a fresh context, so no other code sees a `gc`.
 * node:v8 and node:vm load here, at the first collection, rather than at every start.
 */
function fullCollection(): () => void {
  const exposed = (globalThis as { gc?: (options?: object) => void }).gc;
  let gc = exposed;
  if (gc === undefined) {
    const v8 = process.getBuiltinModule('node:v8');
    const { runInNewContext } = process.getBuiltinModule('node:vm');
    v8.setFlagsFromString('--expose-gc');
    try {
      gc = runInNewContext('gc') as (options?: object) => void;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  }
  const collector = gc;
  return () => collector({ type: 'major', flavor: 'last-resort' });
}
