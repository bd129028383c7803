// The errors the watch cache answers with, worded like kube-apiserver's cacher so
// that clients recognise them (client-go matches both messages).

import { gone, timeout, StatusError } from '../api/index.ts';

/**
 * 504 for a resourceVersion not reached, as upstream's storage.NewTooLargeResourceVersionError:
 * reason Timeout, the cause ResourceVersionTooLarge, and Retry-After 1 as the cacher's
 * (etcd3's store passes 0).
 */
export function tooLargeResourceVersion(requested: number | string, current: number, retryAfterSeconds = 1): StatusError {
  return timeout(`Too large resource version: ${requested}, current: ${current}`, retryAfterSeconds, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
}

/** 410 Expired for a watch from before the cache's history, as upstream's watch cache words it. */
export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return gone(`too old resource version: ${requested} (${oldest})`);
}

/** 410 for the watchers the cache ends when it re-lists from the backend: their stream has a gap. */
export function cacheReinitialized(revision: number): StatusError {
  return gone(`too old resource version: the watch cache was re-initialized from storage at revision ${revision}`);
}

/** 429 while the cache has not loaded yet, worded as upstream's cacher (KEP-4568); clients retry after a second. */
export function cacheInitializing(): StatusError {
  return new StatusError(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
}

/** For reads and waits after close(). */
export function cacheClosed(): StatusError {
  return new StatusError(503, 'ServiceUnavailable', 'the watch cache is closed');
}

