// batch/v1 jobs and cronjobs.

import type { ResourceType } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function jobsType(): ResourceType {
  return builtinType('batch', 'v1', 'jobs', { strategy: specStatusStrategy() });
}

export function cronJobsType(): ResourceType {
  return builtinType('batch', 'v1', 'cronjobs', { strategy: specStatusStrategy() });
}
