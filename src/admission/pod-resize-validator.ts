// PodResizeValidator admission (upstream's plugin/pkg/admission/podresize, on by default
// in v1.36): a resize of a pod bound to a node must fit the node's allocatable cpu and
// memory, and the node must run Linux.

import { StatusError, type KubeObject, type StatusCause } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { integerValue, milliValue, parseQuantity, zeroQuantity } from '../api/quantity.ts';
import { nodeNameOf } from '../api/pod-references.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { podRequests } from './pod-resources.ts';

export interface NodeLookup {
  /** A node by name; undefined when there is none. */
  get(name: string): Promise<KubeObject | undefined>;
}

/** Upstream's admission.NewForbidden for a pod, with the cause a resizer (the VPA) looks for. */
function refused(attrs: AdmissionAttributes, message: string, cause?: string): StatusError {
  const causes: StatusCause[] | undefined = cause === undefined ? undefined : [{ reason: cause }];
  return new StatusError(403, 'Forbidden', `pods "${attrs.name}" is forbidden: ${message}`, { name: attrs.name, kind: 'pods', ...(causes ? { causes } : {}) });
}

/** What the pod's resize asks of the node that runs it, when it does not fit or the node is not Linux. */
function checkNode(attrs: AdmissionAttributes, pod: KubeObject, node: KubeObject): StatusError | undefined {
  const allocatable = isObject(node.status) && isObject(node.status.allocatable) ? node.status.allocatable : {};
  const requests = podRequests(pod, { withOverhead: true });
  const cpu = { requested: milliValue(requests.get('cpu') ?? zeroQuantity), allocatable: milliValue(parseQuantity(allocatable.cpu) ?? zeroQuantity) };
  const memory = { requested: integerValue(requests.get('memory') ?? zeroQuantity), allocatable: integerValue(parseQuantity(allocatable.memory) ?? zeroQuantity) };
  const short: string[] = [];
  if (cpu.requested > cpu.allocatable) short.push(`cpu, requested: ${cpu.requested}, allocatable: ${cpu.allocatable}`);
  if (memory.requested > memory.allocatable) short.push(`memory, requested: ${memory.requested}, allocatable: ${memory.allocatable}`);
  if (short.length > 0) return refused(attrs, `Node didn't have enough allocatable resources: ${short.join('; ')}`, 'NodeCapacity');
  const os = node.metadata.labels?.['kubernetes.io/os'];
  if (os !== 'linux') return refused(attrs, `pod resize is only supported on linux nodes, node "${node.metadata.name}" is "${os ?? ''}"`, 'UnsupportedPlatform');
  return undefined;
}

/** Updates through pods/resize that changed the spec (the generation moved) of a pod on a node. */
function applies(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== 'UPDATE' || attrs.group !== '' || attrs.resource !== 'pods' || attrs.subresource !== 'resize') return false;
  const { object, oldObject } = attrs;
  return object !== undefined && oldObject !== undefined && nodeNameOf(object) !== '' && object.metadata.generation !== oldObject.metadata.generation;
}

export function podResizeValidator(nodes: NodeLookup): AdmissionPlugin {
  return {
    name: 'PodResizeValidator',
    validate: unless((attrs) => !applies(attrs), async (attrs) => {
      const name = nodeNameOf(attrs.object!);
      const node = await nodes.get(name);
      if (node === undefined) throw refused(attrs, `node "${name}" not found`);
      const problem = checkNode(attrs, attrs.object!, node);
      if (problem !== undefined) throw problem;
    }),
  };
}
