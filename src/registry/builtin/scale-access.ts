// The scale subresource's view of workload objects: spec.replicas, status.replicas and
// the pod selector as a string (upstream's scale storage of each workload).

import { isStatusError } from '../../api/index.ts';
import { labelSelectorFromObject, labelSelectorString } from '../../api/labels.ts';
import type { LabelSelectorObject } from '../../api/labels.ts';
import type { JsonObject } from '../../api/json.ts';
import type { ScaleAccess } from '../resource-type.ts';
import { ensureObject, numberAt, objectAt } from './object.ts';

function selectorString(selector: LabelSelectorObject | undefined): string {
  try {
    return labelSelectorString(labelSelectorFromObject(selector));
  } catch (err) {
    if (isStatusError(err)) return '';
    throw err;
  }
}

/**
 * Scale of a workload whose `spec.selector` is a LabelSelector (ReplicaSets,
 * StatefulSets) or, with `mapSelector`, a plain label map (ReplicationControllers).
 */
export function replicasScale(opts: { mapSelector?: boolean } = {}): ScaleAccess {
  return {
    get(obj) {
      const spec = objectAt(obj, 'spec') ?? {};
      const selector = objectAt(spec, 'selector');
      return {
        replicas: numberAt(spec, 'replicas') ?? 0,
        statusReplicas: numberAt(objectAt(obj, 'status'), 'replicas') ?? 0,
        selector: selectorString(opts.mapSelector === true && selector !== undefined ? { matchLabels: selector as Record<string, string> } : selector as LabelSelectorObject | undefined),
      };
    },
    set(obj, replicas) {
      ensureObject(obj as JsonObject, 'spec').replicas = replicas;
    },
    replicasPath: ['spec', 'replicas'],
  };
}
