// autoscaling/v1 Scale, the body of every scale subresource.

import type { Definitions } from '../types.ts';
import { int32, object, ref, str, topLevel } from './build.ts';

const AUTOSCALING = 'io.k8s.api.autoscaling.v1.';

export const autoscalingDefinitions: Definitions = {
  [AUTOSCALING + 'Scale']: topLevel({ group: 'autoscaling', version: 'v1' }, 'Scale', 'The scale subresource of a scalable resource.', {
    spec: ref(AUTOSCALING + 'ScaleSpec', 'The desired scale.'),
    status: ref(AUTOSCALING + 'ScaleStatus', 'The observed scale. Read-only.'),
  }),
  [AUTOSCALING + 'ScaleSpec']: object('The desired scale.', {
    replicas: int32('Desired number of instances.'),
  }),
  [AUTOSCALING + 'ScaleStatus']: object(
    'The observed scale.',
    {
      replicas: int32('Actual number of instances.'),
      selector: str('Label selector of the pods counted, in string form ("app=web,tier in (a,b)").'),
    },
    { required: ['replicas'] },
  ),
};
