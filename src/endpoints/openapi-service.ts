// Serves /openapi/v2 and /openapi/v3 documents, with ETags.
import { notAcceptable, notFoundPath } from '../api/index.ts';
import { parseAccept } from '../encoding/media-type.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Definitions } from '../schema/types.ts';
import { writeBytes, type HttpRequest, type HttpResponse } from './http.ts';
import { buildOpenApiV2, buildOpenApiV3, swaggerForms, type OpenApiV2 } from './openapi.ts';
import { aggregateSwagger, type AggregatedSwagger } from './openapi-v2-merge.ts';

const v2Protobuf = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
// What upstream answers for both Accept spellings: "@" is not a valid media type
// character, and clients (mime.ParseMediaType) reject a Content-Type containing it.
const v2ProtobufContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Built {
  v3Index: string;
  v3: Map<string, { json: string; hash: string }>;
  v2: OpenApiV2;
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
  /** The last aggregated v2 document and what it was made of. */
  private aggregated: { served: OpenApiV2; from: readonly AggregatedSwagger[]; v2: OpenApiV2 } | undefined;

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
      this.built = { v3Index: JSON.stringify(v3.index), v3: v3.documents, v2: buildOpenApiV2(types, this.definitions) };
    }
    return this.built;
  }

  /** /openapi/v2: the served document, with the extension servers' merged in when there are any (made again when either changes). */
  private swagger(): OpenApiV2 {
    const served = this.documents().v2;
    const remote = this.remoteV2();
    if (remote.length === 0) return served;
    const last = this.aggregated;
    const same = last !== undefined && last.served === served && last.from.length === remote.length && last.from.every((r, i) => {
      const now = remote[i]!;
      return r.document === now.document && r.name === now.name && r.group === now.group && r.version === now.version &&
        r.groupPriorityMinimum === now.groupPriorityMinimum && r.versionPriority === now.versionPriority;
    });
    if (same) return last.v2;
    const v2 = swaggerForms(aggregateSwagger(served.document, remote));
    this.aggregated = { served, from: remote, v2 };
    return v2;
  }

  async serve(req: HttpRequest, res: HttpResponse, parts: string[], query: URLSearchParams): Promise<void> {
    const [version, ...rest] = parts;
    const built = this.documents();
    if (version === 'v2' && rest.length === 0) {
      const v2 = this.swagger();
      const etag = `"${v2.etag}"`;
      const headers = { ETag: etag, Vary: 'Accept' };
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      for (const m of parseAccept(req.headers.accept)) {
        if (m.q <= 0) continue;
        const essence = `${m.type}/${m.subtype}`;
        if (essence === v2Protobuf || essence === v2ProtobufContentType) return writeBytes(res, 200, v2ProtobufContentType, v2.protobuf, headers);
        if (essence === 'application/json' || essence === '*/*') return writeBytes(res, 200, 'application/json', v2.json, headers);
      }
      throw notAcceptable(`only the following media types are accepted: application/json, ${v2Protobuf}`);
    }
    if (version === 'v3' && rest.length === 0) {
      const remote = this.remote();
      if (remote.length === 0) {
        writeBytes(res, 200, 'application/json', built.v3Index);
        return;
      }
      // The extension servers' documents are listed beside the served ones (and proxied to them).
      const index = JSON.parse(built.v3Index) as { paths: Record<string, { serverRelativeURL: string }> };
      for (const r of remote) index.paths[r.path] ??= { serverRelativeURL: r.serverRelativeURL };
      writeBytes(res, 200, 'application/json', JSON.stringify(index));
      return;
    }
    if (version === 'v3') {
      const doc = built.v3.get(rest.join('/'));
      if (doc === undefined) throw notFoundPath();
      const etag = `"${doc.hash}"`;
      const requested = query.get('hash');
      // A hash that matches the current document may be cached for good; a stale one must not be.
      const cacheControl = requested === doc.hash ? 'public, immutable' : 'no-cache, private';
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { ETag: etag, 'Cache-Control': cacheControl });
        res.end();
        return;
      }
      writeBytes(res, 200, 'application/json', doc.json, { ETag: etag, 'Cache-Control': cacheControl, Vary: 'Accept' });
      return;
    }
    throw notFoundPath();
  }
}
