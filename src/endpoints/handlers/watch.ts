// Watch streams: cache events framed as WatchEvents (JSON lines, Tables, metadata views,
// Protobuf frames, CBOR sequences), bookmarks and timeouts.
import { badRequest, isStatusError, notAcceptable, type IncludeObject, type KubeObject, type Status, type Table } from '../../api/index.ts';
import { fieldRequiresExactMatch } from '../../api/fields.ts';
import { watchInitialized } from '../../api/request-context.ts';
import { watchFrame, type CacheEvent, type CacheWatcher } from '../../cache/index.ts';
import { loadCborObjectCodec, type CborObjectCodec } from '../../encoding/cbor-loader.ts';
import { partialObjectMetadata } from '../../encoding/partial-metadata.ts';
import { loadProtobufCodec, type ProtobufCodec } from '../../encoding/protobuf-loader.ts';
import { buildTable, tableOptionsFromQuery, type TableSource } from '../../encoding/table.ts';
import type { ObjectFilter } from '../../registry/filter.ts';
import { tableSourceOf } from '../../registry/table-columns.ts';
import { cborEvent } from '../cbor-answers.ts';
import { toStatusError, type HttpResponse } from '../http.ts';
import { protobufEvent } from '../protobuf-answers.ts';
import { watchParams } from '../read-options.ts';
import { filterFromQuery } from '../selectors.ts';
import { wantsWebSocket, watchOverWebSocket } from '../websocket-response.ts';
import type { RequestScope } from './scope.ts';

const encoder = new TextEncoder();

/** One event as a line of the JSON watch stream. */
function frame(type: CacheEvent['type'] | 'ERROR', json: Uint8Array): Uint8Array {
  return watchFrame(type, json).frame;
}

/**
 * Frames shared by the watchers that ask for the same form of the same event (a Table of
 * one shape, a metadata view, Protobuf): each is made once, for the first of them. The
 * cache frames the plain JSON form itself (CacheEvent.frame).
 */
const framedAs = new WeakMap<CacheEvent, Map<string, Uint8Array>>();

function sharedFrame(event: CacheEvent, form: string, make: () => Uint8Array): Uint8Array {
  let byForm = framedAs.get(event);
  let bytes = byForm?.get(form);
  if (bytes === undefined) {
    bytes = make();
    if (byForm === undefined) framedAs.set(event, (byForm = new Map()));
    byForm.set(form, bytes);
  }
  return bytes;
}

/** How a watch writes its events and its ERROR event, in the negotiated serializer and shape. */
interface WatchEncoder {
  event(event: CacheEvent): Uint8Array;
  error(status: Status): Uint8Array;
}

const jsonWatch: WatchEncoder = {
  event: (event) => event.frame ?? sharedFrame(event, 'json', () => frame(event.type, event.json)),
  error: (status) => frame('ERROR', encoder.encode(JSON.stringify(status))),
};

/**
 * A watch answered in Tables (`kubectl get -w`): each event's object, a BOOKMARK's too, is
 * a Table of one row, as upstream transforms every event's object alike. The column
 * definitions go with the first event only, whatever its type. An object that cannot be
 * made a Table is sent as it is, as upstream does (it logs and sends the original).
 */
function tableWatch(apiVersion: string, includeObject: IncludeObject, source: TableSource, log: (message: string) => void): WatchEncoder {
  let headersSent = false;
  return {
    event(event) {
      const noHeaders = headersSent;
      headersSent = true;
      return sharedFrame(event, `table ${apiVersion} ${includeObject} ${noHeaders}`, () => {
        let table: Table;
        try {
          table = buildTable(source, [event.object], {
            apiVersion, includeObject, metadata: { resourceVersion: event.object.metadata.resourceVersion }, noHeaders, now: Date.now(),
          });
        } catch (err) {
          log(`failed to make a Table of a ${event.type} event's object: ${(err as Error).message}`);
          return jsonWatch.event(event);
        }
        return frame(event.type, encoder.encode(JSON.stringify(table)));
      });
    },
    error: jsonWatch.error,
  };
}

