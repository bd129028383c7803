// Watch streams: cache events framed as WatchEvents, bookmarks and timeouts.
import { isStatusError, type IncludeObject } from '../../api/index.ts';
import { parseFieldSelector } from '../../api/fields.ts';
import { SlowWatcherError, watchFrame, type CacheEvent, type CacheWatcher } from '../../cache/index.ts';
import { buildTable, tableOptionsFromQuery, type TableSource } from '../../encoding/table.ts';
import type { ObjectFilter } from '../../registry/filter.ts';
import { tableSourceOf } from '../../registry/table-columns.ts';
import { toStatusError } from '../http.ts';
import { watchParams } from '../read-options.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

const encoder = new TextEncoder();

/** One event as a line of the JSON watch stream. */
function frame(type: CacheEvent['type'] | 'ERROR', json: Uint8Array): Uint8Array {
  return watchFrame(type, json).frame;
}

/**
 * The cache frames the events it fans out once, for every watcher (CacheEvent.frame).
 * Others (a watch's initial ADDED events) are framed here, once per event object.
 */
const framed = new WeakMap<CacheEvent, Uint8Array>();

function eventFrame(event: CacheEvent): Uint8Array {
  if (event.frame !== undefined) return event.frame;
  let bytes = framed.get(event);
  if (bytes === undefined) {
    bytes = frame(event.type, event.json);
    framed.set(event, bytes);
  }
  return bytes;
}

/** A watch answered in Tables (`kubectl get -w`): each event's object is a Table of one row. */
interface TableWatch {
  apiVersion: string;
  includeObject: IncludeObject;
  source: TableSource;
  /** Upstream sends the column definitions with the first event only. */
  headersSent: boolean;
}

/** Table frames are shared like plain ones, by watchers asking for the same Table shape. */
const tableFramed = new WeakMap<CacheEvent, Map<string, Uint8Array>>();

function tableFrame(event: CacheEvent, watch: TableWatch): Uint8Array {
  const noHeaders = watch.headersSent;
  watch.headersSent = true;
  const shape = `${watch.apiVersion} ${watch.includeObject} ${noHeaders}`;
  let byShape = tableFramed.get(event);
  let bytes = byShape?.get(shape);
  if (bytes === undefined) {
    const table = buildTable(watch.source, [event.object], {
      apiVersion: watch.apiVersion,
      includeObject: watch.includeObject,
      metadata: { resourceVersion: event.object.metadata.resourceVersion },
      noHeaders,
      now: Date.now(),
    });
    bytes = frame(event.type, encoder.encode(JSON.stringify(table)));
    if (byShape === undefined) tableFramed.set(event, (byShape = new Map()));
    byShape.set(shape, bytes);
  }
  return bytes;
}

/** Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer delay would fire at once. */
const maxTimerMs = 2 ** 31 - 1;

/**
 * Calls `fire` after `ms`, however long: upstream takes `timeoutSeconds` as a duration
 * of any size, so a delay past Node's timer range is waited out in steps.
 */
function setLongTimeout(fire: () => void, ms: number): () => void {
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = left > maxTimerMs ? setTimeout(() => arm(left - maxTimerMs), maxTimerMs) : setTimeout(fire, left);
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** Upstream ends a watch after a random time between --min-request-timeout (1800 s) and twice that. */
function defaultTimeoutSeconds(): number {
  return 1800 * (1 + Math.random());
}

function watchFilter(scope: RequestScope): ObjectFilter | undefined {
  const filter = filterFromQuery(scope.query, scope.served.type);
  if (scope.info.name === '') return filter;
  // A watch on one object's path is a watch on its name.
  const byName = parseFieldSelector(`metadata.name=${scope.info.name}`);
  return { ...filter, fields: { terms: [...(filter?.fields?.terms ?? []), ...byName.terms] } };
}

/**
 * `?watch=1`: a chunked stream of JSON events, one per line. It ends on timeoutSeconds,
 * when the client goes away, when the server shuts down, or when the watcher falls too
 * far behind (the client then re-lists). A start revision that is too old is an ERROR
 * event with a 410 Status, as upstream. A client that stops reading has its stream
 * reset after the grace period (watch-streams.ts).
 */
export async function watchHandler(scope: RequestScope): Promise<void> {
  const { res, served, info } = scope;
  const params = watchParams(scope.query, scope.watchList);
  const filter = watchFilter(scope);
  const table = scope.negotiated.table;
  const tableWatch: TableWatch | undefined = table === undefined ? undefined : {
    apiVersion: table.apiVersion,
    includeObject: tableOptionsFromQuery(scope.query).includeObject,
    source: tableSourceOf(served.type),
    headersSent: false,
  };
  let watcher: CacheWatcher | undefined;
  let startError: unknown;
  try {
    watcher = await served.store.watch(info.namespace, {
      resourceVersion: params.resourceVersion,
      sendInitialEvents: params.sendInitialEvents,
      filter,
      bookmarks: params.allowWatchBookmarks,
    });
  } catch (err) {
    if (!(isStatusError(err) && err.code === 410)) throw err;
    startError = err;
  }

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  if (watcher === undefined) {
    res.end(frame('ERROR', encoder.encode(JSON.stringify(toStatusError(startError).toStatus()))));
    return;
  }
  // A watch may stay quiet for long: the client must see it established now.
  res.flushHeaders?.();
  const w = watcher;
  const stop = () => w.close();
  const clearTimer = setLongTimeout(stop, (params.timeoutSeconds ?? defaultTimeoutSeconds()) * 1000);
  const untrack = scope.trackLongRunning(stop);
  res.once('close', stop);
  const stream = scope.watchStreams.open(res, w);
  let stalled = false;
  try {
    for await (const event of w) {
      if (res.writableEnded) break;
      // Bookmarks carry only a resourceVersion: they stay plain objects in a Table watch.
      const bytes = tableWatch !== undefined && event.type !== 'BOOKMARK' ? tableFrame(event, tableWatch) : eventFrame(event);
      if (!res.write(bytes)) {
        // Back-pressure: wait for the client. Meanwhile the watcher's queue fills, and
        // past its bounds the cache ends this watch; a client that takes nothing for
        // the grace period is cut off.
        if ((await scope.watchStreams.waitForDrain(stream)) === 'stalled') {
          stalled = true;
          break;
        }
      }
    }
  } catch (err) {
    // A watcher cut off for being too slow just ends, as upstream: the client resumes from its last revision.
    if (!(err instanceof SlowWatcherError) && !res.writableEnded) {
      res.write(frame('ERROR', encoder.encode(JSON.stringify(toStatusError(err, scope.log).toStatus()))));
    }
  } finally {
    clearTimer();
    untrack();
    w.close();
    // A stalled client has had its grace period already.
    if (stalled) scope.watchStreams.reset(stream);
    else scope.watchStreams.finish(stream);
  }
}
