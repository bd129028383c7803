// autoscaling/v2 horizontalpodautoscalers.

import type { ResourceType } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function horizontalPodAutoscalersType(): ResourceType {
  return builtinType('autoscaling', 'v2', 'horizontalpodautoscalers', { strategy: specStatusStrategy() });
}
