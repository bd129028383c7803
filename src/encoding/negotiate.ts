import { notAcceptable } from '../api/index.ts';
import { essenceOf, parseAccept, type MediaType } from './media-type.ts';

/** How an answer is serialised. Tables and protobuf come with later encodings. */
export type Serializer = 'json' | 'yaml';

export interface Negotiated {
  serializer: Serializer;
  /** The Content-Type of the answer. */
  contentType: string;
  /** The Accept entry chosen, with its parameters (as, g, v for Tables and discovery). */
  accepted: MediaType;
}

const serializers: Record<string, Serializer> = {
  'application/json': 'json',
  'application/yaml': 'yaml',
  '*/*': 'json',
};

const supportedTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * Picks the answer's encoding for an object or list. An entry asking for another
 * shape (`as=Table`, `as=APIGroupDiscoveryList`) is passed over unless `acceptShape`
 * takes it, like upstream's negotiation falls through to the next entry.
 * `application/*` matches nothing, as upstream (406).
 */
export function negotiateObject(accept: string | undefined, acceptShape?: (m: MediaType) => boolean): Negotiated {
  for (const m of parseAccept(accept)) {
    const serializer = serializers[essenceOf(m)];
    if (serializer === undefined) continue;
    if (m.params.as !== undefined && !(acceptShape?.(m) ?? false)) continue;
    const contentType = serializer === 'json' ? 'application/json' : 'application/yaml';
    return { serializer, contentType, accepted: m };
  }
  throw notAcceptable(`only the following media types are accepted: ${supportedTypes.join(', ')}`);
}
