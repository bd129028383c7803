// NodePort allocation that every replica sharing the storage agrees on: one RangeAllocation
// record (kind RangeAllocation, v1: `range` and a `data` bitmap) at upstream's key, read,
// changed and written back with compare-and-swap, so that two replicas allocating at the
// same moment cannot both win (kubernetes pkg/registry/core/service/allocator/storage and
// portallocator). As upstream's Etcd allocator, this replica's allocations run one at a
// time over its last copy of the record; a write that another replica's write beat is
// done again over the record read anew.

import { internalError, type KubeObject } from '../../api/index.ts';
import { isStorageError, type Backend } from '../../storage/backend.ts';
import { decodeFromStorage, encodeForStorage } from '../codec.ts';
import { AllocationError, rangeOffset, type PortRange } from './service-ranges.ts';

/** kube-apiserver's key for the node port record ("/ranges/servicenodeports" under the etcd prefix). */
export const nodePortsKey = '/registry/ranges/servicenodeports';

/** A write that loses to other replicas this many times in a row fails (upstream's GuaranteedUpdate would go on). */
const maxAttempts = 100;

/** The record as last read or written; `modRevision` 0 when there is none in storage. */
interface Snapshot {
  modRevision: number;
  range: string;
  used: Set<number>;
}

/** upstream's bitmap as big.Int.Bytes(): big-endian, bit i for the range's i-th port, no leading zero bytes. */
function encodeBitmap(used: Set<number>, range: PortRange): string {
  let highest = -1;
  for (const port of used) highest = Math.max(highest, port - range.base);
  if (highest < 0) return '';
  const bytes = new Uint8Array((highest >> 3) + 1);
  for (const port of used) {
    const offset = port - range.base;
    bytes[bytes.length - 1 - (offset >> 3)]! |= 1 << (offset & 7);
  }
  return Buffer.from(bytes).toString('base64');
}

function decodeBitmap(data: string, range: PortRange): Set<number> {
  const bytes = Buffer.from(data, 'base64');
  const used = new Set<number>();
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[bytes.length - 1 - i]!;
    for (let bit = 0; bit < 8; bit++) {
      const offset = i * 8 + bit;
      if ((byte & (1 << bit)) !== 0 && offset < range.size) used.add(range.base + offset);
    }
  }
  return used;
}

/**
 * The node ports one transaction sees and changes. Dynamic ports come sequentially from
 * past a low band left for requested ones (upstream picks randomly in the same upper band),
 * so results are deterministic.
 */
export class PortDraft {
  readonly range: PortRange;
  readonly used: Set<number>;
  private readonly offset: number;
  /** Whether the draft differs from what was read: only then is it written. */
  changed = false;

  constructor(range: PortRange, offset: number, used: Set<number>) {
    this.range = range;
    this.offset = offset;
    this.used = used;
  }

  has(port: number): boolean {
    return this.used.has(port);
  }

  /** Takes a requested port; throws AllocationError when it is outside the range or taken. */
  reserve(port: number): void {
    if (!Number.isInteger(port) || port < this.range.base || port >= this.range.base + this.range.size) {
      throw new AllocationError(`provided port is not in the valid range. The range of valid ports is ${this.range.text}`);
    }
    if (this.used.has(port)) throw new AllocationError('provided port is already allocated');
    this.used.add(port);
    this.changed = true;
  }

  /** Takes the next free port: the upper band from the offset, then the lower band. */
  next(): number {
    if (this.used.size < this.range.size) {
      for (const [from, to] of [[this.offset, this.range.size], [0, this.offset]] as const) {
        for (let i = from; i < to; i++) {
          const port = this.range.base + i;
          if (!this.used.has(port)) {
            this.used.add(port);
            this.changed = true;
            return port;
          }
        }
      }
    }
    throw new AllocationError('range is full');
  }

  release(port: number): void {
    if (this.used.delete(port)) this.changed = true;
  }

  /** Records a port a stored Service holds (restore); one outside the range is left out. */
  adopt(port: number): void {
    if (!Number.isInteger(port) || port < this.range.base || port >= this.range.base + this.range.size || this.used.has(port)) return;
    this.used.add(port);
    this.changed = true;
  }
}

