// meta.k8s.io's metadata-only views (PartialObjectMetadata and its list), what client-go's
// metadata informers and the garbage collector ask for.
import { notAcceptable, type KubeObject, type ListMeta, type PartialObjectMetadata } from '../api/index.ts';
import type { MetadataTarget } from './negotiate.ts';

export interface PartialObjectMetadataList {
  kind: 'PartialObjectMetadataList';
  apiVersion: string;
  metadata: ListMeta;
  items: PartialObjectMetadata[];
}

/** An object's metadata under kind PartialObjectMetadata, as upstream's meta.AsPartialObjectMetadata. */
export function partialObjectMetadata(obj: KubeObject, apiVersion: string): PartialObjectMetadata {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

/** Go's name for the type of an answer, as upstream's 406 messages print it (`*v1.ConfigMap`). */
function goTypeName(kind: string, apiVersion: string, custom: boolean): string {
  if (custom) return '*unstructured.Unstructured';
  const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  return `*${version}.${kind}`;
}

/**
 * The metadata view of one object; 406 when a list view was asked for, in upstream's words.
 * `custom` says the object is a custom resource (its Go type is Unstructured).
 */
export function objectAsMetadata(obj: KubeObject, target: MetadataTarget, custom: boolean): PartialObjectMetadata {
  if (target.kind !== 'PartialObjectMetadata') {
    throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(obj.kind ?? '', obj.apiVersion ?? '', custom)})`);
  }
  return partialObjectMetadata(obj, target.apiVersion);
}

/** The metadata view of a list; 406 when an object view was asked for. */
export function listAsMetadata(list: { kind: string; apiVersion: string; metadata: ListMeta }, items: readonly KubeObject[], target: MetadataTarget, custom: boolean): PartialObjectMetadataList {
  if (target.kind !== 'PartialObjectMetadataList') {
    const type = custom ? '*unstructured.UnstructuredList' : goTypeName(list.kind, list.apiVersion, false);
    throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${type})`);
  }
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: target.apiVersion,
    metadata: list.metadata,
    items: items.map((obj) => partialObjectMetadata(obj, target.apiVersion)),
  };
}
