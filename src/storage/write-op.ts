// The three writes of the contract as data, and their preconditions, so both
// backends decide success or failure of a write by the same rules.

import type { KeyValue, StorageError, StorageEvent } from './backend.ts';
import { keyExists, keyNotFound, revisionMismatch } from './errors.ts';

export type WriteOp =
  | { type: 'create'; key: string; value: Uint8Array; ttlSeconds?: number | undefined }
  | { type: 'update'; key: string; value: Uint8Array; expectRevision: number; ttlSeconds?: number | undefined }
  /** `dueAt`: an expiry's delete, which applies only while the key is still due at that time (expiries.ts). */
  | { type: 'delete'; key: string; expectRevision: number | undefined; dueAt?: number };

/** Why `op` cannot apply to the key's current version `existing`, or undefined when it can. */
export function preconditionFailure(op: WriteOp, existing: KeyValue | undefined): StorageError | undefined {
  if (op.type === 'create') return existing === undefined ? undefined : keyExists(op.key);
  if (existing === undefined) return keyNotFound(op.key);
  if (op.expectRevision !== undefined && existing.modRevision !== op.expectRevision) {
    return revisionMismatch(op.key, op.expectRevision, existing.modRevision);
  }
  return undefined;
}

/**
 * The version `op` writes at `revision` over `existing` (which passed the precondition),
 * and the event it produces. A delete's event carries the last value with the
 * delete's revision, like the contract says.
 */
export function applyOp(op: WriteOp, existing: KeyValue | undefined, revision: number): { kv: KeyValue | undefined; event: StorageEvent } {
  if (op.type === 'delete') {
    const last = existing as KeyValue;
    return { kv: undefined, event: { type: 'delete', kv: { ...last, modRevision: revision }, prev: last, revision } };
  }
  const kv: KeyValue = { key: op.key, value: op.value, createRevision: existing?.createRevision ?? revision, modRevision: revision };
  const event: StorageEvent = existing === undefined ? { type: 'put', kv, revision } : { type: 'put', kv, prev: existing, revision };
  return { kv, event };
}
