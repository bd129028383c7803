// core/v1 limitranges and resourcequotas.

import type { ResourceType } from '../resource-type.ts';
import { limitRangeStrategy } from './limitranges.ts';
import { resourceQuotaColumns, resourceQuotaStrategy } from './resourcequotas.ts';
import { builtinType } from './skeleton.ts';

export function limitRangesType(): ResourceType {
  return builtinType('', 'v1', 'limitranges', { allowCreateOnUpdate: true, strategy: limitRangeStrategy });
}

export function resourceQuotasType(): ResourceType {
  return builtinType('', 'v1', 'resourcequotas', { strategy: resourceQuotaStrategy, tableColumns: resourceQuotaColumns });
}
