// Whether a schema holds CEL validation rules, read without loading CEL (lazy.ts).
import { isObject } from '../api/json.ts';

/** A schema node's `x-kubernetes-validations`, the entries that are objects. */
export function rulesOf(schema: Record<string, unknown>): Record<string, unknown>[] {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) ? rules.filter(isObject) : [];
}

/** Whether any node of the schema has rules. */
export function hasValidationRules(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (rulesOf(schema).length > 0) return true;
  if (isObject(schema.properties) && Object.values(schema.properties).some(hasValidationRules)) return true;
  return hasValidationRules(schema.items) || hasValidationRules(schema.additionalProperties);
}