/** A watch of metadata views in JSON (client-go's metadata informers fall back to it). */
function metadataJsonWatch(apiVersion: string): WatchEncoder {
  return {
    event: (event) => sharedFrame(event, `metadata ${apiVersion}`, () =>
      frame(event.type, encoder.encode(JSON.stringify(partialObjectMetadata(event.object, apiVersion))))),
    error: jsonWatch.error,
  };
}

/** Four bytes of big-endian length, then the message: one frame of a Protobuf watch. */
function lengthPrefixed(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + message.length);
  new DataView(out.buffer).setUint32(0, message.length);
  out.set(message, 4);
  return out;
}

/** A Protobuf watch: each event a WatchEvent whose object is a whole envelope, of the object or its metadata view. */
function protobufWatch(codec: ProtobufCodec, metadataVersion: string | undefined): WatchEncoder {
  const form = metadataVersion === undefined ? 'protobuf' : `protobuf metadata ${metadataVersion}`;
  return {
    event: (event) => sharedFrame(event, form, () => {
      if (metadataVersion === undefined) return lengthPrefixed(protobufEvent(codec, event.type, event));
      const object = partialObjectMetadata(event.object, metadataVersion) as KubeObject;
      return lengthPrefixed(codec.encodeProtobufWatchEvent({ type: event.type, object }));
    }),
    error: (status) => lengthPrefixed(codec.encodeProtobufWatchEvent({ type: 'ERROR', object: status })),
  };
}

/**
 * An application/cbor-seq watch: each event a WatchEvent data item of its own, its object
 * (or the object's metadata view) embedded with its own self-described tag, as upstream.
 */
function cborWatch(codec: CborObjectCodec, metadataVersion: string | undefined): WatchEncoder {
  const form = metadataVersion === undefined ? 'cbor' : `cbor metadata ${metadataVersion}`;
  return {
    event: (event) => sharedFrame(event, form, () => {
      if (metadataVersion === undefined) return cborEvent(codec, event.type, event);
      const object = partialObjectMetadata(event.object, metadataVersion) as KubeObject;
      return codec.encodeCborWatchEvent({ type: event.type, object });
    }),
    error: (status) => codec.encodeCborWatchEvent({ type: 'ERROR', object: status }),
  };
}

