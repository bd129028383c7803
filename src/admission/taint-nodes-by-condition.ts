// TaintNodesByCondition admission (upstream's plugin/pkg/admission/nodetaint, on by
// default): a Node is created with the `node.kubernetes.io/not-ready:NoSchedule` taint
// unless it has one of that key and effect, so nothing is scheduled to it before its
// kubelet reports it Ready (the node lifecycle controller then removes the taint).
import type { AdmissionPlugin } from './chain.ts';
import { isObject } from '../api/json.ts';

const notReady = 'node.kubernetes.io/not-ready';

export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: 'TaintNodesByCondition',
    admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.group !== '' || attrs.resource !== 'nodes' || attrs.subresource !== '' || attrs.object === undefined) return;
      const spec = (attrs.object.spec ??= {}) as { taints?: unknown };
      const taints = Array.isArray(spec.taints) ? spec.taints : [];
      if (taints.some((t) => isObject(t) && t.key === notReady && t.effect === 'NoSchedule')) return;
      spec.taints = [...taints, { key: notReady, effect: 'NoSchedule' }];
    },
  };
}
