// Which message of messages.ts a (apiVersion, kind) is encoded as: the served kinds, their
// lists and their subresources' kinds as roots.ts (generated from upstream's discovery)
// lists them, plus the kinds of meta.k8s.io every version carries and its own, and the
// discovery documents'.

import { messages } from './messages.ts';
import { servedKinds } from './roots.ts';

/**
 * meta.k8s.io's own kinds: List (lists of mixed kinds) is served as "v1"; the metadata
 * views as meta.k8s.io/v1.
 */
const metaKinds: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // The discovery documents are meta/v1's unversioned kinds, and apidiscovery's lists.
  v1: { List: 'meta.v1.List', APIVersions: 'meta.v1.APIVersions', APIGroupList: 'meta.v1.APIGroupList', APIGroup: 'meta.v1.APIGroup', APIResourceList: 'meta.v1.APIResourceList' },
  'apidiscovery.k8s.io/v2': { APIGroupDiscoveryList: 'apidiscovery.v2.APIGroupDiscoveryList' },
  'apidiscovery.k8s.io/v2beta1': { APIGroupDiscoveryList: 'apidiscovery.v2beta1.APIGroupDiscoveryList' },
  'meta.k8s.io/v1': { PartialObjectMetadata: 'meta.v1.PartialObjectMetadata', PartialObjectMetadataList: 'meta.v1.PartialObjectMetadataList' },
  // v1beta1's object view is v1's type; its list numbers its fields the other way round.
  'meta.k8s.io/v1beta1': { PartialObjectMetadata: 'meta.v1.PartialObjectMetadata', PartialObjectMetadataList: 'meta.v1beta1.PartialObjectMetadataList' },
};

/**
 * Kinds every group version carries: metav1.AddToGroupVersion registers the options
 * types in each of them (client-go sends DeleteOptions as "apps/v1" for deployments),
 * and Status is unversioned.
 */
const inEveryVersion: Readonly<Record<string, string>> = {
  Status: 'meta.v1.Status',
  DeleteOptions: 'meta.v1.DeleteOptions',
};

function lookup(table: Readonly<Record<string, Readonly<Record<string, string>>>>, apiVersion: string, kind: string): string | undefined {
  return Object.hasOwn(table, apiVersion) && Object.hasOwn(table[apiVersion]!, kind) ? table[apiVersion]![kind] : undefined;
}

/** The message name for an apiVersion and kind, or undefined when there is none (custom resources). */
export function messageFor(apiVersion: string, kind: string): string | undefined {
  const name = Object.hasOwn(inEveryVersion, kind) ? inEveryVersion[kind]
    : lookup(servedKinds, apiVersion, kind) ?? lookup(metaKinds, apiVersion, kind);
  return name !== undefined && Object.hasOwn(messages, name) ? name : undefined;
}

/** Whether objects of this apiVersion and kind can be encoded to and decoded from Protobuf. */
export function hasProtobufDescriptor(apiVersion: string, kind: string): boolean {
  return messageFor(apiVersion, kind) !== undefined;
}

/**
 * The apiVersion a request's body of `kind` defaults to when its envelope names none
 * (upstream's copyKindDefaults takes the URL's group version): `apiVersion`, the request's,
 * when it has the kind; else the one served apiVersion of the same version that has it, as a
 * subresource's kind lives in a group of its own (pods/eviction: policy/v1 Eviction). Only
 * bodies without an apiVersion come here.
 */
export function apiVersionServing(apiVersion: string | undefined, kind: string): string {
  if (apiVersion !== undefined && messageFor(apiVersion, kind) !== undefined) return apiVersion;
  // A DELETE's options: meta.k8s.io's own (upstream's DeleteResource defaults to its MetaGroupVersion).
  if (Object.hasOwn(inEveryVersion, kind)) return 'meta.k8s.io/v1';
  const version = apiVersion?.slice(apiVersion.indexOf('/') + 1);
  const serving = Object.keys(servedKinds).filter((candidate) =>
    Object.hasOwn(servedKinds[candidate]!, kind) && (version === undefined || candidate.slice(candidate.indexOf('/') + 1) === version));
  return serving.length === 1 ? serving[0]! : apiVersion ?? '';
}
