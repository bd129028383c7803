// Turns a request path and method into what it asks for, like upstream's
// apiserver/pkg/endpoints/request/requestinfo.go.
import { parseFieldSelector } from '../api/fields.ts';
import { parseLabelSelector } from '../api/labels.ts';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  /** Empty for a method that is none of GET, HEAD, POST, PUT, PATCH and DELETE (OPTIONS, TRACE, CONNECT), as upstream's. */
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | '';
  /** "api" for the core group, "apis" otherwise. */
  prefix: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /**
   * The name a list or watch selects with `fieldSelector=metadata.name=<name>`, which
   * upstream's request info takes as the request's name: authorization (RBAC's
   * resourceNames, the Node authorizer) and audit see it; the handlers still list. Empty
   * otherwise.
   */
  selectedName: string;
  path: string;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  /** The method in lower case (`get`, `head`, `post`, `connect`), as upstream's. */
  verb: string;
  path: string;
  /** Path segments, e.g. ["apis", "apps", "v1"] for a discovery request. */
  parts: string[];
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Subresources of a namespace itself, so `/api/v1/namespaces/x/status` is not a resource "status" in "x". */
const namespaceSubresources = new Set(['status', 'finalize']);

/** A resource request's verb by its method; any other method's is "" (upstream's NewRequestInfo). */
const methodVerbs: Record<string, string> = {
  GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete',
};

/**
 * A boolean query option (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, a delete's
 * `orphanDependents`, an apply's `force`) as apimachinery's query conversion reads it:
 * absent is undefined, `0` and `false` in any case are false, anything else is true, an
 * empty value (`?watch`) too; nothing is refused.
 */
export function queryBool(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  return value !== '0' && value.toLowerCase() !== 'false';
}

function isWatchParam(value: string | null): boolean {
  return queryBool(value) === true;
}

/** The non-empty segments of a path, in one pass. */
function pathParts(path: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (;;) {
    const end = path.indexOf('/', start);
    const part = end < 0 ? path.slice(start) : path.slice(start, end);
    if (part !== '') parts.push(part);
    if (end < 0) return parts;
    start = end + 1;
  }
}

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = pathParts(path);
  // Upstream starts every request as a non-resource one whose verb is the method in lower case.
  const methodVerb = method.toLowerCase();
  let decoded: string[];
  try {
    // Most paths have no escapes: their parts are already decoded.
    decoded = path.includes('%') ? parts.map((p) => decodeURIComponent(p)) : parts;
  } catch {
    return { isResourceRequest: false, verb: methodVerb, path, parts };
  }
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, verb: methodVerb, path, parts: decoded };
  let rest: string[];
  let prefix: 'api' | 'apis';
  let group = '';
  let version: string;
  if (decoded[0] === 'api' && decoded.length >= 3) {
    prefix = 'api';
    version = decoded[1]!;
    rest = decoded.slice(2);
  } else if (decoded[0] === 'apis' && decoded.length >= 4) {
    prefix = 'apis';
    group = decoded[1]!;
    version = decoded[2]!;
    rest = decoded.slice(3);
  } else {
    return nonResource;
  }

  let verb = methodVerbs[method] ?? '';
  // The legacy /watch/ path prefix, still honoured upstream: the verb whatever the method
  // (its routes take GET only: api-handler.ts answers the others).
  if (rest[0] === 'watch') {
    verb = 'watch';
    rest = rest.slice(1);
    if (rest.length === 0) return nonResource;
  }

  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = '', ...extra] = rest;
  // Only a proxy subresource takes a path after it (pods/{name}/proxy/{path}).
  if (extra.length > 0 && subresource !== 'proxy') return nonResource;

  let selectedName = '';
  // Only a collection's GET reads `watch`: on an object's path it is a get, the parameter
  // ignored, as upstream (a watch of one object is `/watch/.../{name}` or a name selector).
  if (verb === 'get' && name === '') {
    verb = isWatchParam(query.get('watch')) ? 'watch' : 'list';
    selectedName = nameSelected(query);
  }
  if (verb === 'delete' && name === '') verb = 'deletecollection';

  return {
    isResourceRequest: true,
    verb: verb as ResourceRequestInfo['verb'],
    prefix, group, version, namespace, resource, subresource, name, selectedName, path,
  };
}

/**
 * `metadata.name`'s value when the field selector requires it exactly, as upstream's
 * RequiresExactMatch (the first such term), and when the list options decode at all (a
 * selector or integer that does not parse leaves the request without a name upstream) and
 * the name could be a path segment.
 */
function nameSelected(query: URLSearchParams): string {
  const raw = query.get('fieldSelector');
  if (raw === null || !raw.includes('metadata.name')) return '';
  let name: string | undefined;
  try {
    name = parseFieldSelector(raw).terms.find((term) => term.field === 'metadata.name' && term.operator === '=')?.value;
    const labels = query.get('labelSelector');
    if (labels !== null) parseLabelSelector(labels);
  } catch {
    return '';
  }
  if (name === undefined || !isGoInt64Param(query.get('limit')) || !isGoInt64Param(query.get('timeoutSeconds'))) return '';
  const validSegment = name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
  return validSegment ? name : '';
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Why Go's `strconv.ParseInt(s, 10, 64)` refuses `value` (its error's last words), or undefined when it reads it. */
export function goParseInt64Error(value: string): 'invalid syntax' | 'value out of range' | undefined {
  if (!/^[+-]?[0-9]+$/.test(value)) return 'invalid syntax';
  const n = BigInt(value);
  return n < int64Min || n > int64Max ? 'value out of range' : undefined;
}

/** An integer list option Go's query conversion reads (absent is fine). */
function isGoInt64Param(value: string | null): boolean {
  return value === null || goParseInt64Error(value) === undefined;
}
