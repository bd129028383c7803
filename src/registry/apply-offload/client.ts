// Server-side applies on a second thread. An apply of a large object is mostly CPU: the
// merge, managed fields, defaulting, validation and the stored JSON (~1.4 ms of the main
// thread for a 10-container Deployment), while the one thread also serves HTTP/2, commits
// and fans out. A worker thread runs that part (worker.ts) on the object the watch cache
// holds and answers the bytes to store; the main thread keeps what needs its state:
// admission, the commit at the revision read, the watch cache, the answer. Anything the
// worker does not finish (an error, a conflict, nothing to change) the main thread serves
// itself from the start, so errors come from one place, in upstream's order.
//
// The worker starts once a process has served `after` applies it could take (its modules
// take a while to load, and a server that applies little does not need it); until it is
// ready, and if it ever fails, the main thread applies.
import type { Worker } from 'node:worker_threads';
import { keptAnswers, offloadedResources, type OffloadAnswer, type OffloadedApply, type OffloadReady } from './messages.ts';

/** How long an apply waits for the worker before the main thread applies instead. */
const answerWithinMs = 10_000;

export class ApplyOffload {
  readonly #after: number;
  readonly #entry: () => URL | undefined;
  #seen = 0;
  #worker: Worker | undefined;
  #ready = false;
  #failed = false;
  #next = 0;
  #applied = 0;
  #reused = 0;
  #whenReady: Promise<boolean> | undefined;
  #settleReady: ((ready: boolean) => void) | undefined;
  readonly #pending = new Map<number, (answer: OffloadAnswer | undefined) => void>();
  /** The latest answer stored per key, and at which revision (the worker keeps the objects it wrote for as many). */
  readonly #stored = new Map<string, { answer: number; revision: number }>();

  /**
   * `after`: eligible applies the process serves itself before it starts the worker;
   * `entry`: finds the thread's module (cli/apply-worker.ts, or its build) when the worker
   * starts; undefined when there is none (the main thread applies).
   */
  constructor(after: number, entry: () => URL | undefined) {
    this.#after = after;
    this.#entry = entry;
  }

  /** Whether an apply of `group/resource` goes to the worker now (counting it towards starting one). */
  accepts(groupResource: string): boolean {
    if (this.#failed || !offloadedResources.has(groupResource)) return false;
    if (this.#worker === undefined && ++this.#seen > this.#after) this.#start();
    return this.#ready;
  }

  /** The worker's answer; undefined when it could not give one (it failed). */
  apply(request: Omit<OffloadedApply, 'id'>): Promise<OffloadAnswer | undefined> {
    const worker = this.#worker;
    if (worker === undefined || this.#failed) return Promise.resolve(undefined);
    const id = ++this.#next;
    return new Promise((resolve) => {
      // An answer that does not come is none: the main thread applies (a late one is dropped).
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve(undefined);
      }, answerWithinMs);
      const settle = (answer: OffloadAnswer | undefined) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(answer);
      };
      this.#pending.set(id, settle);
      try {
        worker.postMessage({ ...request, id } satisfies OffloadedApply);
      } catch {
        // A request that does not copy to the other thread: the main thread applies it.
        settle(undefined);
      }
    });
  }

  /** Notes that the bytes of the worker's answer `answer` were stored for `key` at `revision`. */
  stored(key: string, answer: number, revision: number): void {
    this.#stored.delete(key);
    this.#stored.set(key, { answer, revision });
    if (this.#stored.size > keptAnswers) this.#stored.delete(this.#stored.keys().next().value!);
  }

  /** The worker's answer whose bytes `key` holds at `revision`, if that state is one. */
  answerAt(key: string, revision: number): number | undefined {
    const stored = this.#stored.get(key);
    return stored?.revision === revision ? stored.answer : undefined;
  }

  /** Whether the worker has applies in hand, whose answers wait on the main thread's loop. */
  get busy(): boolean {
    return this.#pending.size > 0;
  }

  /** Applies the worker finished (tests). */
  get applied(): number {
    return this.#applied;
  }

  /** Of those, the applies that started from the object the worker kept rather than from the bytes sent (tests). */
  get reused(): number {
    return this.#reused;
  }

  /** True once the worker is ready, false if it failed; started by the next apply it may take when not yet. */
  whenReady(): Promise<boolean> {
    if (this.#ready || this.#failed) return Promise.resolve(this.#ready);
    return this.#whenReady ??= new Promise((resolve) => { this.#settleReady = resolve; });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fail();
    await worker?.terminate();
  }

  #start(): void {
    const url = this.#entry();
    if (url === undefined) {
      this.#failed = true;
      return;
    }
    // node:worker_threads loads here, with the first worker, rather than at every start.
    const worker = new (process.getBuiltinModule('node:worker_threads').Worker)(url);
    this.#worker = worker;
    // A server that stops without closing it is not kept alive by it.
    worker.unref();
    worker.on('message', (message: OffloadAnswer | OffloadReady) => {
      if ('ready' in message) {
        this.#ready = true;
        this.#settleReady?.(true);
        return;
      }
      if (message.done) {
        this.#applied++;
        if (message.reused) this.#reused++;
      }
      const resolve = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      resolve?.(message);
    });
    worker.on('error', () => this.#fail());
    worker.on('exit', () => this.#fail());
  }

  #fail(): void {
    this.#failed = true;
    this.#ready = false;
    this.#settleReady?.(false);
    for (const resolve of this.#pending.values()) resolve(undefined);
    this.#pending.clear();
  }
}