export interface TransactOptions {
  /** Run `change` over the stored record but write nothing. */
  dryRun?: boolean;
  /** A record of another range (the flag changed) is started afresh instead of refused. */
  rebuild?: boolean;
}

/** The node port range's allocations, kept in storage for every replica. */
export class NodePortAllocator {
  readonly range: PortRange;
  private readonly offset: number;
  private readonly backend: Backend;
  private cached: Snapshot | undefined;
  /** This replica's transactions, one at a time (upstream's lock in its Etcd allocator). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(range: PortRange, backend: Backend) {
    this.range = range;
    this.offset = Number(rangeOffset(BigInt(range.size), 16n, 128n, 32n));
    this.backend = backend;
  }

  /** Whether storage records the port as allocated (a read, not this replica's copy). */
  async isAllocated(port: number): Promise<boolean> {
    return (await this.read()).used.has(port);
  }

  /**
   * Runs `change` over a draft of the stored record and writes the draft back if it changed,
   * compared and swapped at the revision read. `change` must be synchronous and leave its
   * effects in the draft and its result only: it runs again, on a new draft, when the copy
   * it ran on was stale (another replica wrote since), and when it threw or changed nothing
   * over a copy not just read (a port it found taken may have been released since).
   */
  transact<T>(change: (draft: PortDraft) => T, opts: TransactOptions = {}): Promise<T> {
    const run = this.queue.then(() => this.transactNow(change, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async transactNow<T>(change: (draft: PortDraft) => T, opts: TransactOptions): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const fresh = this.cached === undefined || opts.dryRun === true;
      const snapshot = fresh ? await this.read() : this.cached!;
      const sameRange = snapshot.modRevision === 0 || snapshot.range === this.range.text;
      if (!sameRange && !opts.rebuild) {
        throw internalError(`failed to allocate a nodePort: the provided range (${this.range.text}) does not match the current range (${snapshot.range})`);
      }
      const draft = new PortDraft(this.range, this.offset, sameRange ? new Set(snapshot.used) : new Set());
      let result: T;
      try {
        result = change(draft);
      } catch (err) {
        if (fresh) throw err;
        this.cached = undefined;
        continue;
      }
      if (opts.dryRun) return result;
      if (!draft.changed && (sameRange || snapshot.modRevision === 0)) {
        // Nothing to write decided on a copy that may be stale (a port another replica took
        // since looks free to release) holds only once the record is read.
        if (fresh) return result;
        this.cached = undefined;
        continue;
      }
      const value = encodeForStorage({
        kind: 'RangeAllocation', apiVersion: 'v1', metadata: {}, range: this.range.text, data: encodeBitmap(draft.used, this.range),
      } as KubeObject);
      try {
        const revision = snapshot.modRevision === 0
          ? await this.backend.create(nodePortsKey, value)
          : await this.backend.update(nodePortsKey, value, snapshot.modRevision);
        this.cached = { modRevision: revision, range: this.range.text, used: draft.used };
        return result;
      } catch (err) {
        this.cached = undefined;
        const lost = isStorageError(err, 'RevisionMismatch') || isStorageError(err, 'KeyExists') || isStorageError(err, 'KeyNotFound');
        if (!lost) throw err;
        if (attempt >= maxAttempts) throw internalError(`failed to allocate a nodePort: the allocation record kept changing (${attempt} attempts)`);
      }
    }
  }

  /** The stored record, remembered as this replica's copy. */
  private async read(): Promise<Snapshot> {
    const kv = await this.backend.get(nodePortsKey);
    if (kv === undefined) {
      this.cached = { modRevision: 0, range: this.range.text, used: new Set() };
      return this.cached;
    }
    const record = decodeFromStorage(kv) as KubeObject & { range?: unknown; data?: unknown };
    const range = typeof record.range === 'string' ? record.range : '';
    const used = range === this.range.text && typeof record.data === 'string' ? decodeBitmap(record.data, this.range) : new Set<number>();
    const snapshot = { modRevision: kv.modRevision, range, used };
    if (range === this.range.text) this.cached = snapshot;
    return snapshot;
  }
}
