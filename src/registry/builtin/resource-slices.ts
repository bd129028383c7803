// resource.k8s.io ResourceSlices and DeviceClasses as upstream's registry treats them
// (pkg/registry/resource/resourceslice, deviceclass and pkg/apis/resource/validation):
// their defaults, validation and update rules.

import type { Strategy } from '../resource-type.ts';
import { generationStrategy } from './common.ts';

/** A ResourceSlice's strategy: its generation moves with any change. */
export function resourceSliceStrategy(): Strategy {
  return generationStrategy();
}

/** A DeviceClass's strategy: its generation moves with any change. */
export function deviceClassStrategy(): Strategy {
  return generationStrategy();
}
