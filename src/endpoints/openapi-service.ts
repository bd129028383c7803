// Serves /openapi/v2 and /openapi/v3 documents as kube-apiserver's handlers do: kube-openapi's
// (handler, handler3) behind kube-aggregator's v3 proxy.
import { methodNotAllowed, notFoundAtChainEnd } from '../api/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Definitions } from '../schema/types.ts';
import type { HttpRequest, HttpResponse } from './http.ts';
import { goautonegClauses, pickOffered, rfc1123, serveContent, writeEmpty } from './openapi-http.ts';
import { buildOpenApiV2, buildOpenApiV3, swaggerForms, type OpenApiV2 } from './openapi.ts';
import { aggregateSwagger, type AggregatedSwagger } from './openapi-v2-merge.ts';
import { encodeOpenApiV3Protobuf } from './openapi-v3-protobuf.ts';

const v2Protobuf = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
// What upstream answers for both Accept spellings: "@" is not a valid media type
// character, and clients (mime.ParseMediaType) reject a Content-Type containing it.
const v2ProtobufContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Built {
  v3Index: Record<string, { serverRelativeURL: string }>;
  /** The index's JSON when no extension server adds to it. */
  v3IndexJson: string;
  v3: Map<string, { json: string; hash: string }>;
  /** The v3 documents' gnostic Protobuf encodings, made when first asked for (handler3's pbCache). */
  v3Protobuf: Map<string, Uint8Array>;
  v2: OpenApiV2;
  /** When they were made: their Last-Modified. */
  at: Date;
}

// handler3 answers both Protobuf spellings with the one without "@", as for v2.
const v3ProtobufContentType = 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf';

