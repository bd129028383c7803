// The etcd backend: the storage contract as a thin adapter over etcd 3.4+'s gRPC API
// (the etcd3 package's raw KV and Watch services), so several Plinth replicas can
// share one etcd cluster as kube-apiservers do. Writes are transactions comparing
// the key's revisions; reads are ranges at a revision; watches are etcd watches
// with previous values.

import { noop } from 'cockatiel';
import { Etcd3, type IKeyValue, type IWatchResponse } from 'etcd3';
import type { Backend, KeyValue, ListOptions, ListResult, PrefixChanges, PutOptions, StorageError, StorageEvent, Watch } from './backend.ts';
import { isStorageError } from './backend.ts';
import { compacted, futureRevision, keyExists, keyNotFound, refused, revisionMismatch, unavailable } from './errors.ts';
import { LeaseReuse } from './etcd-leases.ts';

export interface EtcdBackendOptions {
  /** Client URLs of the cluster's members, e.g. http://127.0.0.1:2379. */
  servers: string[];
  /**
   * Prepended to every key on the wire and stripped from keys read back, so that
   * several stores can share one cluster. Plinth's keys already start with
   * /registry, upstream's default --etcd-prefix, so the default is none.
   */
  namespace?: string;
  /** TLS to the members: `ca` verifies them (the system's CAs when absent), `cert` and `key` authenticate Plinth. */
  tls?: { ca?: Buffer | undefined; cert?: Buffer | undefined; key?: Buffer | undefined } | undefined;
  /** Events a live watcher may leave unread before its watch is ended (default 10,000). */
  watchQueueLimit?: number;
  /** Where broken watch streams are reported (they resume by themselves). */
  log?: (message: string) => void;
  /** `--lease-reuse-duration-seconds`: the longest a lease for keys with a time to live is reused (60). */
  leaseReuseSeconds?: number;
}

const DEFAULT_WATCH_QUEUE_LIMIT = 10_000;

/**
 * How long a write waits for this process's watches to receive its event before it
 * is answered anyway (the watch stream is slow or broken; it will fail on its own).
 */
const WATCH_DELIVERY_WAIT_MS = 2000;

/** The key whose version is the cluster's compaction clock, as kube-apiserver names it. */
const COMPACT_REV_KEY = 'compact_rev_key';

/** How long a call is tried again on other members (clientv3 retries a read for as long as its context allows). */
const RETRY_BUDGET_MS = 3000;
const RETRY_DELAY_MS = 25;
const RETRY_MAX_DELAY_MS = 250;

/** The backoff between attempts to resume a broken watch stream. */
const WATCH_RETRY_FIRST_MS = 50;
const WATCH_RETRY_MAX_MS = 1000;

export class EtcdBackend implements Backend {
  /**
   * etcd 3.4 before 3.4.31 (Debian's is 3.4.23) does not notify watches of progress
   * reliably, so the watch caches cannot prove they are current: consistent reads go to
   * etcd, as upstream does there. From 3.4.31 and 3.5.13 on (progressNotifyReliable),
   * the caches could serve them after a progress request, as upstream's
   * ConsistentListFromCache does; not done yet, so every version reads from etcd.
   */
  readonly consistentReadsFromStorage = true;
  /** 10,000 ConfigMaps listed in pages of 1,000: 296–443 ms; of 100: 625–646 ms (a round trip each). */
  readonly fillPageSize = 1_000;
  readonly #client: Etcd3;
  readonly #namespace: Buffer;
  readonly #queueLimit: number;
  readonly #log: ((message: string) => void) | undefined;
  /** The highest revision this process knows to be compacted (by its own compact(), or told by etcd). */
  #compacted = 0;
  readonly #watches = new Set<EtcdWatch>();
  /** The last write submitted per key: writes to one key are sent in call order. */
  readonly #lastWrite = new Map<string, Promise<unknown>>();
  readonly #pendingWrites = new Set<Promise<unknown>>();
  /** The leases of keys written with a time to live (PutOptions.ttlSeconds). */
  readonly #leases: LeaseReuse;
  #closed = false;

