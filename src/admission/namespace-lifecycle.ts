// NamespaceLifecycle admission: no writes in a missing namespace, no new objects in a terminating one.
import { notFound, StatusError, type KubeObject } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';

/** Upstream registers the plugin with these: they may not be deleted. */
const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Upstream's NamespaceLifecycle plugin: no new content in a namespace that does not
 * exist (404) or is being terminated (403, with the NamespaceTerminating cause clients
 * look for: kube-controller-manager's controllers stop retrying on it), and no update of
 * what is left in a namespace that no longer exists (404; an object outlives its namespace
 * when the namespace's finalizers were removed by hand). It runs in the
 * mutating phase, first of all plugins, as upstream's Admit does, so that its answer
 * comes before any other plugin's (a pod's missing ServiceAccount in a terminating
 * namespace is refused for the namespace). Access reviews are not refused: their
 * answer would tell whether the namespace exists. The immortal namespaces may not be
 * deleted (403).
 */
export function namespaceLifecycle(
  getNamespace: (name: string) => Promise<KubeObject | undefined>,
  /** The namespace at once, as consistently as getNamespace, when that can be had (null: none); undefined otherwise. */
  namespaceNow?: (name: string) => KubeObject | null | undefined,
): AdmissionPlugin {
  const isNamespace = (attrs: AdmissionAttributes) => attrs.group === '' && attrs.resource === 'namespaces' && attrs.subresource === '';
  const notConcerned = (attrs: AdmissionAttributes) => (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') || !attrs.namespaced || attrs.namespace === ''
    || (attrs.group === 'authorization.k8s.io' && attrs.resource === 'localsubjectaccessreviews')
    // Creating a namespace-scoped object inside "namespaces" only happens for subresources.
    || attrs.resource === 'namespaces';
  // Most writes land in a namespace known at once to be active: no promise for them.
  const admitWrite = unless((attrs) => notConcerned(attrs) || isActive(namespaceNow?.(attrs.namespace)), async (attrs) => {
    const namespace = await getNamespace(attrs.namespace);
    if (namespace === undefined) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
    // An update in a terminating namespace goes on: its controllers finish their work there.
    if (attrs.operation === 'CREATE' && isTerminating(namespace)) {
      // admission.NewForbidden: the resource qualified by its group ("deployments.apps").
      throw admissionForbidden(attrs, `unable to create new content in namespace ${attrs.namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' },
      ]);
    }
  });
  return {
    name: 'NamespaceLifecycle',
    admit(attrs) {
      if (attrs.operation === 'DELETE' && isNamespace(attrs) && immortalNamespaces.has(attrs.name)) {
        throw new StatusError(403, 'Forbidden', `namespaces ${goQuote(attrs.name)} is forbidden: this namespace may not be deleted`, { name: attrs.name, kind: 'namespaces' });
      }
      return admitWrite(attrs);
    },
  };
}

function isTerminating(namespace: KubeObject): boolean {
  return namespace.metadata.deletionTimestamp !== undefined || (namespace.status as { phase?: string } | undefined)?.phase === 'Terminating';
}

function isActive(namespace: KubeObject | null | undefined): boolean {
  return namespace !== undefined && namespace !== null && !isTerminating(namespace);
}
