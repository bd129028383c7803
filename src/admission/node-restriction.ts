// NodeRestriction admission (upstream's plugin/pkg/admission/noderestriction; off unless
// `--enable-admission-plugins NodeRestriction`, as upstream): what the Node authorizer
// lets any kubelet write, held to the kubelet's own node. Mirror pods bound to it that
// reference nothing else, the status of its own pods, evictions of them, its own Node
// (not its taints, nor labels outside the kubelet's set), its own Lease, CSINode and
// ResourceSlices, tokens only for its own pods, a claim's status only, node CSRs only in
// its own name. Requests from anyone but a node pass untouched.
import { notFound, type KubeObject } from '../api/index.ts';
import { deepEqual, isObject } from '../api/json.ts';
import { appendAll, goQuote } from '../api/field-errors.ts';
import { nodeIdentity } from '../api/node-identity.ts';
import { mirrorPodAnnotation, nodeNameOf, podConfigMapNames, podSecretNames, sameResourceClaimStatuses } from '../api/pod-references.ts';
import { currentRequest } from '../api/request-context.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.ts';
import { csrSubject } from './csr-subject.ts';
import { admissionForbidden } from './forbidden.ts';

export interface NodeRestrictionSources {
  /** A pod as the watch cache holds it; undefined when there is none. */
  pod(namespace: string, name: string): Promise<KubeObject | undefined>;
  node(name: string): Promise<KubeObject | undefined>;
}

export const nodeRestrictionPluginName = 'NodeRestriction';

/** The namespace of the nodes' heartbeat Leases. */
const nodeLeaseNamespace = 'kube-node-lease';

export function nodeRestriction(sources: NodeRestrictionSources): AdmissionPlugin {
  return {
    name: nodeRestrictionPluginName,
    admit(attrs) {
      const user = currentRequest()?.user;
      const identity = user === undefined ? undefined : nodeIdentity(user);
      if (identity === undefined) return undefined;
      if (identity.nodeName === '') throw admissionForbidden(attrs, `could not determine node from user ${goQuote(user!.name)}`);
      return admitNodeRequest(sources, identity.nodeName, attrs);
    },
  };
}

async function admitNodeRequest(sources: NodeRestrictionSources, nodeName: string, attrs: AdmissionAttributes): Promise<void> {
  switch (`${attrs.group}/${attrs.resource}`) {
    case '/pods':
      switch (attrs.subresource) {
        case '': return admitPod(sources, nodeName, attrs);
        case 'status': return admitPodStatus(nodeName, attrs);
        case 'eviction': return admitEviction(sources, nodeName, attrs);
        default: throw admissionForbidden(attrs, `unexpected pod subresource ${goQuote(attrs.subresource)}, only 'status' and 'eviction' are allowed`);
      }
    case '/nodes': return admitNode(nodeName, attrs);
    case '/persistentvolumeclaims':
      if (attrs.subresource !== 'status') throw admissionForbidden(attrs, 'may only update PVC status');
      return admitClaimStatus(nodeName, attrs);
    case '/serviceaccounts': return admitTokenRequest(sources, nodeName, attrs);
    case 'coordination.k8s.io/leases':
      if (attrs.namespace !== nodeLeaseNamespace) throw admissionForbidden(attrs, `can only access leases in the ${goQuote(nodeLeaseNamespace)} system namespace`);
      return ownName(nodeName, attrs, 'can only access node lease with the same name as the requesting node');
    case 'storage.k8s.io/csinodes': return ownName(nodeName, attrs, 'can only access CSINode with the same name as the requesting node');
    case 'resource.k8s.io/resourceslices': return admitResourceSlice(nodeName, attrs);
    case 'certificates.k8s.io/certificatesigningrequests': return admitNodeCsr(nodeName, attrs);
  }
}

