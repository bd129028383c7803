// The storage of one served version of a CRD whose versions convert by webhook: a Backend
// decorator that writes objects in the CRD's storage version and reads them in the served
// version, calling the webhook for those stored in another (a list's in one review). Each
// served version has its own (its Store and watch cache read through it), as upstream's
// storage of each version converts with its own codec.
//
// Reads that cannot convert fail with upstream's error (500, the converter's message, no
// reason) and writes with an internal error; a watch whose event cannot convert ends, and its
// watch cache lists again, backing off while the webhook keeps failing. Deletions' events
// pass unconverted: readers take a deleted object's last state from what they hold.

import type { KubeObject } from '../../api/index.ts';
import { internalError, unclassifiedError } from '../../api/errors.ts';
import { StorageError, type Backend, type KeyValue, type ListOptions, type ListResult, type PutOptions, type StorageEvent, type Watch } from '../../storage/backend.ts';
import { ConversionError } from './conversion-webhook.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The most bytes of stored objects one ConversionReview carries (a larger object goes alone). */
export const reviewBytes = 1024 * 1024;

/** Converted writes kept for their writers' readBack at most. */
const writtenKept = 256;

/** The object a stored value holds; undefined when it is not one (left for the Store to report). */
function objectOf(kv: KeyValue): KubeObject | undefined {
  if (kv.transformError !== undefined) return undefined;
  try {
    const obj = JSON.parse(decoder.decode(kv.value)) as unknown;
    return obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? obj as KubeObject : undefined;
  } catch {
    return undefined;
  }
}

/** What converts objects between versions (WebhookConverter); fails with ConversionError. */
export interface ObjectConverter {
  convert(objects: KubeObject[], desiredAPIVersion: string, asList: boolean): Promise<KubeObject[]>;
}

export class ConvertingBackend implements Backend {
  readonly #inner: Backend;
  readonly #converter: ObjectConverter;
  readonly #servedVersion: string;
  readonly #storageVersion: string;
  readonly #watches = new Set<ConvertingWatch>();
  /** The last value written converted under each key, until its writer reads it back (readBack). */
  readonly #written = new Map<string, { revision: number; value: Uint8Array }>();

  /** `servedVersion` and `storageVersion` are apiVersions ("group/version"). */
  constructor(inner: Backend, converter: ObjectConverter, servedVersion: string, storageVersion: string) {
    this.#inner = inner;
    this.#converter = converter;
    this.#servedVersion = servedVersion;
    this.#storageVersion = storageVersion;
  }

  /**
   * Consistent reads convert what storage holds now, as upstream's reads from etcd do: a
   * cache whose conversions fail keeps what it had, and would answer that or wait.
   */
  get consistentReadsFromStorage(): boolean {
    return true;
  }

  get fillPageSize(): number | undefined {
    return this.#inner.fillPageSize;
  }

  /**
   * The values in the served version; those that are not objects, or are in it already, as
   * they are. A page's objects go to the webhook together, in reviews of at most
   * `reviewBytes` of objects (one larger object alone), so that neither a review nor its
   * answer grows with the page.
   */
  async #read(kvs: KeyValue[]): Promise<KeyValue[]> {
    const objects = kvs.map(objectOf);
    const batches: Array<{ at: number[]; objects: KubeObject[]; bytes: number }> = [];
    objects.forEach((obj, i) => {
      if (obj === undefined || obj.apiVersion === this.#servedVersion) return;
      const size = kvs[i]!.value.byteLength;
      let batch = batches.at(-1);
      if (batch === undefined || (batch.objects.length > 0 && batch.bytes + size > reviewBytes)) batches.push(batch = { at: [], objects: [], bytes: 0 });
      batch.at.push(i);
      batch.objects.push(obj);
      batch.bytes += size;
    });
    if (batches.length === 0) return kvs;
    const out = [...kvs];
    for (const batch of batches) {
      let converted: KubeObject[];
      try {
        converted = await this.#converter.convert(batch.objects, this.#servedVersion, batch.objects.length > 1);
      } catch (err) {
        throw err instanceof ConversionError ? unclassifiedError(err.message) : err;
      }
      batch.at.forEach((i, n) => {
        out[i] = { ...kvs[i]!, value: encoder.encode(JSON.stringify(converted[n])) };
      });
    }
    return out;
  }

  /** A value to write, in the storage version. */
  async #write(value: Uint8Array): Promise<Uint8Array> {
    const obj = objectOf({ key: '', value, createRevision: 0, modRevision: 0 });
    if (obj === undefined || obj.apiVersion === this.#storageVersion) return value;
    try {
      const [stored] = await this.#converter.convert([obj], this.#storageVersion, false);
      return encoder.encode(JSON.stringify(stored));
    } catch (err) {
      throw err instanceof ConversionError ? internalError(err.message) : err;
    }
  }

  /** Keeps a converted write's stored value for its writer's readBack (a few, should a writer not ask). */
  #remember(key: string, revision: number, stored: Uint8Array, value: Uint8Array): number {
    if (stored === value) return revision;
    this.#written.delete(key);
    this.#written.set(key, { revision, value: stored });
    if (this.#written.size > writtenKept) this.#written.delete(this.#written.keys().next().value!);
    return revision;
  }

  /**
   * The object just written under `key` at `revision`, read back from its stored form in
   * the served version, as upstream answers a write (its storage decodes what it wrote):
   * what the webhook changed on the way shows in the answer. Undefined when that write
   * needed no conversion (or is not the last one here).
   */
  async readBack(key: string, revision: number): Promise<KeyValue | undefined> {
    const written = this.#written.get(key);
    if (written === undefined || written.revision !== revision) return undefined;
    this.#written.delete(key);
    const [kv] = await this.#read([{ key, value: written.value, createRevision: revision, modRevision: revision }]);
    return kv;
  }