/** What handler3 offers for a group-version document, in its order. */
const v3Offered = ['application/json', v3ProtobufContentType, 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf'] as const;

/** What handler offers for /openapi/v2, in its order; both Protobuf spellings answer the one without "@". */
const v2Offered = ['application/json', v2Protobuf, v2ProtobufContentType] as const;


/** Go's json.Marshal of a map: keys sorted. */
function sortedIndex(paths: Record<string, { serverRelativeURL: string }>): string {
  const sorted: Record<string, { serverRelativeURL: string }> = {};
  for (const key of Object.keys(paths).sort()) sorted[key] = paths[key]!;
  return JSON.stringify({ paths: sorted });
}

/**
 * Serves `/openapi/v2` and `/openapi/v3[/...]`, built lazily from the served types and
 * rebuilt when they change. Per-group-version v3 documents are immutable under their
 * hash, so they are served with a long cache lifetime, as upstream.
 */
export class OpenApiService {
  private readonly registry: ResourceRegistry;
  private readonly definitions: Definitions;
  private built: Built | undefined;
  /** The aggregated groups and versions' OpenAPI v3 documents: index path (`apis/<g>/<v>`) and where the extension serves it. */
  remote: () => Array<{ path: string; serverRelativeURL: string }> = () => [];
  /** The extension servers' OpenAPI v2 documents, each cut to its APIService's group and version, merged into /openapi/v2. */
  remoteV2: () => AggregatedSwagger[] = () => [];
  /** The last aggregated v2 document, what it was made of and when. */
  private aggregated: { served: OpenApiV2; from: readonly AggregatedSwagger[]; v2: OpenApiV2; at: Date } | undefined;

  constructor(registry: ResourceRegistry, definitions: Definitions) {
    this.registry = registry;
    this.definitions = definitions;
    registry.onChange(() => {
      this.built = undefined;
    });
  }

  private documents(): Built {
    if (this.built === undefined) {
      const types = this.registry.served().map((r) => r.type);
      const v3 = buildOpenApiV3(types, this.definitions);
      this.built = { v3Index: v3.index.paths, v3IndexJson: sortedIndex(v3.index.paths), v3: v3.documents, v3Protobuf: new Map(), v2: buildOpenApiV2(types, this.definitions), at: new Date() };
    }
    return this.built;
  }

  /** /openapi/v2: the served document, with the extension servers' merged in when there are any (made again when either changes). */
  private swagger(): { v2: OpenApiV2; at: Date } {
    const built = this.documents();
    const served = built.v2;
    const remote = this.remoteV2();
    if (remote.length === 0) return { v2: served, at: built.at };
    const last = this.aggregated;
    const same = last !== undefined && last.served === served && last.from.length === remote.length && last.from.every((r, i) => {
      const now = remote[i]!;
      return r.document === now.document && r.name === now.name && r.group === now.group && r.version === now.version &&
        r.groupPriorityMinimum === now.groupPriorityMinimum && r.versionPriority === now.versionPriority;
    });
    if (same) return last;
    const v2 = swaggerForms(aggregateSwagger(served.document, remote));
    this.aggregated = { served, from: remote, v2, at: new Date() };
    return this.aggregated;
  }

  /**
   * `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<path>`, matched on the request's own path
   * as upstream's mux does (a trailing slash is another path); `parts` and `query` as the
   * request info split them. Any other path is registered by nothing: the notfoundhandler's
   * plain-text 404, whatever the method. The documents take GET and HEAD (Plinth's rule).
   */
  async serve(req: HttpRequest, res: HttpResponse, _parts: string[], query: URLSearchParams): Promise<void> {
    const raw = (req.url ?? '').split('?')[0]!;
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      path = raw;
    }
    if (path.startsWith('/openapi/v3/')) return this.serveV3Document(req, res, path.slice('/openapi/v3/'.length), query);
    if (path !== '/openapi/v2' && path !== '/openapi/v3') throw notFoundAtChainEnd();
    onlyReads(req);
    if (path === '/openapi/v2') return this.serveV2(req, res);
    return this.serveV3Index(req, res);
  }

  /**
   * kube-openapi's handler: the first Accept clause naming JSON or gnostic Protobuf (`*`
   * matching any), its ETag and Last-Modified through ServeContent; no clause matching is a
   * bare 406.
   */
  private serveV2(req: HttpRequest, res: HttpResponse): void {
    const { v2, at } = this.swagger();
    const headers = { Vary: 'Accept' };
    const picked = pickOffered(goautonegClauses(acceptOf(req) || '*/*'), v2Offered);
    if (picked === undefined) return writeEmpty(res, 406, headers);
    const json = picked === 'application/json';
    serveContent(req, res, json ? v2.json : v2.protobuf, { ...headers, 'Content-Type': json ? 'application/json' : v2ProtobufContentType, ETag: `"${v2.etag}"` }, at);
  }

  /**
   * kube-aggregator's merged v3 discovery: made at each request (its Last-Modified is now)
   * and served through ServeContent with no type set, which Go sniffs as text; no ETag.
   */
  private serveV3Index(req: HttpRequest, res: HttpResponse): void {
    const built = this.documents();
    const remote = this.remote();
    let body = built.v3IndexJson;
    if (remote.length > 0) {
      // The extension servers' documents are listed beside the served ones (and proxied to them).
      const paths = { ...built.v3Index };
      for (const r of remote) paths[r.path] ??= { serverRelativeURL: r.serverRelativeURL };
      body = sortedIndex(paths);
    }
    serveContent(req, res, body, { 'Content-Type': 'text/plain; charset=utf-8' }, new Date());
  }

  /**
   * One group-version document: kube-aggregator's proxy answers a path no document has with
   * a bare 404; handler3 then negotiates (no clause at all: an empty 200; none matching: a
   * bare 406), redirects a stale `?hash=` to the current one (301), marks a matching one
   * immutable for a year, and serves through ServeContent: in JSON, or for either gnostic
   * Protobuf spelling as the `openapi.v3.Document` gnostic's compiler makes of that JSON,
   * under the JSON's hash (HandleGroupVersion, getSingleGroupBytes).
   */
  private serveV3Document(req: HttpRequest, res: HttpResponse, key: string, query: URLSearchParams): void {
    const built = this.documents();
    const doc = built.v3.get(key);
    if (doc === undefined) return writeEmpty(res, 404);
    onlyReads(req);
    const clauses = goautonegClauses(acceptOf(req) || '*/*');
    const headers: Record<string, string> = { Vary: 'Accept' };
    if (clauses.length === 0) return writeEmpty(res, 200, headers);
    const picked = pickOffered(clauses, v3Offered);
    if (picked === undefined) return writeEmpty(res, 406, headers);
    const json = picked === 'application/json';
    headers['Content-Type'] = json ? 'application/json' : v3ProtobufContentType;
    headers.ETag = `"${doc.hash}"`;
    const hash = query.get('hash') ?? '';
    if (hash !== '' && hash !== doc.hash) {
      // http.Redirect after the type was set: no body.
      return writeEmpty(res, 301, { ...headers, Location: `/openapi/v3/${key}?hash=${doc.hash}` });
    }
    if (hash !== '') {
      headers['Cache-Control'] = 'public, immutable';
      const expires = new Date();
      expires.setUTCFullYear(expires.getUTCFullYear() + 1);
      headers.Expires = rfc1123(expires);
    }
    serveContent(req, res, json ? doc.json : this.v3Protobuf(built, key, doc.json), headers, built.at);
  }

  private v3Protobuf(built: Built, key: string, json: string): Uint8Array {
    let protobuf = built.v3Protobuf.get(key);
    if (protobuf === undefined) {
      protobuf = encodeOpenApiV3Protobuf(JSON.parse(json));
      built.v3Protobuf.set(key, protobuf);
    }
    return protobuf;
  }
}

/** A served document's methods: GET and HEAD, others 405. */
function onlyReads(req: HttpRequest): void {
  if (req.method !== undefined && req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
}

/** The Accept header as Go's Header.Get reads it: the first one. */
function acceptOf(req: HttpRequest): string {
  const accept = req.headers.accept;
  return (Array.isArray(accept) ? accept[0] : accept) ?? '';
}