async function admitPod(sources: NodeRestrictionSources, nodeName: string, attrs: AdmissionAttributes): Promise<void> {
  if (attrs.operation === 'CREATE') return admitMirrorPod(sources, nodeName, attrs);
  if (attrs.operation === 'DELETE') {
    const pod = await sources.pod(attrs.namespace, attrs.name);
    if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, attrs.name);
    if (nodeNameOf(pod) !== nodeName) throw admissionForbidden(attrs, `node ${goQuote(nodeName)} can only delete pods with spec.nodeName set to itself`);
    return;
  }
  throw admissionForbidden(attrs, `unexpected operation ${goQuote(attrs.operation)}, node ${goQuote(nodeName)} can only create and delete mirror pods`);
}

/** A kubelet creates only the mirror pods of its static pods: bound to it, owned by its Node, referencing nothing. */
async function admitMirrorPod(sources: NodeRestrictionSources, nodeName: string, attrs: AdmissionAttributes): Promise<void> {
  const pod = attrs.object!;
  const node = goQuote(nodeName);
  if (!Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation)) {
    throw admissionForbidden(attrs, `pod does not have ${goQuote(mirrorPodAnnotation)} annotation, node ${node} can only create mirror pods`);
  }
  if (nodeNameOf(pod) !== nodeName) throw admissionForbidden(attrs, `node ${node} can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw admissionForbidden(attrs, `node ${node} can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (owner === undefined || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
    throw admissionForbidden(attrs, `node ${node} can only create pods with an owner reference set to itself`);
  }
  if (owner.controller !== true) throw admissionForbidden(attrs, `node ${node} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw admissionForbidden(attrs, `node ${node} must not set blockOwnerDeletion on an owner reference`);
  const nodeObject = await sources.node(nodeName);
  if (nodeObject === undefined) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  if (owner.uid !== nodeObject.metadata.uid) throw admissionForbidden(attrs, `node ${nodeName} UID mismatch: expected ${owner.uid ?? ''} got ${nodeObject.metadata.uid ?? ''}`);

  const spec = isObject(pod.spec) ? pod.spec : {};
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') throw admissionForbidden(attrs, `node ${node} can not create pods that reference a service account`);
  if (podSecretNames(pod).length > 0) throw admissionForbidden(attrs, `node ${node} can not create pods that reference secrets`);
  if (podConfigMapNames(pod).length > 0) throw admissionForbidden(attrs, `node ${node} can not create pods that reference configmaps`);
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isObject) : [];
  const projections = volumes.flatMap((v) => (isObject(v.projected) && Array.isArray(v.projected.sources) ? v.projected.sources.filter(isObject) : []));
  if (projections.some((s) => isObject(s.clusterTrustBundle))) throw admissionForbidden(attrs, `node ${node} can not create pods that reference clustertrustbundles`);
  if (volumes.some((v) => isObject(v.persistentVolumeClaim))) throw admissionForbidden(attrs, `node ${node} can not create pods that reference persistentvolumeclaims`);
}

function admitPodStatus(nodeName: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'UPDATE') throw admissionForbidden(attrs, `unexpected operation ${goQuote(attrs.operation)}`);
  const old = attrs.oldObject!;
  const node = goQuote(nodeName);
  if (nodeNameOf(old) !== nodeName) throw admissionForbidden(attrs, `node ${node} can only update pod status for pods with spec.nodeName set to itself`);
  if (!deepEqual(old.metadata.labels ?? {}, attrs.object!.metadata.labels ?? {})) throw admissionForbidden(attrs, `node ${node} cannot update labels through pod status`);
  // Upstream's message has the typo.
  if (!sameResourceClaimStatuses(old, attrs.object!)) throw admissionForbidden(attrs, `node ${node} cannot update resource claim statues`);
}

async function admitEviction(sources: NodeRestrictionSources, nodeName: string, attrs: AdmissionAttributes): Promise<void> {
  if (attrs.operation !== 'CREATE') throw admissionForbidden(attrs, `unexpected operation ${attrs.operation}`);
  // The pod the path names, else the one the Eviction names.
  const podName = attrs.name || (attrs.object?.metadata.name ?? '');
  if (podName === '') throw admissionForbidden(attrs, 'could not determine pod from request data');
  const pod = await sources.pod(attrs.namespace, podName);
  if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, podName);
  if (nodeNameOf(pod) !== nodeName) throw admissionForbidden(attrs, `node ${nodeName} can only evict pods with spec.nodeName set to itself`);
}

/**
 * A claim's status: only its capacity, conditions and what expansion recovery writes
 * (allocated resources and their statuses) may change, nothing in its metadata or spec.
 */
function admitClaimStatus(nodeName: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'UPDATE') throw admissionForbidden(attrs, `unexpected operation ${goQuote(attrs.operation)}`);
  const comparable = (claim: KubeObject) => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = claim.metadata;
    const status = isObject(claim.status) ? { ...claim.status } : {};
    for (const field of ['capacity', 'conditions', 'allocatedResourceStatuses', 'allocatedResources']) delete status[field];
    return { ...claim, metadata, status };
  };
  const before = comparable(attrs.oldObject!);
  const after = comparable(attrs.object!);
  if (deepEqual(before, after)) return;
  // Upstream appends Go's cmp.Diff of the two claims; here, the fields that differ.
  throw admissionForbidden(attrs, `node ${goQuote(nodeName)} is not allowed to update fields other than status.quantity and status.conditions: ${differingFields(before, after, '', 2).join(', ')}`);
}

/** The paths (to `depth` levels) where two JSON objects differ. */
function differingFields(a: Record<string, unknown>, b: Record<string, unknown>, prefix: string, depth: number): string[] {
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (deepEqual(a[key], b[key])) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (depth > 1 && (isObject(a[key]) || isObject(b[key]))) appendAll(out, differingFields(asObject(a[key]), asObject(b[key]), path, depth - 1));
    else out.push(path);
  }
  return out;
}

function admitNode(nodeName: string, attrs: AdmissionAttributes): void {
  if (attrs.name !== nodeName) throw admissionForbidden(attrs, `node ${goQuote(nodeName)} is not allowed to modify node ${goQuote(attrs.name)}`);
  const node = attrs.object;
  if (attrs.operation === 'CREATE') {
    if (configSourceOf(node!) !== undefined) throw admissionForbidden(attrs, `node ${goQuote(nodeName)} is not allowed to create pods with a non-nil configSource`);
    const forbidden = forbiddenLabels(modifiedLabels(node!.metadata.labels ?? {}, {}));
    if (forbidden.length > 0) throw admissionForbidden(attrs, `node ${goQuote(nodeName)} is not allowed to set the following labels: ${forbidden.join(', ')}`);
  } else if (attrs.operation === 'UPDATE') {
    const old = attrs.oldObject!;
    const source = configSourceOf(node!);
    if (source !== undefined && !deepEqual(source, configSourceOf(old))) {
      throw admissionForbidden(attrs, `node ${goQuote(nodeName)} is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!deepEqual(taintsOf(node!), taintsOf(old))) throw admissionForbidden(attrs, `node ${goQuote(nodeName)} is not allowed to modify taints`);
    const forbidden = forbiddenLabels(modifiedLabels(node!.metadata.labels ?? {}, old.metadata.labels ?? {}));
    // Upstream's message names no node here.
    if (forbidden.length > 0) throw admissionForbidden(attrs, `is not allowed to modify labels: ${forbidden.join(', ')}`);
  }
}

