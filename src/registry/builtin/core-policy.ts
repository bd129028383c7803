// core/v1 limitranges and resourcequotas.

import type { ResourceType } from '../resource-type.ts';
import { defaultTableColumns } from '../table-columns.ts';
import { limitRangeStrategy } from './limitranges.ts';
import { resourceQuotaColumns, resourceQuotaStrategy } from './resourcequotas.ts';
import { builtinType } from './skeleton.ts';

export function limitRangesType(): ResourceType {
  // Upstream's printer for LimitRanges has the default convertor's columns (printLimitRange), and an empty list's rows are [].
  return builtinType('', 'v1', 'limitranges', { allowCreateOnUpdate: true, strategy: limitRangeStrategy, tableColumns: [...defaultTableColumns] });
}

export function resourceQuotasType(): ResourceType {
  return builtinType('', 'v1', 'resourcequotas', { strategy: resourceQuotaStrategy, tableColumns: resourceQuotaColumns });
}
