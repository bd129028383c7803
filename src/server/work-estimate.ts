// How many seats of its priority level a request takes, as upstream's API Priority and
// Fairness work estimator reckons it (apiserver/pkg/util/flowcontrol/request): one for most
// requests; for a list, one per hundred objects it will go through (read from the watch
// cache: every object of the resource; from storage with a limit: twice the page, or all
// of them and the page when it selects), at most the level's maximum, and as much for a
// watch that starts with its list's objects (`sendInitialEvents`); for a write, one
// while it runs, and then, when ten or more watches will be sent its event, one per ten of
// them, held 5 ms per seat after the answer (the time fanning the event out takes).
import { queryBool, type ResourceRequestInfo } from '../endpoints/request-info.ts';

export interface WorkEstimate {
  /** Seats held while the request runs. */
  initialSeats: number;
  /** Seats held after it answered, for `additionalLatencyMs`. */
  finalSeats: number;
  additionalLatencyMs: number;
}

export const oneSeat: WorkEstimate = Object.freeze({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });

/** The most seats one request takes (upstream's maximumSeatsLimit). */
export const maximumSeats = 10;
const objectsPerSeat = 100;
const watchesPerSeat = 10;
const eventAdditionalMs = 5;

/** The seats a request occupies at most over its life: what must be free to start it. */
export function maxSeatsOf(work: WorkEstimate): number {
  return Math.max(work.initialSeats, work.finalSeats);
}

/**
 * The watches open, by what they watch (upstream's watch tracker): a write's event goes to
 * the watches of its resource across the cluster, in its namespace, and of its object.
 */
export class WatchTracker {
  readonly #counts = new Map<string, number>();

  /** Counts the watch until the function returned is called. */
  register(info: ResourceRequestInfo): () => void {
    const key = watchKey(info.group, info.resource, info.namespace, info.name || info.selectedName);
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    let forgotten = false;
    return () => {
      if (forgotten) return;
      forgotten = true;
      const left = this.#counts.get(key)! - 1;
      if (left === 0) this.#counts.delete(key);
      else this.#counts.set(key, left);
    };
  }

  /** The watches a write to what the request names will send an event to. */
  interested(info: ResourceRequestInfo): number {
    if (this.#counts.size === 0) return 0;
    let count = this.#counts.get(watchKey(info.group, info.resource, '', '')) ?? 0;
    if (info.namespace !== '') count += this.#counts.get(watchKey(info.group, info.resource, info.namespace, '')) ?? 0;
    if (info.name !== '') count += this.#counts.get(watchKey(info.group, info.resource, info.namespace, info.name)) ?? 0;
    return count;
  }
}

function watchKey(group: string, resource: string, namespace: string, name: string): string {
  return `${group}\0${resource}\0${namespace}\0${name}`;
}

export interface EstimateSources {
  /** Objects stored of the resource (its watch cache's), undefined for one not kept here. */
  objectCount(group: string, resource: string): number | undefined;
  watches: WatchTracker;
}

/**
 * The request's work. `levelMaxSeats`: the most seats a request of its level may take (0:
 * the server's most); `observeWatchCount` hears how many watches a write's event goes to.
 */
export function estimateWork(info: ResourceRequestInfo, query: URLSearchParams, levelMaxSeats: number, sources: EstimateSources, observeWatchCount?: (count: number) => void): WorkEstimate {
  const maxSeats = levelMaxSeats === 0 || levelMaxSeats > maximumSeats ? maximumSeats : levelMaxSeats;
  switch (info.verb) {
    case 'list':
      return listWork(info, query, maxSeats, sources);
    // A watch's start is a list only when it asks for its initial events that way, read from the watch cache.
    case 'watch':
      return queryBool(query.get('sendInitialEvents')) === true ? listWork(info, query, maxSeats, sources, true) : oneSeat;
    case 'create': case 'update': case 'patch': case 'delete':
      return writeWork(info, maxSeats, sources, observeWatchCount);
    default:
      return oneSeat;
  }
}

const integer = /^[+-]?\d+$/;

function listWork(info: ResourceRequestInfo, query: URLSearchParams, maxSeats: number, sources: EstimateSources, fromCache = false): WorkEstimate {
  // A list of one named object is read as a get.
  if (info.name !== '' || info.selectedName !== '') return oneSeat;
  const limitParam = query.get('limit');
  // Options that do not decode fail later; upstream counts such a request at the most.
  if (limitParam !== null && limitParam !== '' && !integer.test(limitParam)) return seats(maxSeats);
  const stored = sources.objectCount(info.group, info.resource);
  // A resource not kept here (an aggregated API's) costs this server little.
  if (stored === undefined) return oneSeat;
  const askedLimit = limitParam === null || limitParam === '' ? 0 : Number(limitParam);
  const limit = askedLimit > 0 && askedLimit < stored ? askedLimit : stored;
  let objects: number;
  if (fromCache || !fromStorage(query, askedLimit)) objects = stored;
  else if ((query.get('fieldSelector') ?? '') !== '' || (query.get('labelSelector') ?? '') !== '') objects = stored + limit;
  else objects = 2 * limit;
  return seats(Math.min(maxSeats, Math.max(1, Math.ceil(objects / objectsPerSeat))));
}

/** Whether upstream reads the list from storage rather than its watch cache (its shouldListFromStorage, consistent reads served by the cache). */
function fromStorage(query: URLSearchParams, limit: number): boolean {
  const match = query.get('resourceVersionMatch') ?? '';
  const version = query.get('resourceVersion') ?? '';
  if (match === 'Exact') return true;
  if (match === '' && limit > 0 && version !== '' && version !== '0') return true;
  if (match !== '' && match !== 'NotOlderThan') return true;
  return (query.get('continue') ?? '') !== '';
}

function writeWork(info: ResourceRequestInfo, maxSeats: number, sources: EstimateSources, observeWatchCount?: (count: number) => void): WorkEstimate {
  // A service account's token request writes nothing anyone watches.
  if (info.resource === 'serviceaccounts' && info.subresource === 'token') return oneSeat;
  const watches = sources.watches.interested(info);
  observeWatchCount?.(watches);
  if (watches < watchesPerSeat) return oneSeat;
  const finalSeats = Math.ceil(watches / watchesPerSeat);
  // The work is finalSeats × 5 ms: capped, the seats are held longer.
  const held = Math.min(finalSeats, maxSeats);
  return { initialSeats: 1, finalSeats: held, additionalLatencyMs: finalSeats * eventAdditionalMs / held };
}

const seatCache: WorkEstimate[] = Array.from({ length: maximumSeats + 1 }, (_, n) => Object.freeze({ initialSeats: n, finalSeats: 0, additionalLatencyMs: 0 }));

function seats(n: number): WorkEstimate {
  return seatCache[n] ?? { initialSeats: n, finalSeats: 0, additionalLatencyMs: 0 };
}
