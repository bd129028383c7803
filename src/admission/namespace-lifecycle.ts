// NamespaceLifecycle admission: no new objects in a missing or terminating namespace.
import { forbidden, notFound, type KubeObject } from '../api/index.ts';
import type { AdmissionPlugin } from './chain.ts';

/**
 * Upstream's NamespaceLifecycle plugin: no new content in a namespace that does not
 * exist (404) or is being terminated (403).
 */
export function namespaceLifecycle(getNamespace: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(attrs) {
      if (attrs.operation !== 'CREATE' || !attrs.namespaced || attrs.namespace === '') return;
      // Creating a namespace-scoped object inside "namespaces" only happens for subresources.
      if (attrs.resource === 'namespaces') return;
      const namespace = await getNamespace(attrs.namespace);
      if (namespace === undefined) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
      const phase = (namespace.status as { phase?: string } | undefined)?.phase;
      if (namespace.metadata.deletionTimestamp !== undefined || phase === 'Terminating') {
        throw forbidden(`${attrs.resource} "${attrs.name}" is forbidden: unable to create new content in namespace ${attrs.namespace} because it is being terminated`);
      }
    },
  };
}
