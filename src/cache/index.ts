// What other folders import from cache/: the watch cache and its watchers.
export {
  WatchCache,
  type WatchCacheOptions,
  type CacheEvent,
  type CacheWatcher,
} from './watch-cache.ts';
export type { CachedObject, ObjectPredicate } from './types.ts';
export { watchFrame } from './states.ts';
export { tooLargeResourceVersion } from './errors.ts';
