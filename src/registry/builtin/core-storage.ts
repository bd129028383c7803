// core/v1 persistentvolumes and persistentvolumeclaims.

import type { ResourceType } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function persistentVolumesType(): ResourceType {
  return builtinType('', 'v1', 'persistentvolumes', { strategy: specStatusStrategy() });
}

export function persistentVolumeClaimsType(): ResourceType {
  return builtinType('', 'v1', 'persistentvolumeclaims', { strategy: specStatusStrategy() });
}
