// CRD status conditions, as apiextensions' helpers set them (SetCRDCondition): the
// transition time moves only when the status does.

import { isObject } from '../../api/json.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionCondition } from './types.ts';

export function setCondition(crd: CustomResourceDefinition, condition: Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>, now: string): void {
  if (!isObject(crd.status)) crd.status = {};
  const conditions = Array.isArray(crd.status.conditions) ? crd.status.conditions : [];
  crd.status.conditions = conditions;
  const existing = conditions.find((c) => c.type === condition.type);
  if (existing === undefined) {
    const added: CustomResourceDefinitionCondition = { type: condition.type, status: condition.status, lastTransitionTime: now };
    if (condition.reason !== undefined) added.reason = condition.reason;
    if (condition.message !== undefined) added.message = condition.message;
    conditions.push(added);
    return;
  }
  if (existing.status !== condition.status || existing.lastTransitionTime === undefined) {
    existing.status = condition.status;
    existing.lastTransitionTime = now;
  }
  existing.reason = condition.reason;
  existing.message = condition.message;
}