  constructor(opts: EtcdBackendOptions) {
    if (opts.servers.length === 0) throw new Error('the etcd backend needs at least one server URL');
    // No retries inside the client: a transaction retried after its first attempt landed
    // would answer KeyExists or RevisionMismatch for its own write. Failures surface as
    // Unavailable, and the caller (a client, a controller) retries the whole request.
    this.#client = new Etcd3({
      hosts: opts.servers,
      faultHandling: { host: () => noop, global: noop },
      // etcd3 hands these to grpc's createSsl, which takes the system's CAs for a missing root.
      ...(opts.tls === undefined ? {} : { credentials: { rootCertificate: opts.tls.ca as Buffer, privateKey: opts.tls.key, certChain: opts.tls.cert } }),
    });
    this.#namespace = Buffer.from(opts.namespace ?? '', 'utf8');
    this.#queueLimit = opts.watchQueueLimit ?? DEFAULT_WATCH_QUEUE_LIMIT;
    this.#log = opts.log;
    this.#leases = new LeaseReuse(async (ttl) => (await this.#client.leaseClient.leaseGrant({ TTL: ttl, ID: 0 })).ID, Date.now, opts.leaseReuseSeconds);
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.#checkOpen();
    const response = await this.#call(() => this.#client.kv.range({ key: this.#wire(key), revision: opts.revision ?? 0 }), opts.revision);
    const kv = response.kvs[0];
    return kv === undefined ? undefined : this.#keyValue(kv);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.#checkOpen();
    const from = this.#wire(prefix);
    const startAfter = opts.startAfter !== undefined && opts.startAfter >= prefix ? this.#wire(opts.startAfter) : undefined;
    const key = startAfter === undefined ? from : Buffer.concat([startAfter, Buffer.of(0)]);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
    // etcd counts the whole range with every answer, so `remaining` costs no second read.
    const response = await this.#call(
      () => this.#client.kv.range({ key, range_end: prefixEnd(from), limit, revision: opts.revision ?? 0 }),
      opts.revision,
    );
    const items = response.kvs.map((kv) => this.#keyValue(kv));
    const remaining = Number(response.count) - items.length;
    const revision = opts.revision !== undefined && opts.revision > 0 ? opts.revision : Number(response.header.revision);
    return { items, revision, more: remaining > 0, remaining };
  }

  create(key: string, value: Uint8Array, opts?: PutOptions): Promise<number> {
    const wire = this.#wire(key);
    const copy = Buffer.from(value);
    return this.#write(key, async (attempt) => {
      const response = await this.#client.kv.txn({
        compare: [{ key: wire, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: wire, value: copy, lease: await this.#lease(opts) } }],
        failure: [{ request_range: { key: wire } }],
      });
      if (response.succeeded) return Number(response.header.revision);
      const current = response.responses[0]?.response_range.kvs[0];
      if (attempt > 1 && landedEarlier(current, copy)) return Number(current!.mod_revision);
      throw keyExists(key);
    }, 'idempotent');
  }

  update(key: string, value: Uint8Array, expectRevision: number, opts?: PutOptions): Promise<number> {
    const wire = this.#wire(key);
    const copy = Buffer.from(value);
    return this.#write(key, async (attempt) => {
      const response = await this.#client.kv.txn({
        compare: [{ key: wire, target: 'Mod', result: 'Equal', mod_revision: expectRevision }],
        success: [{ request_put: { key: wire, value: copy, lease: await this.#lease(opts) } }],
        failure: [{ request_range: { key: wire } }],
      });
      if (response.succeeded) return Number(response.header.revision);
      const current = response.responses[0]?.response_range.kvs[0];
      if (attempt > 1 && Number(current?.mod_revision) > expectRevision && landedEarlier(current, copy)) return Number(current!.mod_revision);
      throw preconditionFailed(key, expectRevision, current);
    }, 'idempotent');
  }

  delete(key: string, expectRevision?: number): Promise<number> {
    const wire = this.#wire(key);
    return this.#write(key, async () => {
      const response = await this.#client.kv.txn({
        compare: [
          expectRevision === undefined
            ? { key: wire, target: 'Create', result: 'Greater', create_revision: 0 }
            : { key: wire, target: 'Mod', result: 'Equal', mod_revision: expectRevision },
        ],
        success: [{ request_delete_range: { key: wire } }],
        failure: [{ request_range: { key: wire } }],
      });
      if (!response.succeeded) throw preconditionFailed(key, expectRevision ?? 0, response.responses[0]?.response_range.kvs[0]);
      return Number(response.header.revision);
    });
  }

  watch(prefix: string, fromRevision: number): Watch {
    this.#checkOpen();
    const watch = new EtcdWatch(
      {
        client: this.#client,
        namespace: this.#namespace,
        queueLimit: this.#queueLimit,
        compactedRevision: () => this.#compacted,
        learnCompacted: (revision) => void (this.#compacted = Math.max(this.#compacted, revision)),
        forget: (w) => this.#watches.delete(w),
        log: this.#log,
      },
      prefix,
      fromRevision,
    );
    this.#watches.add(watch);
    return watch;
  }

  async currentRevision(): Promise<number> {
    this.#checkOpen();
    // A linearizable (not serializable) range: its header has the latest committed revision.
    const response = await this.#call(() => this.#client.kv.range({ key: this.#namespace.length > 0 ? this.#namespace : Buffer.of(0), count_only: true }));
    return Number(response.header.revision);
  }

  async changesSince(prefix: string, after: number): Promise<PrefixChanges> {
    this.#checkOpen();
    const wire = this.#wire(prefix);
    // etcd reads every key of the range to filter by revision (values dropped before they
    // travel); its count is of the whole range, before the filter.
    const response = await this.#call(() => this.#client.kv.range({ key: wire, range_end: prefixEnd(wire), keys_only: true, min_mod_revision: after + 1, limit: 1 }));
    return { revision: Number(response.header.revision), keys: Number(response.count), changed: response.kvs.length > 0 };
  }

  /** The version of the member answering (etcd's maintenance Status), e.g. "3.4.23". */
  async serverVersion(): Promise<string> {
    this.#checkOpen();
    return (await this.#call(() => this.#client.maintenance.status({ deadline: Date.now() + 2000 }))).version;
  }

  async compact(revision: number): Promise<void> {
    this.#checkOpen();
    try {
      // physical: answered once the compaction has been applied, so reads below it fail at once.
      await this.#call(() => this.#client.kv.compact({ revision, physical: true }), revision);
    } catch (err) {
      if (!isStorageError(err, 'Compacted')) throw err;
    }
    this.#compacted = Math.max(this.#compacted, revision);
  }

  /**
   * The shared compaction clock (storage/shared-compactor.ts): upstream's `compact_rev_key`
   * at the root of the keyspace, outside any prefix, as kube-apiserver keeps it (compaction
   * is the whole cluster's, whatever prefix a server uses). Its version is the time.
   */
  async advanceCompactionClock(time: number, revision: number): Promise<{ won: boolean; time: number; currentRevision: number }> {
    this.#checkOpen();
    const key = Buffer.from(COMPACT_REV_KEY);
    const response = await this.#call(() => this.#client.kv.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version: time }],
      success: [{ request_put: { key, value: Buffer.from(String(revision)) } }],
      failure: [{ request_range: { key } }],
    }), undefined, 'write');
    const currentRevision = Number(response.header.revision);
    if (response.succeeded) return { won: true, time: time + 1, currentRevision };
    return { won: false, time: Number(response.responses[0]?.response_range.kvs[0]?.version ?? 0), currentRevision };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#pendingWrites]);
    for (const watch of [...this.#watches]) watch.close();
    this.#client.close();
  }

  /**
   * Run a write after the earlier writes to the same key (so writes issued together
   * apply in call order), then wait until this process's watches on the key have its
   * event: the contract's "a watcher hears of a commit before its writer".
   */
  #write(key: string, send: (attempt: number) => Promise<number>, retry: Retry = 'write'): Promise<number> {
    if (this.#closed) return Promise.reject(unavailable('the storage backend is closed'));
    const previous = this.#lastWrite.get(key) ?? Promise.resolve();
    const result = previous.then(
      () => this.#call(send, undefined, retry),
      () => this.#call(send, undefined, retry),
    ).then(async (revision) => {
      await this.#delivered(key, revision);
      return revision;
    });
    const settled = result.catch(() => undefined);
    this.#lastWrite.set(key, settled);
    this.#pendingWrites.add(settled);
    void settled.then(() => {
      this.#pendingWrites.delete(settled);
      if (this.#lastWrite.get(key) === settled) this.#lastWrite.delete(key);
    });
    return result;
  }

  async #delivered(key: string, revision: number): Promise<void> {
    const waits = [...this.#watches].filter((w) => w.covers(key, revision)).map((w) => w.reached(revision));
    if (waits.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, WATCH_DELIVERY_WAIT_MS)));
    await Promise.race([Promise.all(waits), timeout]);
    clearTimeout(timer);
  }

  /**
   * An etcd call, with etcd's errors as StorageErrors. `revision`: the one read at, for
   * the error. Each attempt goes to a member picked at random; a failed one is tried
   * again on another as clientv3's retry interceptor does: a read (`retry: 'read'`)
   * after any Unavailable, a write only when it never left this process (no connection
   * to that member), since a write that reached etcd may have landed. An `'idempotent'`
   * write is retried like a read: its later attempts (`attempt` > 1) recognise their own
   * earlier landing, so a connection dropped mid-call does not fail it.
   */
  async #call<T>(call: (attempt: number) => Promise<T>, revision?: number, retry: Retry = 'read'): Promise<T> {
    const deadline = Date.now() + RETRY_BUDGET_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(attempt);
      } catch (err) {
        if (isStorageError(err) || this.#closed || !retriable(err, retry) || Date.now() >= deadline) return this.#failure(err, revision);
        await delay(Math.min(RETRY_MAX_DELAY_MS, RETRY_DELAY_MS * attempt));
      }
    }
  }

  /** A failed call's error as a StorageError. */
  async #failure(err: unknown, revision: number | undefined): Promise<never> {
    if (isStorageError(err)) throw err;
    const message = (err as Error).message;
    if (/required revision has been compacted/.test(message)) {
      const compactedRevision = await this.#compactedRevision();
      throw compacted(revision ?? 0, compactedRevision);
    }
    if (/required revision is a future revision/.test(message)) {
      const current = await this.currentRevision().catch(() => 0);
      throw futureRevision(revision ?? 0, current);
    }
    // etcd refusing the request itself (a value over its --max-request-bytes, a message over
    // gRPC's limit) fails alike when sent again: not "unavailable", which clients retry.
    // Worded as kube-apiserver passes them on (its etcd client's error text, a 500).
    const grpc = /^(\d+) [A-Z_]+: (.*)$/s.exec(message);
    if (grpc?.[1] === '3') throw refused(grpc[2] as string);
    if (grpc?.[1] === '8') throw refused(`rpc error: code = ResourceExhausted desc = ${(grpc[2] as string).replace('received message larger', 'trying to send message larger')}`);
    throw unavailable(`etcd: ${message}`);
  }

  /**
   * The cluster's compacted revision. etcd's range error does not carry it, but a
   * watch from revision 1 is refused with it.
   */
  async #compactedRevision(): Promise<number> {
    const stream = await this.#client.watchClient.watch();
    const learned = await new Promise<number>((resolve) => {
      const timer = setTimeout(() => resolve(0), WATCH_DELIVERY_WAIT_MS);
      stream.on('data', (response: IWatchResponse) => {
        if (response.compact_revision !== '0' || (response.created && !response.canceled)) {
          clearTimeout(timer);
          resolve(Number(response.compact_revision));
        }
      });
      stream.on('error', () => resolve(0));
      stream.write({ create_request: { key: Buffer.concat([this.#namespace, Buffer.of(0)]), start_revision: 1 } });
    });
    stream.cancel();
    this.#compacted = Math.max(this.#compacted, learned);
    return this.#compacted;
  }

  /** The lease a put is made under: none (0, which also detaches an earlier one) without a time to live. */
  async #lease(opts: PutOptions | undefined): Promise<string | number> {
    return opts?.ttlSeconds === undefined ? 0 : this.#leases.leaseFor(opts.ttlSeconds);
  }

  #wire(key: string): Buffer {
    return Buffer.concat([this.#namespace, Buffer.from(key, 'utf8')]);
  }

  #keyValue(kv: IKeyValue): KeyValue {
    return toKeyValue(kv, this.#namespace);
  }

  #checkOpen(): void {
    if (this.#closed) throw unavailable('the storage backend is closed');
  }
}

function toKeyValue(kv: IKeyValue, namespace: Buffer): KeyValue {
  return {
    key: kv.key.subarray(namespace.length).toString('utf8'),
    value: new Uint8Array(kv.value),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

/**
 * Whether a failed call may be sent again: etcd's Unavailable (a member down, no
 * leader, the leader changed) for a read; for a write only grpc's answer that no
 * connection to the member was established, so the write never reached etcd.
 */
type Retry = 'read' | 'write' | 'idempotent';

function retriable(err: unknown, kind: Retry): boolean {
  const message = (err as Error | undefined)?.message ?? '';
  if (!message.startsWith('14 UNAVAILABLE')) return false;
  return kind !== 'write' || message.includes('No connection established');
}

/**
 * Whether the key holds exactly the bytes a retried put wrote: then the attempt whose
 * answer was lost landed. Stored objects carry their uid, timestamps and managed fields,
 * so another writer's identical bytes would be the same object in the same state.
 */
function landedEarlier(current: IKeyValue | undefined, value: Buffer): boolean {
  return current !== undefined && Buffer.compare(current.value, value) === 0;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Why a compare failed, from the key's current version read in the same transaction. */
function preconditionFailed(key: string, expectRevision: number, current: IKeyValue | undefined): StorageError {
  if (current === undefined) return keyNotFound(key);
  return revisionMismatch(key, expectRevision, Number(current.mod_revision));
}

/**
 * Whether etcd `version` notifies watches of progress reliably, which consistent reads
 * from a watch cache need: from 3.4.31 and 3.5.13 (as upstream's
 * storage/feature support checker decides for RequestWatchProgress), and every later minor version.
 */
export function progressNotifyReliable(version: string): boolean {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (match === null) return false;
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

/** etcd's GetPrefixRangeEnd: the first key after every key starting with `prefix`; \0 (everything) for none. */
function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if ((prefix[i] as number) < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = (prefix[i] as number) + 1;
      return end;
    }
  }
  return Buffer.of(0);
}

interface WatchHost {
  client: Etcd3;
  namespace: Buffer;
  queueLimit: number;
  compactedRevision(): number;
  learnCompacted(revision: number): void;
  forget(watch: EtcdWatch): void;
  log?: ((message: string) => void) | undefined;
}

interface Waiter {
  resolve(result: IteratorResult<StorageEvent, undefined>): void;
  reject(err: unknown): void;
}

interface ReachWaiter {
  revision: number;
  resolve(): void;
}

const DONE: IteratorResult<StorageEvent, undefined> = { done: true, value: undefined };

type WatchStream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

/**
 * One etcd watch on its own gRPC stream. Events up to the revision etcd was at when
 * the watch was created are history: they are delivered however many there are (etcd
 * sends them in batches), and fail with Compacted if this process compacts past the
 * consumer while it is still reading them, as the other backends' catch-up does.
 * Later events are live, and a consumer that leaves more than the queue limit unread
 * sees the watch end with Unavailable.
 */
class EtcdWatch implements Watch, AsyncIterator<StorageEvent, undefined> {
  readonly #host: WatchHost;
  readonly #prefix: string;
  readonly #from: number;
  #stream: WatchStream | undefined;
  /** The revision etcd was at when it created the watch; Infinity until then. */
  #createdAt = Infinity;
  /** The last revision received from etcd. */
  #received: number;
  /** The last revision delivered to the consumer. */
  #cursor: number;
  #queue: StorageEvent[] = [];
  #ended = false;
  #failure: StorageError | undefined;
  #waiters: Waiter[] = [];
  /** Writers waiting for this watch to receive their revision. */
  #reachWaiters: ReachWaiter[] = [];
  /** Streams opened again after a break, since the last response with events or the creation. */
  #attempts = 0;
  /** Whether etcd created this watch once: later streams resume it. */
  #created = false;
  #retry: NodeJS.Timeout | undefined;
  /** The revision the current stream was opened after: etcd replays what follows it up to #createdAt. */
  #openedAfter: number;
  /** Whether every event up to #createdAt has been received (see `settled`). */
  #settled = false;
  /** What the replay must still deliver, once read (#proveReplay): its last put's revision and the keys it deletes. */
  #replay: { through: number; deletes: Set<string> } | undefined;
  /** Keys of the delete events received while the replay is unsettled. */
  #deletedInReplay = new Set<string>();

  constructor(host: WatchHost, prefix: string, fromRevision: number) {
    this.#host = host;
    this.#prefix = prefix;
    this.#from = fromRevision;
    this.#received = fromRevision;
    this.#cursor = fromRevision;
    this.#openedAfter = fromRevision;
    void this.#open();
  }

  /**
   * Whether this watch has received every event of its prefix up to the revision etcd had
   * when it (re)opened it: false while etcd replays the history written before, which
   * arrives after any read of the current revision does. A reader that counts a revision
   * read meanwhile as reached (the watch cache's progress) would count events it has not
   * seen yet. Settled once an event at or past that revision arrives, a progress
   * notification does (etcd sends those only to watches it has synced, in order with
   * their events; this watch never requests one, whose answer older members send out of
   * order), or the replay has delivered everything a read of the keys at both ends showed
   * it holds (a key created and deleted within it aside).
   */
  get settled(): boolean {
    return this.#settled;
  }

  /** Whether a write of `key` at `revision` will come through this watch and has not yet. */
  covers(key: string, revision: number): boolean {
    return !this.#ended && key.startsWith(this.#prefix) && revision > this.#received;
  }

  /** Resolves once the watch has received `revision` or ended. */
  reached(revision: number): Promise<void> {
    if (this.#ended || this.#received >= revision) return Promise.resolve();
    return new Promise((resolve) => this.#reachWaiters.push({ revision, resolve }));
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageEvent, undefined> {
    return this;
  }

  next(): Promise<IteratorResult<StorageEvent, undefined>> {
    if (this.#waiters.length === 0) {
      const ready = this.#take();
      if (ready !== undefined) return ready;
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  return(): Promise<IteratorResult<StorageEvent, undefined>> {
    this.close();
    return Promise.resolve(DONE);
  }

  close(): void {
    if (this.#ended) return;
    this.#end();
    this.#failure = undefined;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(DONE);
  }

  async #open(): Promise<void> {
    const prefix = Buffer.concat([this.#host.namespace, Buffer.from(this.#prefix, 'utf8')]);
    let stream: WatchStream;
    try {
      stream = await this.#host.client.watchClient.watch();
    } catch (err) {
      this.#reconnect(`opening the stream: ${(err as Error).message}`);
      return;
    }
    if (this.#ended) {
      stream.cancel();
      return;
    }
    this.#stream = stream;
    this.#createdAt = Infinity;
    stream.on('data', (response: IWatchResponse) => {
      if (stream === this.#stream) this.#onResponse(response);
    });
    stream.on('error', (err: Error) => {
      if (stream === this.#stream) this.#reconnect(err.message);
    });
    stream.on('end', () => {
      if (stream === this.#stream) this.#reconnect('the stream ended');
    });
    // The first time from the start revision itself (not the one after), so that etcd
    // refuses exactly when the contract says: fromRevision below the compacted revision
    // (events at fromRevision are dropped below). Resumed, from the one after the last
    // received, refused only if another compaction took what this watch still needs.
    const resumed = this.#created;
    this.#openedAfter = resumed ? this.#received : this.#from;
    this.#unsettle();
    stream.write({
      create_request: {
        key: prefix,
        range_end: prefixEnd(prefix),
        start_revision: resumed ? this.#received + 1 : Math.max(1, this.#from),
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  /**
   * The stream broke (its member went away, or the connection did): watch again from
   * the revision after the last one received, on whichever member answers, after a
   * short backoff, for as long as the watch is open. Nothing is lost or repeated: etcd
   * keeps every revision until compaction, and a compaction past this watch ends it
   * with Compacted (the consumer re-lists).
   */
  #reconnect(reason: string): void {
    if (this.#ended) return;
    this.#unsettle();
    this.#stream?.cancel();
    this.#stream = undefined;
    this.#attempts++;
    if (this.#attempts === 1) this.#host.log?.(`etcd watch on ${this.#prefix} broke (${reason}); resuming from revision ${this.#received + 1}`);
    const wait = Math.min(WATCH_RETRY_MAX_MS, WATCH_RETRY_FIRST_MS * 2 ** Math.min(this.#attempts - 1, 10));
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#ended) void this.#open();
    }, wait);
  }

  #onResponse(response: IWatchResponse): void {
    if (this.#ended) return;
    if (response.compact_revision !== '0') {
      const compactedRevision = Number(response.compact_revision);
      this.#host.learnCompacted(compactedRevision);
      this.#fail(compacted(this.#received, compactedRevision), true);
      return;
    }
    if (response.canceled) {
      // Not for compaction (answered above): the member cannot serve it now (it lost its leader); another may.
      this.#reconnect(`etcd canceled it: ${response.cancel_reason}`);
      return;
    }
    if (response.created) {
      this.#createdAt = Number(response.header.revision);
      this.#created = true;
      this.#attempts = 0;
      if (this.#openedAfter >= this.#createdAt) this.#settled = true;
      else void this.#proveReplay(this.#stream, this.#openedAfter, this.#createdAt);
    } else if (response.events.length === 0 && !this.#settled && Number(response.header.revision) >= this.#createdAt) {
      this.#settled = true;
    }
    for (const raw of response.events) {
      const event = toEvent(raw, this.#host.namespace);
      if (event.revision <= this.#received) continue;
      this.#received = event.revision;
      if (!this.#settled && event.type === 'delete') this.#deletedInReplay.add(event.kv.key);
      this.#offer(event);
      if (this.#ended) return;
    }
    if (!this.#settled) this.#settleIfReplayed();
    this.#wakeWriters();
  }

  #unsettle(): void {
    this.#settled = false;
    this.#replay = undefined;
    this.#deletedInReplay.clear();
  }

  #settleIfReplayed(): void {
    if (this.#received >= this.#createdAt) this.#settled = true;
    const replay = this.#replay;
    if (this.#settled || replay === undefined || this.#received < replay.through) return;
    for (const key of replay.deletes) if (!this.#deletedInReplay.has(key)) return;
    this.#settled = true;
  }

  /**
   * What etcd's replay of (after, at] holds, from the prefix's keys at both revisions:
   * the latest put among the keys alive at `at`, and the keys alive at `after` that are
   * gone at `at`. A read that fails (the revision compacted, etcd unreachable) leaves the
   * watch to settle by its events.
   */
  async #proveReplay(stream: WatchStream | undefined, after: number, at: number): Promise<void> {
    const { client, namespace } = this.#host;
    const prefix = Buffer.concat([namespace, Buffer.from(this.#prefix, 'utf8')]);
    const keysAt = (revision: number) => client.kv.range({ key: prefix, range_end: prefixEnd(prefix), revision, keys_only: true });
    try {
      const [before, now] = await Promise.all([keysAt(after), keysAt(at)]);
      if (stream !== this.#stream || this.#settled || this.#ended) return;
      const deletes = new Set(before.kvs.map((kv) => kv.key.subarray(namespace.length).toString('utf8')));
      let through = after;
      for (const kv of now.kvs) {
        deletes.delete(kv.key.subarray(namespace.length).toString('utf8'));
        through = Math.max(through, Number(kv.mod_revision));
      }
      this.#replay = { through, deletes };
      this.#settleIfReplayed();
    } catch {
      // Settled by the events, as without the read.
    }
  }

  #offer(event: StorageEvent): void {
    const waiter = this.#waiters.length > 0 && this.#mayDeliver(event) ? this.#waiters.shift() : undefined;
    if (waiter !== undefined) {
      this.#cursor = event.revision;
      waiter.resolve({ done: false, value: event });
      return;
    }
    this.#queue.push(event);
    if (event.revision > this.#createdAt && this.#queue.length > this.#host.queueLimit) {
      this.#fail(unavailable(`watch on ${this.#prefix} fell more than ${this.#host.queueLimit} events behind and was ended to bound memory; watch again from the last revision received`));
    } else {
      this.#drain();
    }
  }

  /** A history event is no longer deliverable once this process compacted past the consumer. */
  #mayDeliver(event: StorageEvent): boolean {
    return event.revision > this.#createdAt || this.#cursor >= this.#host.compactedRevision();
  }

  /** Hand queued events to pending next() calls (a failure the consumer must see first stops it). */
  #drain(): void {
    while (this.#waiters.length > 0) {
      const ready = this.#take();
      if (ready === undefined) return;
      const waiter = this.#waiters.shift() as Waiter;
      ready.then(waiter.resolve, waiter.reject);
    }
  }

  #take(): Promise<IteratorResult<StorageEvent, undefined>> | undefined {
    const event = this.#queue[0];
    if (event !== undefined && this.#failure === undefined && !this.#mayDeliver(event)) {
      const compactedRevision = this.#host.compactedRevision();
      this.#end();
      return Promise.reject(compacted(this.#cursor, compactedRevision));
    }
    if (event !== undefined) {
      this.#queue.shift();
      this.#cursor = event.revision;
      return Promise.resolve({ done: false, value: event });
    }
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      this.#end();
      return Promise.reject(failure);
    }
    if (this.#ended) return Promise.resolve(DONE);
    return undefined;
  }

  /**
   * End the watch with `failure`. `afterQueued`: the events already received are
   * still delivered first (etcd's answer follows them); otherwise they are dropped.
   */
  #fail(failure: StorageError, afterQueued = false): void {
    if (this.#ended) return;
    if (!afterQueued) this.#queue = [];
    this.#failure = failure;
    this.#stop();
    this.#drain();
    if (this.#queue.length === 0 && this.#failure === undefined) {
      for (const other of this.#waiters.splice(0)) other.resolve(DONE);
    }
  }

  /** Stop receiving: cancel the stream, release writers waiting on this watch. */
  #stop(): void {
    this.#ended = true;
    clearTimeout(this.#retry);
    this.#stream?.cancel();
    this.#host.forget(this);
    for (const { resolve } of this.#reachWaiters.splice(0)) resolve();
  }

  /** Stop and drop what is queued. */
  #end(): void {
    if (!this.#ended) this.#stop();
    this.#queue = [];
  }

  #wakeWriters(): void {
    if (this.#reachWaiters.length === 0) return;
    const still: ReachWaiter[] = [];
    for (const w of this.#reachWaiters) {
      if (w.revision <= this.#received) w.resolve();
      else still.push(w);
    }
    this.#reachWaiters = still;
  }
}

function toEvent(raw: IWatchResponse['events'][number], namespace: Buffer): StorageEvent {
  const revision = Number(raw.kv.mod_revision);
  const prev = raw.prev_kv ? toKeyValue(raw.prev_kv, namespace) : undefined;
  if (raw.type === 'Delete') {
    // The contract's delete carries the last value, at the delete's revision.
    const last = prev ?? { key: raw.kv.key.subarray(namespace.length).toString('utf8'), value: new Uint8Array(0), createRevision: 0, modRevision: 0 };
    return prev === undefined
      ? { type: 'delete', kv: { ...last, modRevision: revision }, revision }
      : { type: 'delete', kv: { ...last, modRevision: revision }, prev, revision };
  }
  const kv = toKeyValue(raw.kv, namespace);
  return prev === undefined ? { type: 'put', kv, revision } : { type: 'put', kv, prev, revision };
}
