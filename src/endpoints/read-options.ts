// Query parameters of reads: resourceVersion, resourceVersionMatch, limit, continue.
import { badRequest, invalid, type StatusCause } from '../api/index.ts';
import { decodeContinue } from '../registry/continue-token.ts';
import { unsafeRevisionText, type ReadConsistency } from '../registry/read-path.ts';
import { parseInteger } from './query.ts';
import { queryBool } from './request-info.ts';

export interface ListParams {
  consistency: ReadConsistency;
  limit: number | undefined;
  continue: string | undefined;
}

export interface WatchParams {
  /** Where the watch starts: unset ("" → current state as ADDED first), "0" (the same, from the cache), or a revision. */
  resourceVersion: string;
  sendInitialEvents: boolean | undefined;
  allowWatchBookmarks: boolean;
  timeoutSeconds: number | undefined;
}

const forbidden = (field: string, message: string): StatusCause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${message}` });
const notSupported = (field: string, value: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported', field, message: `Unsupported value: "${value}": supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
});

function throwIfInvalid(causes: StatusCause[]): void {
  if (causes.length > 0) throw invalid('ListOptions', '', causes, 'meta.k8s.io');
}

const maxUint64 = 2n ** 64n - 1n;

/** A resourceVersion parameter that is not a revision (a uint64) is 400, as upstream's "invalid resource version". */
function parseRevision(text: string): number {
  if (!/^\d+$/.test(text)) throw badRequest(`invalid resource version: strconv.ParseUint: parsing "${text}": invalid syntax`);
  if (text.length > 19 && BigInt(text) > maxUint64) throw badRequest(`invalid resource version: strconv.ParseUint: parsing "${text}": value out of range`);
  return Number(text);
}

/**
 * The integers of ListOptions, which upstream's parameter codec decodes for every list,
 * watch and deletecollection before anything else looks at them: 400 with Go's error for
 * one that does not parse, whether or not the verb uses it.
 */
function listIntegers(query: URLSearchParams): { limit: number | undefined; timeoutSeconds: number | undefined } {
  return { limit: parseInteger(query, 'limit'), timeoutSeconds: parseInteger(query, 'timeoutSeconds') };
}

/** A get's consistency from `resourceVersion`. */
export function getConsistency(query: URLSearchParams): ReadConsistency {
  const rv = query.get('resourceVersion') ?? '';
  if (rv === '') return { kind: 'consistent' };
  if (rv === '0') return { kind: 'any' };
  return { kind: 'notOlderThan', revision: parseRevision(rv), ...requestedText(rv) };
}

/** The text of a resourceVersion past 2^53, for the messages that quote it. */
function requestedText(rv: string): { requested?: string } {
  const requested = unsafeRevisionText(rv);
  return requested === undefined ? {} : { requested };
}

/**
 * The resources kube-apiserver keeps no watch cache for (DefaultWatchCacheSizes in
 * pkg/kubeapiserver/default_storage_factory_builder.go): their lists always go to etcd.
 */
const uncachedResources = new Set(['/events', 'events.k8s.io/events']);

/** Whether upstream reads the resource's lists from etcd rather than its watch cache. */
export function listsFromStorageUpstream(type: { group: string; resource: string }): boolean {
  return uncachedResources.has(`${type.group}/${type.resource}`);
}

/**
 * List options, validated like upstream's ValidateListOptions (422) and storage's continue
 * rules (400). `fromStorage`: the resource has no watch cache upstream (see above).
 */
export function listParams(query: URLSearchParams, opts: { fromStorage?: boolean } = {}): ListParams {
  const rv = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const cont = query.get('continue') ?? '';
  let { limit } = listIntegers(query);
  const causes: StatusCause[] = [];
  if (match !== '') {
    if (rv === '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (cont !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (query.has('sendInitialEvents')) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  throwIfInvalid(causes);

  if (cont !== '') {
    if (rv !== '' && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    // The token carries its revision; the Store decodes it.
    return { consistency: { kind: 'consistent' }, limit, continue: cont };
  }
  const paged = limit !== undefined && limit > 0;
  let consistency: ReadConsistency;
  if (rv === '') consistency = { kind: 'consistent' };
  // A limit without resourceVersionMatch makes a resourceVersion exact: storage's "legacy
  // exact match" (ValidateListOptions in apiserver pkg/storage, shouldDelegateList in the cacher).
  else if (match === 'Exact' || (match === '' && paged && rv !== '0')) consistency = { kind: 'exact', revision: parseRevision(rv), ...requestedText(rv) };
  else if (rv === '0') {
    consistency = { kind: 'any' };
    // The cacher's computeListLimit: a list at resourceVersion "0" is the whole list, unpaged.
    if (opts.fromStorage !== true) limit = undefined;
  } else consistency = { kind: 'notOlderThan', revision: parseRevision(rv), ...requestedText(rv) };
  return { consistency, limit, continue: undefined };
}

/** Watch options, validated like upstream's validateWatchOptions (422). */
export function watchParams(query: URLSearchParams, watchListEnabled: boolean): WatchParams {
  const match = query.get('resourceVersionMatch') ?? '';
  const sendInitialEvents = queryBool(query.get('sendInitialEvents'));
  const { timeoutSeconds } = listIntegers(query);
  const causes: StatusCause[] = [];
  if (sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (!watchListEnabled) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
  }
  if (match !== '') {
    if (sendInitialEvents === undefined) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if ((query.get('continue') ?? '') !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  throwIfInvalid(causes);
  const rv = query.get('resourceVersion') ?? '';
  if (rv !== '' && rv !== '0') parseRevision(rv);
  return {
    resourceVersion: rv,
    sendInitialEvents,
    allowWatchBookmarks: queryBool(query.get('allowWatchBookmarks')) ?? false,
    timeoutSeconds: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds : undefined,
  };
}

/**
 * A deletecollection's ListOptions, refused as upstream refuses them before deleting
 * anything: integers that do not parse (400), ValidateListOptions (422; a watch's rules
 * when `watch` is set), and the resourceVersion or continue token its list would read at
 * (400). Answers the options its list pages with (`watch` and sendInitialEvents mean
 * nothing to a list). Without this a malformed request deleted every object it selected.
 */
export function deleteCollectionListParams(query: URLSearchParams, watchListEnabled: boolean): ListParams {
  let listQuery = query;
  if (queryBool(query.get('watch')) === true) {
    watchParams(query, watchListEnabled);
    listQuery = new URLSearchParams(query);
    listQuery.delete('sendInitialEvents');
    if ((query.get('resourceVersion') ?? '') === '') listQuery.delete('resourceVersionMatch');
  }
  const params = listParams(listQuery);
  if (params.continue !== undefined) decodeContinue(params.continue);
  return params;
}