  /**
   * A dry run's object as its real write would be answered: converted to the storage
   * version and back, nothing stored (upstream's dry-run storage encodes and decodes it so).
   * Undefined when it is in the storage version already.
   */
  async throughStorage(obj: KubeObject): Promise<KeyValue | undefined> {
    const value = encoder.encode(JSON.stringify(obj));
    const stored = await this.#write(value);
    if (stored === value) return undefined;
    const [kv] = await this.#read([{ key: '', value: stored, createRevision: 0, modRevision: 0 }]);
    return kv;
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.#inner.get(key, opts);
    return kv === undefined ? undefined : (await this.#read([kv]))[0];
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const result = await this.#inner.list(prefix, opts);
    return { ...result, items: await this.#read(result.items) };
  }

  async create(key: string, value: Uint8Array, opts?: PutOptions): Promise<number> {
    const stored = await this.#write(value);
    return this.#remember(key, await this.#inner.create(key, stored, opts), stored, value);
  }

  async update(key: string, value: Uint8Array, expectRevision: number, opts?: PutOptions): Promise<number> {
    const stored = await this.#write(value);
    return this.#remember(key, await this.#inner.update(key, stored, expectRevision, opts), stored, value);
  }

  delete(key: string, expectRevision?: number): Promise<number> {
    return this.#inner.delete(key, expectRevision);
  }

  watch(prefix: string, fromRevision: number): Watch {
    const watch = new ConvertingWatch(this.#inner.watch(prefix, fromRevision), (kvs) => this.#read(kvs), () => this.#watches.delete(watch));
    this.#watches.add(watch);
    return watch;
  }

  /**
   * The backend's current revision, once every open watch has converted the events up to
   * it: a watch cache counts the revision as reached when it has applied what its watch
   * queued by then (the Backend contract), and conversion makes events arrive later.
   */
  async currentRevision(): Promise<number> {
    const revision = await this.#inner.currentRevision();
    // The inner watches queued their events up to `revision` as it became current; a turn
    // of the loop later each watch here has taken them, and then waits for their conversion.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([...this.#watches].map((w) => w.converted()));
    return revision;
  }

  /** The inner backend's: no event of the prefix in between means none to convert either. */
  get changesSince(): Backend['changesSince'] {
    return this.#inner.changesSince?.bind(this.#inner);
  }

  compact(revision: number): Promise<void> {
    return this.#inner.compact(revision);
  }

  /** The inner backend is shared with every other resource: it stays open. */
  async close(): Promise<void> {}
}

/** Events a converting watch holds for its consumer at most, as the backends' watches bound theirs. */
export const convertingQueueLimit = 10_000;

/**
 * A watch whose put events are converted, in order, as they arrive from the inner watch
 * (not when its consumer asks), so that `converted()` can tell when those taken so far
 * are ready. An event that cannot convert ends the watch with the error; a consumer that
 * falls more than `convertingQueueLimit` events behind, with `Unavailable`, as a backend's
 * watch ends (its reader watches again from the last revision it applied).
 */
class ConvertingWatch implements Watch {
  readonly #inner: Watch;
  readonly #read: (kvs: KeyValue[]) => Promise<KeyValue[]>;
  readonly #closed: () => void;
  /** The last event taken, converted (or failed); resolves when all taken before it are too. */
  #tail: Promise<unknown> = Promise.resolve();
  readonly #ready: Array<Promise<StorageEvent>> = [];
  #waiting: (() => void) | undefined;
  #done = false;
  #failure: { error: unknown } | undefined;

  get settled(): boolean | undefined {
    return this.#inner.settled;
  }

  constructor(inner: Watch, read: (kvs: KeyValue[]) => Promise<KeyValue[]>, closed: () => void) {
    this.#inner = inner;
    this.#read = read;
    this.#closed = closed;
    void this.#pump();
  }

  async #pump(): Promise<void> {
    try {
      for await (const event of this.#inner) {
        if (this.#done) return;
        if (this.#ready.length >= convertingQueueLimit) {
          throw new StorageError('Unavailable', `watch fell more than ${convertingQueueLimit} events behind its conversions and was ended to bound memory; watch again from the last revision received`);
        }
        const converted = event.type !== 'put'
          ? Promise.resolve(event)
          : this.#read([event.kv]).then(([kv]) => ({ type: event.type, kv: kv!, revision: event.revision }));
        converted.catch(() => {});
        this.#ready.push(converted);
        // Conversions run side by side; the tail waits for this one and every one before it.
        this.#tail = Promise.all([this.#tail, converted.catch(() => {})]);
        this.#wake();
      }
    } catch (error) {
      this.#failure = { error };
      this.#inner.close();
    }
    this.#done = true;
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  /** Resolves once the events taken so far are converted (or failed). */
  converted(): Promise<unknown> {
    return this.#tail;
  }

  close(): void {
    if (!this.#done) {
      this.#done = true;
      this.#inner.close();
    }
    this.#closed();
    this.#wake();
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
    return {
      next: async (): Promise<IteratorResult<StorageEvent>> => {
        for (;;) {
          const first = this.#ready.shift();
          if (first !== undefined) {
            try {
              return { done: false, value: await first };
            } catch (err) {
              this.close();
              throw err;
            }
          }
          if (this.#failure !== undefined) {
            const { error } = this.#failure;
            this.#failure = undefined;
            this.close();
            throw error;
          }
          if (this.#done) {
            this.close();
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => (this.#waiting = resolve));
        }
      },
      return: async (): Promise<IteratorResult<StorageEvent>> => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }
}
