// What a verb answers when its storage cannot be reached, as upstream's registry does
// (k8s.io/apiserver pkg/storage/errors: InterpretGetError, InterpretListError, ...).

import { serverTimeout, serviceUnavailable, unclassifiedError, type GroupResource, type StatusError } from '../api/index.ts';
import { isStorageError } from '../storage/backend.ts';

/** The operations upstream names in its ServerTimeout answer (details.name). */
export type StorageOperation = 'get' | 'list' | 'create' | 'update' | 'delete';

/**
 * Upstream answers an unreachable storage with NewServerTimeout(resource, operation, 2):
 * 500 ServerTimeout and Retry-After: 2 ("TODO: make configurable" upstream, so fixed).
 */
const UNREACHABLE_RETRY_AFTER_SECONDS = 2;

/** `work`, with an Unavailable storage answered as upstream's ServerTimeout for `operation`. */
export async function interpretUnreachable<T>(gr: GroupResource, operation: StorageOperation, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isStorageError(err, 'Unavailable')) throw serverTimeout(gr, operation, UNREACHABLE_RETRY_AFTER_SECONDS);
    throw err;
  }
}

/**
 * A storage error no registry path interpreted, as a Status: an unreachable storage 503, as
 * upstream's convertStorageErrorOrNot; a value that could not be prepared for storage (a
 * transformer that cannot write) 500 with its bare message and no reason, as upstream's
 * ErrorToAPIStatus answers its storage.InternalError; undefined for any other error.
 */
export function storageErrorStatus(err: unknown): StatusError | undefined {
  if (isStorageError(err, 'Unavailable')) return serviceUnavailable(err.message);
  if (isStorageError(err, 'Internal')) return unclassifiedError(err.message);
  return undefined;
}
