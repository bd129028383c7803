// policy/v1 Eviction, the body of POST pods/{name}/eviction.

import type { Definitions } from '../types.ts';
import { META, objectMeta, ref, topLevel } from './build.ts';

export const policyDefinitions: Definitions = {
  'io.k8s.api.policy.v1.Eviction': topLevel(
    { group: 'policy', version: 'v1' },
    'Eviction',
    'Evicts a pod, subject to disruption budgets: POST it to the pod\'s eviction subresource.',
    { deleteOptions: ref(META + 'DeleteOptions', 'Options of the deletion.') },
    { metadata: objectMeta('Names the pod to evict.') },
  ),
};
