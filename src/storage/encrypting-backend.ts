// A Backend decorator that transforms values on their way to and from another backend
// (encryption at rest), so that every backend encrypts the same way.
import { StorageError, type Backend, type KeyValue, type ListOptions, type ListResult, type PutOptions, type StorageEvent, type Watch } from './backend.ts';
import type { ValueTransformer } from './value-transformers.ts';

/** The transformer for a key; undefined: the value is stored as it is. */
export type TransformerForKey = (key: string) => ValueTransformer | undefined;

/**
 * Writes go through the key's transformer (toStorage); reads, lists and watch events
 * (their value and previous value) through its fromStorage. A value that cannot be read is
 * answered as stored with `transformError` set (the Backend contract's corrupt value),
 * never as a failed call, so that one such value does not fail a list or a watch.
 */
export class EncryptingBackend implements Backend {
  readonly #inner: Backend;
  readonly #transformerFor: TransformerForKey;

  constructor(inner: Backend, transformerFor: TransformerForKey) {
    this.#inner = inner;
    this.#transformerFor = transformerFor;
  }

  /** The inner backend's: encryption changes nothing about where consistent reads must go. */
  get consistentReadsFromStorage(): boolean | undefined {
    return this.#inner.consistentReadsFromStorage;
  }

  get fillPageSize(): number | undefined {
    return this.#inner.fillPageSize;
  }

  /** A transformer that cannot write (a key service not reached yet) fails the write as upstream's storage: an internal error. */
  #write(key: string, value: Uint8Array): Uint8Array {
    const transformer = this.#transformerFor(key);
    if (transformer === undefined) return value;
    try {
      return transformer.toStorage(value, key);
    } catch (err) {
      throw new StorageError('Internal', (err as Error).message, key);
    }
  }

  #read(kv: KeyValue): KeyValue | Promise<KeyValue> {
    const transformer = this.#transformerFor(kv.key);
    if (transformer === undefined) return kv;
    const unreadable = (err: unknown): KeyValue => ({ ...kv, transformError: (err as Error).message });
    let stale = false;
    const read = (value: Uint8Array): KeyValue => (stale ? { ...kv, value, stale: true } : { ...kv, value });
    try {
      const value = transformer.fromStorage(kv.value, kv.key, () => {
        stale = true;
      });
      if (value instanceof Promise) return value.then(read, unreadable);
      return read(value);
    } catch (err) {
      return unreadable(err);
    }
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.#inner.get(key, opts);
    return kv === undefined ? undefined : this.#read(kv);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const result = await this.#inner.list(prefix, opts);
    const items = result.items.map((kv) => this.#read(kv));
    // Only values whose key had to be asked for wait; the rest are read already.
    return { ...result, items: items.some((kv) => kv instanceof Promise) ? await Promise.all(items) : (items as KeyValue[]) };
  }

  async create(key: string, value: Uint8Array, opts?: PutOptions): Promise<number> {
    return this.#inner.create(key, this.#write(key, value), opts);
  }

  async update(key: string, value: Uint8Array, expectRevision: number, opts?: PutOptions): Promise<number> {
    return this.#inner.update(key, this.#write(key, value), expectRevision, opts);
  }

  delete(key: string, expectRevision?: number): Promise<number> {
    return this.#inner.delete(key, expectRevision);
  }

  watch(prefix: string, fromRevision: number): Watch {
    const inner = this.#inner.watch(prefix, fromRevision);
    const readEvent = async (event: StorageEvent): Promise<StorageEvent> => {
      const out: StorageEvent = { type: event.type, kv: await this.#read(event.kv), revision: event.revision };
      if (event.prev !== undefined) out.prev = await this.#read(event.prev);
      return out;
    };
    return {
      close: () => inner.close(),
      get settled() {
        return inner.settled;
      },
      [Symbol.asyncIterator]() {
        const iterator = inner[Symbol.asyncIterator]();
        return {
          async next() {
            const result = await iterator.next();
            return result.done === true ? result : { done: false, value: await readEvent(result.value) };
          },
          async return() {
            inner.close();
            return (await iterator.return?.()) ?? { done: true, value: undefined };
          },
        };
      },
    };
  }

  currentRevision(): Promise<number> {
    return this.#inner.currentRevision();
  }

  get currentRevisionNow(): (() => number) | undefined {
    return this.#inner.currentRevisionNow;
  }

  get changesSince(): Backend['changesSince'] {
    return this.#inner.changesSince?.bind(this.#inner);
  }

  compact(revision: number): Promise<void> {
    return this.#inner.compact(revision);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
