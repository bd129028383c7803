export {
  WatchCache,
  type WatchCacheOptions,
  type CachedObject,
  type CacheEvent,
  type CacheEventType,
  type CacheListOptions,
  type CacheListResult,
  type CacheWatchOptions,
  type CacheWatcher,
  type ObjectPredicate,
} from './watch-cache.ts';
export { SlowWatcherError } from './errors.ts';
