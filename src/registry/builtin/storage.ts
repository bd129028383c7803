// storage.k8s.io/v1 storageclasses, csidrivers, csinodes, csistoragecapacities,
// volumeattachments and volumeattributesclasses.

import type { ResourceType } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function storageClassesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'storageclasses');
}

export function csiDriversType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csidrivers');
}

export function csiNodesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csinodes');
}

export function csiStorageCapacitiesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csistoragecapacities');
}

export function volumeAttachmentsType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattachments', { strategy: specStatusStrategy() });
}

export function volumeAttributesClassesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattributesclasses');
}
