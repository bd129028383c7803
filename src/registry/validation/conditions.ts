// metav1 Conditions as apimachinery's ValidateConditions checks them (pkg/apis/meta/v1/validation),
// for every built-in status that carries a []metav1.Condition.

import type { StatusCause } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { byteLength, regexError } from '../../api/labels.ts';
import { child, duplicate, index, invalid, notSupported, required, tooLong, type FieldPath } from './field.ts';
import { isQualifiedName } from './names.ts';

const conditionStatuses = ['False', 'True', 'Unknown'];
const maxReasonLength = 1024;
const maxMessageLength = 32 * 1024;
const reasonFormat = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const reasonPattern = new RegExp(`^${reasonFormat}$`);
const reasonMessage =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** ValidateCondition: a qualified type, a known status, a generation not negative, a transition time, a reason of the right form. */
function validateCondition(condition: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = text(condition.type);
  for (const msg of isQualifiedName(type)) causes.push(invalid(child(path, 'type'), type, msg));
  const status = text(condition.status);
  if (!conditionStatuses.includes(status)) causes.push(notSupported(child(path, 'status'), status, conditionStatuses));
  const generation = typeof condition.observedGeneration === 'number' ? condition.observedGeneration : 0;
  if (generation < 0) causes.push(invalid(child(path, 'observedGeneration'), generation, 'must be greater than or equal to zero'));
  // Decoding leaves Go's zero time as null: both are "not set".
  if (text(condition.lastTransitionTime) === '') causes.push(required(child(path, 'lastTransitionTime'), 'must be set'));
  const reason = text(condition.reason);
  if (reason === '') {
    causes.push(required(child(path, 'reason'), 'must be set'));
  } else {
    if (!reasonPattern.test(reason)) {
      causes.push(invalid(child(path, 'reason'), reason, regexError(reasonMessage, reasonFormat, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    }
    if (byteLength(reason) > maxReasonLength) causes.push(tooLong(child(path, 'reason'), maxReasonLength));
  }
  if (byteLength(text(condition.message)) > maxMessageLength) causes.push(tooLong(child(path, 'message'), maxMessageLength));
  return causes;
}

/** ValidateConditions: at each condition, a repeated type first, then that condition's own causes. */
export function validateConditions(conditions: readonly JsonObject[], path: FieldPath): StatusCause[] {
  const seen = new Set<string>();
  return conditions.flatMap((condition, i) => {
    const at = index(path, i);
    const type = text(condition.type);
    const causes: StatusCause[] = [];
    if (seen.has(type)) causes.push(duplicate(child(at, 'type'), type));
    else seen.add(type);
    return [...causes, ...validateCondition(condition, at)];
  });
}
