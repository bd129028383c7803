// core/v1 bindings: a Binding POSTed to a namespace binds the pod it names (registry/binding.ts);
// nothing is stored.

import type { ResourceType } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';

export function bindingsType(): ResourceType {
  return builtinType('', 'v1', 'bindings', { virtual: true });
}
