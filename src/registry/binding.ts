// Binding a pod to a node: what a scheduler POSTs to pods/{name}/binding or to bindings
// (upstream's pkg/registry/core/pod/storage BindingREST).

import { badRequest, conflict, invalid, type KubeObject, type Status } from '../api/index.ts';
import { isObject, type JsonObject } from '../api/json.ts';
import { notSupported, required } from './validation/field.ts';
import type { StatusCause } from '../api/index.ts';
import { nowTimestamp } from './builtin/common.ts';
import { arrayAt, ensureObject, objectAt, stringAt } from './builtin/object.ts';
import type { Store } from './store.ts';

const bindingResource = { group: '', resource: 'pods/binding' };

/** Upstream's ValidatePodBinding: the target is a Node, named. */
export function validateBinding(binding: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = objectAt(binding, 'target') ?? {};
  const kind = stringAt(target, 'kind');
  if (kind !== '' && kind !== 'Node') causes.push(notSupported('target.kind', kind, ['Node', '<empty>']));
  if (stringAt(target, 'name') === '') causes.push(required('target.name'));
  return causes;
}

/** Sets the PodScheduled condition to True, keeping its transition time when it was True already (podutil.UpdatePodCondition). */
function markScheduled(pod: KubeObject): void {
  const status = ensureObject(pod as JsonObject, 'status');
  const conditions = arrayAt(status, 'conditions').filter(isObject);
  const at = conditions.findIndex((c) => c.type === 'PodScheduled');
  const previous = at >= 0 ? conditions[at]! : undefined;
  const condition: JsonObject = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: previous?.status === 'True' && previous.lastTransitionTime ? previous.lastTransitionTime : nowTimestamp(),
  };
  if (at >= 0) conditions[at] = condition;
  else conditions.push(condition);
  status.conditions = conditions;
}

/**
 * Assigns pod `name` to the Binding's target node: sets spec.nodeName, adds the Binding's
 * annotations and marks the pod scheduled. 409 when the pod is assigned already, being
 * deleted or still gated; 404 when it does not exist. Answers the Success Status of a
 * create, as upstream.
 */
export async function bindPod(pods: Store, namespace: string, name: string, binding: KubeObject, opts: { dryRun: boolean }): Promise<Status> {
  if (name !== (binding.metadata.name ?? '')) throw badRequest('name in URL does not match name in Binding object');
  const causes = validateBinding(binding);
  if (causes.length > 0) throw invalid('Binding', name, causes);
  const node = stringAt(objectAt(binding, 'target'), 'name');
  const uid = binding.metadata.uid;
  await pods.guaranteedUpdate(namespace, name, binding.metadata.resourceVersion, { dryRun: opts.dryRun }, (current) => {
    const pod = current!;
    if (uid !== undefined && uid !== '' && uid !== pod.metadata.uid) {
      throw conflict(bindingResource, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid}`);
    }
    if (pod.metadata.deletionTimestamp !== undefined) throw conflict(bindingResource, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const spec = ensureObject(pod as JsonObject, 'spec');
    const assigned = stringAt(spec, 'nodeName');
    if (assigned !== '') throw conflict(bindingResource, name, `pod ${name} is already assigned to node ${JSON.stringify(assigned)}`);
    if (arrayAt(spec, 'schedulingGates').length > 0) throw conflict(bindingResource, name, `pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = node;
    const annotations = binding.metadata.annotations ?? {};
    if (Object.keys(annotations).length > 0) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
    // The Binding's labels (PodTopologyLabels puts the node's zone and region there) overwrite the pod's.
    const labels = binding.metadata.labels ?? {};
    if (Object.keys(labels).length > 0) pod.metadata.labels = { ...pod.metadata.labels, ...labels };
    markScheduled(pod);
    return pod;
  }, { createIfMissing: false, subresource: 'binding' });
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}