async function admitTokenRequest(sources: NodeRestrictionSources, nodeName: string, attrs: AdmissionAttributes): Promise<void> {
  if (attrs.operation !== 'CREATE' || attrs.subresource !== 'token') return;
  const spec = isObject(attrs.object?.spec) ? attrs.object.spec : {};
  const ref = isObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (ref === undefined || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || (ref.name ?? '') === '') throw admissionForbidden(attrs, 'node requested token not bound to a pod');
  if ((ref.uid ?? '') === '') throw admissionForbidden(attrs, 'node requested token with a pod binding without a uid');
  const name = String(ref.name);
  const pod = await sources.pod(attrs.namespace, name);
  if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, name);
  if (ref.uid !== pod.metadata.uid) {
    throw admissionForbidden(attrs, `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (nodeNameOf(pod) !== nodeName) throw admissionForbidden(attrs, 'node requested token bound to a pod scheduled on a different node');
}

/** A Lease or CSINode of the node's own name: a create's from the object, anything else's from the path. */
function ownName(nodeName: string, attrs: AdmissionAttributes, message: string): void {
  const name = attrs.operation === 'CREATE' ? attrs.object?.metadata.name ?? '' : attrs.name;
  if (name !== nodeName) throw admissionForbidden(attrs, message);
}

function admitResourceSlice(nodeName: string, attrs: AdmissionAttributes): void {
  if (attrs.operation === 'CREATE' && nodeNameOf(attrs.object!) !== nodeName) {
    throw admissionForbidden(attrs, 'can only create ResourceSlice with the same NodeName as the requesting node');
  }
  if (attrs.operation === 'DELETE' && nodeNameOf(attrs.oldObject!) !== nodeName) {
    throw admissionForbidden(attrs, 'can only delete ResourceSlice with the same NodeName as the requesting node');
  }
}

const nodeSigners = new Set(['kubernetes.io/kubelet-serving', 'kubernetes.io/kube-apiserver-client-kubelet']);

/** A CSR for a kubelet's serving or client certificate names this node and no other. */
function admitNodeCsr(nodeName: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'CREATE') return;
  const spec = isObject(attrs.object?.spec) ? attrs.object.spec : {};
  if (typeof spec.signerName !== 'string' || !nodeSigners.has(spec.signerName)) return;
  const request = typeof spec.request === 'string' ? Buffer.from(spec.request, 'base64').toString('latin1') : '';
  const subject = csrSubject(request);
  if ('error' in subject) throw admissionForbidden(attrs, `unable to parse csr: ${subject.error}`);
  if (subject.commonName !== `system:node:${nodeName}`) throw admissionForbidden(attrs, `can only create a node CSR with CN=system:node:${nodeName}`);
}

function asObject(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}


function configSourceOf(node: KubeObject): unknown {
  const source = isObject(node.spec) ? node.spec.configSource : undefined;
  return source === null ? undefined : source;
}

/** A node's taints, none and an empty list alike (apimachinery's semantic equality). */
function taintsOf(node: KubeObject): unknown[] {
  return isObject(node.spec) && Array.isArray(node.spec.taints) ? node.spec.taints : [];
}

/** The label keys added, removed or changed between two label maps, sorted. */
function modifiedLabels(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(a)) if (b[key] !== value) keys.add(key);
  for (const [key, value] of Object.entries(b)) if (a[key] !== value) keys.add(key);
  return [...keys].sort();
}

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

const inNamespace = (namespace: string, domain: string) => namespace === domain || namespace.endsWith(`.${domain}`);

/** The labels a kubelet sets on its Node itself (k8s.io/kubelet's IsKubeletLabel). */
const kubeletLabels = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type',
  'kubernetes.io/os', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);

function isKubeletLabel(key: string): boolean {
  if (kubeletLabels.has(key)) return true;
  const namespace = labelNamespace(key);
  return inNamespace(namespace, 'kubelet.kubernetes.io') || inNamespace(namespace, 'node.kubernetes.io');
}

/**
 * Of the changed labels, those a node may not set: node-restriction.kubernetes.io's, and
 * kubernetes.io's and k8s.io's beyond the kubelet's own (a node could steer privileged
 * workloads to itself with them).
 */
function forbiddenLabels(modified: readonly string[]): string[] {
  return modified.filter((key) => {
    const namespace = labelNamespace(key);
    if (inNamespace(namespace, 'node-restriction.kubernetes.io')) return true;
    const kubernetes = inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
    return kubernetes && !isKubeletLabel(key);
  });
}
