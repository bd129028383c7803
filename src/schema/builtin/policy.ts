// policy/v1: PodDisruptionBudget, and Eviction, the body of POST pods/{name}/eviction.

import type { Definitions } from '../types.ts';
import { META, int32, int64, intOrString, labelSelector, listOf, mapOf, mergeList, object, objectMeta, ref, strEnum, time, topLevel } from './build.ts';

const POLICY = 'io.k8s.api.policy.v1.';
const policyV1 = { group: 'policy', version: 'v1' };

export const policyDefinitions: Definitions = {
  [POLICY + 'Eviction']: topLevel(
    policyV1,
    'Eviction',
    'Evicts a pod, subject to disruption budgets: POST it to the pod\'s eviction subresource.',
    { deleteOptions: ref(META + 'DeleteOptions', 'Options of the deletion.') },
    { metadata: objectMeta('Names the pod to evict.') },
  ),
  [POLICY + 'PodDisruptionBudget']: topLevel(policyV1, 'PodDisruptionBudget', 'The most disruption a collection of pods may take at once.', {
    spec: ref(POLICY + 'PodDisruptionBudgetSpec', 'The desired budget.'),
    status: ref(POLICY + 'PodDisruptionBudgetStatus', 'The most recently observed state of the budget; may lag behind the pods.'),
  }),
  [POLICY + 'PodDisruptionBudgetList']: listOf(policyV1, 'PodDisruptionBudget', POLICY + 'PodDisruptionBudget', 'The budgets.'),
  [POLICY + 'PodDisruptionBudgetSpec']: object('The budget of a set of pods.', {
    maxUnavailable: intOrString('At most this many selected pods (or this percentage) may be unavailable after an eviction. Exclusive with minAvailable.'),
    minAvailable: intOrString('At least this many selected pods (or this percentage) must stay available after an eviction. Exclusive with maxUnavailable.'),
    selector: {
      ...labelSelector('The pods the budget covers. An empty selector selects no pods for eviction.'),
      'x-kubernetes-patch-strategy': 'replace',
    },
    unhealthyPodEvictionPolicy: strEnum(['AlwaysAllow', 'IfHealthyBudget'], 'When pods that are running but not ready may be evicted: IfHealthyBudget (the default) only while the budget is met, AlwaysAllow always.'),
  }),
  [POLICY + 'PodDisruptionBudgetStatus']: object(
    'How many disruptions the budget allows now.',
    {
      conditions: mergeList(ref(META + 'Condition'), 'type', 'The budget\'s conditions; DisruptionAllowed says whether an eviction would be allowed now.'),
      currentHealthy: int32('Healthy pods now.'),
      desiredHealthy: int32('The fewest healthy pods the budget allows.'),
      disruptedPods: mapOf(time(), 'Pods whose eviction was allowed but whose deletion is not observed yet, with when it was allowed.'),
      disruptionsAllowed: int32('How many pods may be disrupted now.'),
      expectedPods: int32('How many pods the budget counts in total.'),
      observedGeneration: int64('The generation of the budget this status was computed for.'),
    },
    { required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] },
  ),
};
