// Small literal ResourceTypes for the OpenAPI tests: the built-in kinds Plinth serves.

import type { ResourceType, Verb } from '../../src/registry/resource-type.ts';

const allVerbs: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function type(
  group: string,
  version: string,
  kind: string,
  resource: string,
  namespaced: boolean,
  schemaName: string,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return {
    group,
    version,
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: [],
    categories: [],
    verbs: allVerbs,
    subresources: [],
    schemaName,
    strategy: {},
    allowCreateOnUpdate: false,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    ...extra,
  };
}

export const builtinTypes: ResourceType[] = [
  type('', 'v1', 'Namespace', 'namespaces', false, 'io.k8s.api.core.v1.Namespace', {
    subresources: ['status', 'finalize'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }),
  type('', 'v1', 'ConfigMap', 'configmaps', true, 'io.k8s.api.core.v1.ConfigMap'),
  type('', 'v1', 'Secret', 'secrets', true, 'io.k8s.api.core.v1.Secret'),
  type('', 'v1', 'ServiceAccount', 'serviceaccounts', true, 'io.k8s.api.core.v1.ServiceAccount'),
  type('', 'v1', 'Event', 'events', true, 'io.k8s.api.core.v1.Event'),
  type('', 'v1', 'Service', 'services', true, 'io.k8s.api.core.v1.Service', { subresources: ['status'] }),
  type('', 'v1', 'Endpoints', 'endpoints', true, 'io.k8s.api.core.v1.Endpoints'),
  type('', 'v1', 'Node', 'nodes', false, 'io.k8s.api.core.v1.Node', { subresources: ['status'] }),
  type('', 'v1', 'Pod', 'pods', true, 'io.k8s.api.core.v1.Pod', {
    subresources: ['status', 'eviction', 'binding', 'ephemeralcontainers', 'log'],
    deleteReturnsObject: true,
  }),
  type('coordination.k8s.io', 'v1', 'Lease', 'leases', true, 'io.k8s.api.coordination.v1.Lease'),
  type('apps', 'v1', 'Deployment', 'deployments', true, 'io.k8s.api.apps.v1.Deployment', { subresources: ['status', 'scale'] }),
];

/** A custom resource type with its own (unlisted) schema, as a CRD would bring. */
export function widgetType(): ResourceType {
  return type('stable.example.com', 'v1', 'Widget', 'widgets', true, 'com.example.stable.v1.Widget', { subresources: ['status'] });
}