async function watchEncoder(scope: RequestScope): Promise<WatchEncoder> {
  const { table, metadata, serializer } = scope.negotiated;
  if (metadata !== undefined && metadata.kind !== 'PartialObjectMetadata') {
    throw notAcceptable(`you requested ${metadata.kind}, but a watch sends objects, not lists`);
  }
  if (serializer === 'protobuf') return protobufWatch(await loadProtobufCodec(), metadata?.apiVersion);
  if (serializer === 'cbor') return cborWatch(await loadCborObjectCodec(), metadata?.apiVersion);
  if (table !== undefined) return tableWatch(table.apiVersion, tableOptionsFromQuery(scope.query).includeObject, tableSourceOf(scope.served.type), (message) => scope.log(message));
  if (metadata !== undefined) return metadataJsonWatch(metadata.apiVersion);
  return jsonWatch;
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

/** At most this many events are joined into one write of a watch stream. */
const maxEventsPerWrite = 100;

/**
 * When a watch ends: after its `timeoutSeconds`, else, as upstream spreads them out, after a
 * random time between --min-request-timeout (1800 s) and twice that; never when that is 0.
 */
function timeoutSecondsOf(requested: number | undefined, minTimeoutSeconds: number): number | undefined {
  if (requested !== undefined) return requested;
  return minTimeoutSeconds > 0 ? minTimeoutSeconds * (1 + Math.random()) : undefined;
}

function watchFilter(scope: RequestScope): ObjectFilter | undefined {
  const filter = filterFromQuery(scope.query, scope.served.type);
  const { name } = scope.info;
  if (name === '') return filter;
  // A watch on one object's path is a watch on its name; a field selector beside it may
  // only name the same object (upstream's ListResource).
  if (filter?.fields !== undefined && filter.fields.terms.length > 0) {
    if (fieldRequiresExactMatch(filter.fields, 'metadata.name') !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
    return filter;
  }
  return { ...filter, fields: { terms: [{ field: 'metadata.name', operator: '=', value: name }] } };
}

/**
 * Several events' frames written as one: corked, each goes to the stream as it is (the
 * frames are shared by every watcher of the event), where a concatenation would copy
 * them for every watcher. Answers what the last write answered (false: wait for drain).
 */
function writeTogether(res: HttpResponse, frames: Uint8Array[]): boolean {
  if (res.cork === undefined || res.uncork === undefined) return res.write(Buffer.concat(frames));
  res.cork();
  let written = true;
  for (const frame of frames) written = res.write(frame);
  res.uncork();
  return written;
}

/**
 * `?watch=1`: a chunked stream of JSON events, one per line. It ends on timeoutSeconds,
 * when the client goes away, when the server shuts down, or when the watcher falls
 * behind the cache's event history (a 410 ERROR event: the client then re-lists). A
 * start revision that is too old is an ERROR event with a 410 Status, as upstream. A
 * client that stops reading has its stream reset after the grace period
 * (watch-streams.ts).
 */
export async function watchHandler(scope: RequestScope): Promise<void> {
  const { served, info } = scope;
  let res: HttpResponse = scope.res;
  const params = watchParams(scope.query, scope.watchList);
  const filter = watchFilter(scope);
  const encode = await watchEncoder(scope);
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

  if (wantsWebSocket(scope.req)) {
    // Asked for over WebSocket, as upstream's watch server answers one: each event a message.
    const ws = await watchOverWebSocket(scope.req, scope.negotiated.contentType);
    scope.res.statusCode = typeof ws === 'number' ? ws : 101;
    if (typeof ws === 'number') {
      watcher?.close();
      return;
    }
    res = ws;
    scope = { ...scope, res };
  }
  res.writeHead(200, { 'Content-Type': scope.negotiated.contentType, 'Cache-Control': 'no-cache, private' });
  if (watcher === undefined) {
    res.end(encode.error(toStatusError(startError).toStatus()));
    return;
  }
  // A watch may stay quiet for long: the client must see it established now.
  res.flushHeaders?.();
  // Its initial events are queued: the seats priority and fairness lent its start go back.
  watchInitialized();
  const w = watcher;
  const stop = () => w.close();
  const timeoutSeconds = timeoutSecondsOf(params.timeoutSeconds, scope.watchStreams.minTimeoutSeconds);
  const clearTimer = timeoutSeconds === undefined ? () => {} : setLongTimeout(stop, timeoutSeconds * 1000);
  const untrack = scope.trackLongRunning(stop);
  res.once('close', stop);
  const { type } = scope.served;
  const stream = scope.watchStreams.open(res, w, { group: type.group, version: type.version, kind: type.kind, resource: type.resource });
  let stalled = false;
  try {
    for await (const event of w) {
      if (res.writableEnded) break;
      // The events queued behind this one go out in the same write: a burst costs one write
      // (one DATA frame, one TLS record) instead of one per event.
      const more = w.takeReady?.(maxEventsPerWrite - 1) ?? [];
      const written = more.length === 0 ? res.write(encode.event(event)) : writeTogether(res, [event, ...more].map((e) => encode.event(e)));
      scope.watchStreams.sent(stream, 1 + more.length);
      if (!written) {
        // Back-pressure: wait for the client. Meanwhile the watcher's queue fills, and
        // past its bounds it reads the cache's history instead; a client that takes
        // nothing for the grace period is cut off.
        if ((await scope.watchStreams.waitForDrain(stream)) === 'stalled') {
          stalled = true;
          break;
        }
      }
    }
  } catch (err) {
    if (!res.writableEnded) {
      res.write(encode.error(toStatusError(err, scope.log).toStatus()));
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
