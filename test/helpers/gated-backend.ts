// A MemoryBackend whose lists of chosen prefixes can be held back or made to fail,
// to stand in for storage that is slow to read a large collection (tests of loading).
import { MemoryBackend, StorageError, type ListOptions, type ListResult } from '../../src/storage/index.ts';

interface Hold {
  /** Lists of the prefix let through before the hold applies. */
  after: number;
  released: PromiseWithResolvers<void>;
}

export class GatedBackend extends MemoryBackend {
  readonly #holds = new Map<string, Hold>();
  readonly #calls = new Map<string, number>();
  /** Lists (of any prefix) that fail with Unavailable before lists work again. */
  failingLists = 0;

  /** Lists of exactly `prefix` wait for release(prefix), after the first `after` of them. */
  hold(prefix: string, after = 0): void {
    this.#holds.set(prefix, { after: (this.#calls.get(prefix) ?? 0) + after, released: Promise.withResolvers() });
  }

  release(prefix: string): void {
    this.#holds.get(prefix)?.released.resolve();
    this.#holds.delete(prefix);
  }

  /** How many lists of exactly `prefix` were asked for. */
  listCalls(prefix: string): number {
    return this.#calls.get(prefix) ?? 0;
  }

  override async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const call = this.#calls.get(prefix) ?? 0;
    this.#calls.set(prefix, call + 1);
    const hold = this.#holds.get(prefix);
    if (hold !== undefined && call >= hold.after) await hold.released.promise;
    if (this.failingLists > 0) {
      this.failingLists--;
      throw new StorageError('Unavailable', 'injected list failure');
    }
    return super.list(prefix, opts);
  }
}
