// core/v1 limitranges and resourcequotas.

import type { ResourceType } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function limitRangesType(): ResourceType {
  return builtinType('', 'v1', 'limitranges', { allowCreateOnUpdate: true });
}

export function resourceQuotasType(): ResourceType {
  return builtinType('', 'v1', 'resourcequotas', { strategy: specStatusStrategy() });
}
