// Validation of label selectors and int-or-percent values, shared by the types that
// have them (deployments, pod disruption budgets, webhook configurations).

import type { StatusCause } from '../../api/index.ts';
import { appendAll, forbidden, goJson, type GoValue, invalid, required, validateNonnegative } from '../validation/field.ts';
import { isLabelValue, isQualifiedName, isValidPercent } from '../validation/names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { isObject, type JsonObject } from '../../api/json.ts';

/**
 * The causes of a selector requirement's values for its operator (In and NotIn need
 * some, Exists and DoesNotExist none); undefined for an operator that is not one of them.
 */
export function operatorValuesCauses(operator: unknown, values: readonly unknown[], path: string): StatusCause[] | undefined {
  switch (operator) {
    case 'In':
    case 'NotIn':
      return values.length === 0 ? [required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'")] : [];
    case 'Exists':
    case 'DoesNotExist':
      return values.length > 0 ? [forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")] : [];
    default:
      return undefined;
  }
}

/** metav1 ValidateLabelSelector, strict about values. */
export function validateLabelSelector(sel: JsonObject, path: string): StatusCause[] {
  const causes = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((raw, i) => {
    const expr = isObject(raw) ? raw : {};
    const p = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(expr.values) ? expr.values : [];
    const operatorCauses = operatorValuesCauses(expr.operator, values, p);
    if (operatorCauses === undefined) causes.push(invalid(`${p}.operator`, expr.operator ?? '', 'not a valid selector operator'));
    else appendAll(causes, operatorCauses);
    const key = String(expr.key ?? '');
    for (const msg of isQualifiedName(key)) causes.push(invalid(`${p}.key`, key, msg));
    values.forEach((v, j) => {
      for (const msg of isLabelValue(String(v))) causes.push(invalid(`${p}.values[${j}]`, String(v), msg));
    });
  });
  return causes;
}

/**
 * An int-or-string's amount as upstream's getIntOrPercentValue reads it: a percentage's
 * number, an integer as it is, and any other string as Go's strconv.Atoi (0 when it is not
 * a number), unset as 0.
 */
export function intOrPercentValue(v: unknown): { value: number; percent: boolean } {
  if (typeof v === 'number') return { value: v, percent: false };
  if (typeof v !== 'string') return { value: 0, percent: false };
  if (/^[0-9]+%$/.test(v)) return { value: Number(v.slice(0, -1)), percent: true };
  return { value: /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0, percent: false };
}

/** An intstr.IntOrString as json.Marshal writes it: its bare number or (quoted) string. */
export function goIntOrString(v: unknown): GoValue {
  return goJson(v);
}

export function validatePositiveIntOrPercent(v: unknown, path: string): StatusCause[] {
  if (typeof v === 'string') return isValidPercent(v).map((msg) => invalid(path, goIntOrString(v), msg));
  if (typeof v === 'number') return validateNonnegative(v, path);
  return [invalid(path, v ?? null, "must be an integer or percentage (e.g '5%')")];
}
