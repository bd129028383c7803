// NamespaceLifecycle admission: no new objects in a missing or terminating namespace.
import { notFound, StatusError, type KubeObject } from '../api/index.ts';
import type { AdmissionPlugin } from './chain.ts';

/**
 * Upstream's NamespaceLifecycle plugin: no new content in a namespace that does not
 * exist (404) or is being terminated (403, with the NamespaceTerminating cause clients
 * look for: kube-controller-manager's controllers stop retrying on it). It runs in the
 * mutating phase, first of all plugins, as upstream's Admit does, so that its answer
 * comes before any other plugin's (a pod's missing ServiceAccount in a terminating
 * namespace is refused for the namespace). Access reviews are not refused: their
 * answer would tell whether the namespace exists.
 */
export function namespaceLifecycle(getNamespace: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || !attrs.namespaced || attrs.namespace === '') return;
      if (attrs.group === 'authorization.k8s.io' && attrs.resource === 'localsubjectaccessreviews') return;
      // Creating a namespace-scoped object inside "namespaces" only happens for subresources.
      if (attrs.resource === 'namespaces') return;
      const namespace = await getNamespace(attrs.namespace);
      if (namespace === undefined) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
      const phase = (namespace.status as { phase?: string } | undefined)?.phase;
      if (namespace.metadata.deletionTimestamp !== undefined || phase === 'Terminating') {
        throw new StatusError(403, 'Forbidden', `${attrs.resource} "${attrs.name}" is forbidden: unable to create new content in namespace ${attrs.namespace} because it is being terminated`, {
          ...(attrs.name === '' ? {} : { name: attrs.name }), ...(attrs.group === '' ? {} : { group: attrs.group }), kind: attrs.resource,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' }],
        });
      }
    },
  };
}
