// Content negotiation: which media type and shape an answer is written in, from Accept.
import { notAcceptable } from '../api/index.ts';
import { essenceOf, parseAccept, type MediaType } from './media-type.ts';
import { tableTargetOf, type TableTarget } from './table.ts';

/** How an answer is serialised. */
export type Serializer = 'json' | 'yaml' | 'protobuf' | 'cbor';

export const jsonMediaType = 'application/json';
export const yamlMediaType = 'application/yaml';
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
export const cborMediaType = 'application/cbor';
export const cborSequenceMediaType = 'application/cbor-seq';

/** meta.k8s.io's metadata-only views of an object and of a list. */
export type MetadataKind = 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface MetadataTarget {
  kind: MetadataKind;
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  apiVersion: string;
}

export interface Negotiated {
  serializer: Serializer;
  /** The Content-Type of the answer (for a watch, the stream's). */
  contentType: string;
  /** The Accept entry chosen, with its parameters (as, g, v for Tables and discovery). */
  accepted: MediaType;
  /** Indented JSON (`pretty=1` in the entry, `?pretty=true`, or a browser or curl), as upstream's pretty serializer. */
  pretty: boolean;
  /** Set when the answer is a server-side Table rather than the object or list. */
  table?: TableTarget;
  /** Set when the answer is the metadata-only view of the object or list. */
  metadata?: MetadataTarget;
}

export interface NegotiateOptions {
  /** Tables may be answered (every resource endpoint converts to Tables, as upstream). */
  tables?: boolean;
  /** Metadata-only views may be answered (`as=PartialObjectMetadata[List]`). */
  metadata?: boolean;
  /** A watch stream: only serializers that can frame a stream, so not YAML. */
  stream?: boolean;
  /** The endpoint's objects have Protobuf messages (built-in types; not custom resources). */
  protobuf?: boolean;
  /** The CBORServingAndStorage feature gate. */
  cbor?: boolean;
  /** Indent JSON whatever the entry says (`?pretty`, the user agent). */
  pretty?: boolean;
  /** Another shape (`as=...`) the caller takes, in JSON (discovery documents). */
  acceptShape?: (m: MediaType) => boolean;
}

interface SerializerInfo {
  serializer: Serializer;
  mediaType: string;
  /** The Content-Type of its watch stream; undefined when it cannot stream. */
  streamType?: string;
  /** The name 406 answers list for its stream form. */
  streamName?: string;
}

const serializerInfos: readonly SerializerInfo[] = [
  { serializer: 'json', mediaType: jsonMediaType, streamType: jsonMediaType, streamName: `${jsonMediaType};stream=watch` },
  { serializer: 'yaml', mediaType: yamlMediaType },
  { serializer: 'protobuf', mediaType: protobufMediaType, streamType: `${protobufMediaType};stream=watch`, streamName: `${protobufMediaType};stream=watch` },
  { serializer: 'cbor', mediaType: cborMediaType, streamType: cborSequenceMediaType, streamName: cborSequenceMediaType },
];

/** The serializers the server has: CBOR only with its gate, as upstream. */
function serverSerializers(opts: NegotiateOptions): SerializerInfo[] {
  return serializerInfos.filter((s) => s.serializer !== 'cbor' || opts.cbor === true);
}

const metaGroup = 'meta.k8s.io';
const metaVersions = ['v1', 'v1beta1'];
const metadataKinds: readonly string[] = ['PartialObjectMetadata', 'PartialObjectMetadataList'];

/**
 * Which clause-to-serializer matches count: the exact type, or `*\/*`. A `type/*` range
 * matches nothing (`Accept: application/*` is 406 on kube-apiserver).
 */
function matches(m: MediaType, info: SerializerInfo): boolean {
  return essenceOf(m) === info.mediaType || (m.type === '*' && m.subtype === '*');
}

/**
 * The serializers the header refuses: those whose most specific matching entry has q=0
 * (`application/json;q=0, *\/*` still takes YAML), as upstream's negotiation.
 */
function rejected(clauses: readonly MediaType[], infos: readonly SerializerInfo[]): Set<Serializer> {
  const out = new Set<Serializer>();
  for (const info of infos) {
    let best = -1;
    for (const c of clauses) {
      const specificity = essenceOf(c) === info.mediaType ? 2 : c.type === '*' && c.subtype === '*' ? 0 : -1;
      if (specificity > best) {
        best = specificity;
        if (c.q <= 0) out.add(info.serializer);
        else out.delete(info.serializer);
      }
    }
  }
  return out;
}

type Outcome = Pick<Negotiated, 'table' | 'metadata'> & { pretty: boolean };

/**
 * Whether the endpoint serves this entry in this serializer, and in which shape: the
 * `as`/`g`/`v` parameters ask for a Table (JSON or YAML only, as upstream) or a metadata
 * view (any serializer, custom resources included); without them, the object in one of
 * the endpoint's own serializers.
 */
