// Named constructors for the StorageErrors every backend raises, so that the
// wording and the `revision` field mean the same thing whichever backend answers.

import { StorageError } from './backend.ts';

export function keyExists(key: string): StorageError {
  return new StorageError('KeyExists', `key ${key} already exists`, key);
}

export function keyNotFound(key: string): StorageError {
  return new StorageError('KeyNotFound', `key ${key} not found`, key);
}

/** `actual` is the key's current modRevision (StorageError.revision), so callers can retry against it. */
export function revisionMismatch(key: string, expected: number, actual: number): StorageError {
  return new StorageError('RevisionMismatch', `key ${key} is at revision ${actual}, not ${expected}`, key, actual);
}

/** Like etcd's "mvcc: required revision has been compacted"; `revision` is the compacted revision. */
export function compacted(requested: number, compactedRevision: number): StorageError {
  return new StorageError('Compacted', `revision ${requested} has been compacted (compacted revision is ${compactedRevision})`, undefined, compactedRevision);
}

/** Like etcd's "mvcc: required revision is a future revision"; `revision` is the current revision. */
export function futureRevision(requested: number, currentRevision: number): StorageError {
  return new StorageError('FutureRevision', `revision ${requested} is in the future (current revision is ${currentRevision})`, undefined, currentRevision);
}

export function unavailable(message: string): StorageError {
  return new StorageError('Unavailable', message);
}

/** A failure that asking again will not mend (a value too large for the backend): answered as a plain 500. */
export function refused(message: string): StorageError {
  return new StorageError('Internal', message);
}
