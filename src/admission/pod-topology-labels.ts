// PodTopologyLabels admission (upstream's plugin/pkg/admission/podtopologylabels, on by
// default since its gate went beta in v1.35): a pod created on a node, or bound to one,
// gets the node's `topology.kubernetes.io/zone` and `region` labels, overwriting its own,
// so workloads can read their zone through the downward API. A Binding carries them, and
// binding copies its labels onto the pod.
import type { KubeObject } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';

const topologyLabels = ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];

/** The node a pod is created on or a Binding binds it to; '' when none. */
function targetNode(attrs: AdmissionAttributes): string {
  const object = attrs.object!;
  if (attrs.subresource === 'binding') {
    const target = isObject(object.target) ? object.target : {};
    return target.kind === 'Node' && typeof target.name === 'string' ? target.name : '';
  }
  return isObject(object.spec) && typeof object.spec.nodeName === 'string' ? object.spec.nodeName : '';
}

export function podTopologyLabels(node: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'PodTopologyLabels',
    admit: unless((attrs) => attrs.operation !== 'CREATE' || attrs.group !== '' || attrs.resource !== 'pods'
      || (attrs.subresource !== '' && attrs.subresource !== 'binding') || attrs.object === undefined || targetNode(attrs) === '', async (attrs) => {
      const labels = (await node(targetNode(attrs)))?.metadata.labels ?? {};
      const copied = topologyLabels.filter((key) => Object.hasOwn(labels, key));
      if (copied.length === 0) return;
      const metadata = attrs.object!.metadata;
      metadata.labels = { ...metadata.labels };
      for (const key of copied) metadata.labels[key] = labels[key]!;
    }),
  };
}
