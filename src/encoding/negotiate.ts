// Content negotiation: which media type an answer is written in, from Accept.
import { notAcceptable } from '../api/index.ts';
import { essenceOf, parseAccept, type MediaType } from './media-type.ts';
import { tableTargetOf, type TableTarget } from './table.ts';

/** How an answer is serialised. Protobuf answers come with a later encoding. */
type Serializer = 'json' | 'yaml';

export interface Negotiated {
  serializer: Serializer;
  /** The Content-Type of the answer. */
  contentType: string;
  /** The Accept entry chosen, with its parameters (as, g, v for Tables and discovery). */
  accepted: MediaType;
  /** Set when the answer is a server-side Table rather than the object or list. */
  table?: TableTarget;
}

export interface NegotiateOptions {
  /** Tables may be answered (get, list and watch, the verbs upstream converts for `kubectl get`). */
  tables?: boolean;
  /** A watch stream: only serializers that can frame a stream, so not YAML (as upstream). */
  stream?: boolean;
  /** Another shape (`as=...`) the caller takes. */
  acceptShape?: (m: MediaType) => boolean;
}

const serializers: Record<string, Serializer> = {
  'application/json': 'json',
  'application/yaml': 'yaml',
  '*/*': 'json',
};

const supportedTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const supportedStreamTypes = ['application/json', 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf;stream=watch'];

/**
 * Picks the answer's encoding for an object or list. An entry asking for another shape
 * (`as=Table`, `as=APIGroupDiscoveryList`) is passed over unless it is a Table upstream
 * serves (`g=meta.k8s.io;v=v1|v1beta1`, JSON or YAML) and `tables` is set, or
 * `acceptShape` takes it, like upstream's negotiation falls through to the next entry.
 * `application/*` matches nothing, as upstream (406).
 */
export function negotiateObject(accept: string | undefined, opts: NegotiateOptions = {}): Negotiated {
  for (const m of parseAccept(accept)) {
    const serializer = serializers[essenceOf(m)];
    if (serializer === undefined) continue;
    if (opts.stream && serializer === 'yaml') continue;
    const contentType = serializer === 'json' ? 'application/json' : 'application/yaml';
    if (m.params.as !== undefined) {
      const table = opts.tables ? tableTargetOf(m) : undefined;
      if (table !== undefined) return { serializer, contentType, accepted: m, table };
      if (!(opts.acceptShape?.(m) ?? false)) continue;
    }
    return { serializer, contentType, accepted: m };
  }
  throw notAcceptable(`only the following media types are accepted: ${(opts.stream ? supportedStreamTypes : supportedTypes).join(', ')}`);
}