function acceptEntry(m: MediaType, info: SerializerInfo, opts: NegotiateOptions): Outcome | undefined {
  const { as, g, v, stream, pretty } = m.params;
  if (stream !== undefined && stream !== '' && (info.streamType === undefined || stream !== 'watch')) return undefined;
  const outcome: Outcome = { pretty: pretty === '1' };
  if (as === undefined && g === undefined && v === undefined) {
    return info.serializer !== 'protobuf' || opts.protobuf === true ? outcome : undefined;
  }
  if (g !== metaGroup || !metaVersions.includes(v ?? '')) {
    return opts.acceptShape?.(m) === true && info.serializer === 'json' ? outcome : undefined;
  }
  if (as === 'Table') {
    const table = opts.tables === true && (info.serializer === 'json' || info.serializer === 'yaml') ? tableTargetOf(m) : undefined;
    return table === undefined ? undefined : { ...outcome, table };
  }
  if (metadataKinds.includes(as ?? '') && opts.metadata === true) {
    return { ...outcome, metadata: { kind: as as MetadataKind, apiVersion: `${metaGroup}/${v}` } };
  }
  return undefined;
}

/**
 * Picks the answer's serializer and shape for an object, list or watch, as upstream's
 * negotiation: entries in order of q (then specificity, then header order), each tried
 * against the server's serializers in their order (JSON, YAML, Protobuf, CBOR); an
 * entry the endpoint cannot serve (a Table in Protobuf, Protobuf for a custom
 * resource, an unknown `as`) is passed over. No entry served is 406.
 */
export function negotiateObject(accept: string | undefined, opts: NegotiateOptions = {}): Negotiated {
  if (opts.acceptShape !== undefined) return negotiate(accept, opts);
  const key = `${opts.tables ? 1 : 0}${opts.metadata ? 1 : 0}${opts.stream ? 1 : 0}${opts.protobuf ? 1 : 0}${opts.cbor ? 1 : 0}${opts.pretty ? 1 : 0}${accept ?? '-'}`;
  let negotiated = negotiatedBefore.get(key);
  if (negotiated === undefined) {
    negotiated = frozen(negotiate(accept, opts));
    if (negotiatedBefore.size >= negotiatedBeforeLimit) negotiatedBefore.clear();
    negotiatedBefore.set(key, negotiated);
  }
  return negotiated;
}

/**
 * Outcomes negotiated before, by options and Accept header: clients send the same few
 * headers again and again. Shared between requests, so frozen. (A 406 is not kept.)
 */
const negotiatedBefore = new Map<string, Negotiated>();
const negotiatedBeforeLimit = 512;

function frozen(negotiated: Negotiated): Negotiated {
  Object.freeze(negotiated.accepted.params);
  Object.freeze(negotiated.accepted);
  if (negotiated.table !== undefined) Object.freeze(negotiated.table);
  if (negotiated.metadata !== undefined) Object.freeze(negotiated.metadata);
  return Object.freeze(negotiated);
}

function negotiate(accept: string | undefined, opts: NegotiateOptions): Negotiated {
  const infos = serverSerializers(opts).filter((s) => !opts.stream || s.streamType !== undefined);
  const clauses = parseAccept(accept);
  const refused = rejected(clauses, infos);
  for (const m of clauses) {
    if (m.q <= 0) continue;
    for (const info of infos) {
      if (refused.has(info.serializer) || !matches(m, info)) continue;
      const outcome = acceptEntry(m, info, opts);
      if (outcome === undefined) continue;
      return {
        serializer: info.serializer,
        contentType: opts.stream ? info.streamType! : info.mediaType,
        accepted: m,
        ...outcome,
        pretty: info.serializer === 'json' && (outcome.pretty || opts.pretty === true),
      };
    }
  }
  throw notAcceptable(`only the following media types are accepted: ${supportedMediaTypes(opts).join(', ')}`);
}

/** The media types a 406 names: the server's serializers, or their stream forms for a watch. */
function supportedMediaTypes(opts: NegotiateOptions): string[] {
  const infos = serverSerializers(opts);
  return opts.stream ? infos.flatMap((s) => (s.streamName === undefined ? [] : [s.streamName])) : infos.map((s) => s.mediaType);
}

/**
 * The encoding of an error's Status: negotiated like an object but with no conversions
 * (a Table or metadata entry is passed over), and JSON when nothing fits, as upstream
 * never hides an error behind a 406.
 */
export function negotiateStatus(accept: string | undefined, opts: { cbor?: boolean; pretty?: boolean } = {}): Negotiated {
  try {
    return negotiateObject(accept, { protobuf: true, cbor: opts.cbor ?? false, pretty: opts.pretty ?? false });
  } catch {
    return { serializer: 'json', contentType: jsonMediaType, accepted: { type: 'application', subtype: 'json', params: {}, q: 1 }, pretty: opts.pretty ?? false };
  }
}

/**
 * Whether the request asks for indented JSON by its query or user agent, as upstream:
 * `?pretty=` parsed as a Go boolean, else curl, Wget and browsers.
 */
export function wantsPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pretty = query.get('pretty');
  if (pretty !== null && pretty !== '') return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(pretty);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
