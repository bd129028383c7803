// The rules of pkg/apis/resource/validation that ResourceClaims and ResourceSlices (with
// DeviceClasses) share: upstream's list helpers, the names of drivers, pools, devices and
// attributes, opaque configuration, CEL selectors and binding conditions.

import type { StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { byteLength } from '../../api/labels.ts';
import { cel } from '../../cel/lazy.ts';
import { appendAll, child, duplicate, goJson, GoValue, index, invalid, required, tooLong, tooMany, type FieldPath } from '../validation/field.ts';
import { isCIdentifier, isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { arrayAt, itemsAt, objectAt, stringAt } from './object.ts';
import { validateNodeSelectorTerm } from './pod-scheduling.ts';
import { validateCSIDriverName } from './pod-volume-sources.ts';

// Limits of pkg/apis/resource (types.go).
export const deviceConfigMaxSize = 32;
export const deviceMaxIDLength = 32;
const selectorsMaxSize = 32;
const celExpressionMaxLength = 10 * 1024;
const opaqueParametersMaxLength = 10 * 1024;
const poolNameMaxLength = 253;
const bindingConditionsMaxSize = 4;

/** sets.List order (sorted), as upstream lists a taint's or toleration's effects. */
export const deviceTaintEffects = ['NoExecute', 'NoSchedule', 'None'];

export type Validate<T> = (item: T, path: FieldPath) => StatusCause[];

/** Upstream's validateSlice: too many items is the one error (no item is looked at then). */
export function validateSlice<T>(items: readonly T[], maxSize: number, each: Validate<T>, path: FieldPath): StatusCause[] {
  if (maxSize >= 0 && items.length > maxSize) return [tooMany(path, items.length, maxSize)];
  return items.flatMap((item, i) => each(item, index(path, i)));
}

/** Upstream's validateSet: validateSlice, then a duplicate key at each repeated item. */
export function validateSet<T>(items: readonly T[], maxSize: number, each: Validate<T>, key: (item: T) => unknown, path: FieldPath): StatusCause[] {
  if (maxSize >= 0 && items.length > maxSize) return [tooMany(path, items.length, maxSize)];
  const causes = items.flatMap((item, i) => each(item, index(path, i)));
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    const id = k instanceof GoValue ? k.text : JSON.stringify(k);
    if (seen.has(id)) causes.push(duplicate(index(path, i), k));
    else seen.add(id);
  });
  return causes;
}

/** metav1validation.ValidateLabelName: a qualified name. */
function labelName(name: string, path: FieldPath): StatusCause[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** A DRA driver's name: the rules of a CSI driver's (upstream reuses ValidateCSIDriverName). */
export function validateDriverName(name: string, path: FieldPath): StatusCause[] {
  return validateCSIDriverName(name, path);
}

/** validatePoolName: required, at most 253 bytes, DNS subdomains separated by '/'. */
export function validatePoolName(name: string, path: FieldPath): StatusCause[] {
  if (name === '') return [required(path)];
  const causes: StatusCause[] = [];
  if (byteLength(name) > poolNameMaxLength) causes.push(tooLong(path, poolNameMaxLength));
  for (const part of name.split('/')) appendAll(causes, isDNS1123Subdomain(part).map((msg) => invalid(path, part, msg)));
  return causes;
}

/** Core validation's ValidateNodeSelector (a slice's, a device's, an allocation's): at least one term, each with strict label values. */
export function validateNodeSelector(selector: JsonObject, path: FieldPath): StatusCause[] {
  const termsPath = child(path, 'nodeSelectorTerms');
  const terms = itemsAt(selector, 'nodeSelectorTerms');
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => validateNodeSelectorTerm(term, true, index(termsPath, i)));
}

/** A device's name in its pool: a DNS label. */
export function validateDeviceName(name: string, path: FieldPath): StatusCause[] {
  return isDNS1123Label(name).map((msg) => invalid(path, name, msg));
}

/** validateCIdentifier: an attribute or capacity name's identifier, at most 32 bytes. */
function validateCIdentifier(id: string, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (byteLength(id) > deviceMaxIDLength) causes.push(tooLong(path, deviceMaxIDLength));
  appendAll(causes, isCIdentifier(id).map((msg) => invalid(path, id, msg)));
  return causes;
}

/** validateQualifiedName: an attribute or capacity name, a C identifier with an optional `<driver name>/` domain. */
export function validateQualifiedName(name: string, path: FieldPath): StatusCause[] {
  const parts = name.split('/');
  if (parts.length === 1) return validateCIdentifier(name, path);
  // v1.36 checks no more than two parts: "a/b/c" passes (kubernetes/kubernetes#141869).
  if (parts.length !== 2) return [];
  const [domain, id] = parts as [string, string];
  return [
    ...(domain === '' ? [invalid(path, '', 'the domain must not be empty')] : validateDriverName(domain, path)),
    ...(id === '' ? [invalid(path, '', 'the name must not be empty')] : validateCIdentifier(id, path)),
  ];
}

/** validateFullyQualifiedName: a qualified name that has its domain. */
export function validateFullyQualifiedName(name: string, path: FieldPath): StatusCause[] {
  const causes = validateQualifiedName(name, path);
  if (!name.includes('/')) causes.push(invalid(path, name, 'a fully qualified name must be a domain and a name separated by a slash'));
  return causes;
}

/**
 * validateRawExtension: present, not over `maxLength` bytes (on create: stored data keeps
 * what an older limit allowed), and a JSON object. Its length is the compact JSON's.
 */
export function validateRawExtension(value: unknown, path: FieldPath, stored: boolean, maxLength: number): StatusCause[] {
  if (value === undefined || value === null) return [required(path)];
  if (!stored && byteLength(JSON.stringify(value)) > maxLength) return [tooLong(path, maxLength)];
  if (!isObject(value)) return [invalid(path, '<value omitted>', 'must be a valid JSON object')];
  return [];
}

/** validateDeviceConfiguration: opaque driver parameters, required (a claim's, a class's, an allocation's). */
export function validateDeviceConfiguration(config: JsonObject, path: FieldPath, stored: boolean): StatusCause[] {
  const opaque = objectAt(config, 'opaque');
  const opaquePath = child(path, 'opaque');
  if (opaque === undefined) return [required(opaquePath)];
  return [
    ...validateDriverName(stringAt(opaque, 'driver'), child(opaquePath, 'driver')),
    ...validateRawExtension(opaque.parameters, child(opaquePath, 'parameters'), stored, opaqueParametersMaxLength),
  ];
}

/** The variables a device selector sees. Upstream types `device`; here it is dynamic, so only the result's type is checked. */
const selectorVariables = { device: 'dyn' };

/**
 * validateCELSelector: at most 10 KiB, and an expression that compiles to a bool (or to
 * something whose type is only known when it runs). Upstream's cost limit is not estimated.
 */
function validateCELSelector(selector: JsonObject, path: FieldPath): StatusCause[] {
  const expression = stringAt(selector, 'expression');
  const expressionPath = child(path, 'expression');
  if (byteLength(expression) > celExpressionMaxLength) return [tooLong(expressionPath, celExpressionMaxLength)];
  const compiled = cel().compile(expression, selectorVariables);
  if (compiled.error !== undefined) return [invalid(expressionPath, expression, `compilation failed: ${compiled.error}`)];
  const type = compiled.type ?? 'dyn';
  if (type !== 'bool' && type !== 'dyn') return [invalid(expressionPath, expression, `must evaluate to bool or the unknown type, not ${type}`)];
  return [];
}

/** validateSelector: a CEL selector, required; a `stored` one (a class's, unchanged) is not compiled again. */
function validateDeviceSelector(selector: JsonObject, path: FieldPath, stored: boolean): StatusCause[] {
  const celSelector = objectAt(selector, 'cel');
  if (celSelector === undefined) return [required(child(path, 'cel'))];
  return stored ? [] : validateCELSelector(celSelector, child(path, 'cel'));
}

/** validateSelectorSlice: at most 32 selectors. */
export function validateDeviceSelectors(selectors: JsonObject[], path: FieldPath, stored = false): StatusCause[] {
  return validateSlice(selectors, selectorsMaxSize, (selector, p) => validateDeviceSelector(selector, p, stored), path);
}

/** validateDeviceBindingParameters: a device's (or allocation result's) binding conditions and binding failure conditions. */
export function validateDeviceBindingParameters(holder: JsonObject, path: FieldPath): StatusCause[] {
  const conditions = arrayAt(holder, 'bindingConditions').map(String);
  const failures = arrayAt(holder, 'bindingFailureConditions').map(String);
  const conditionsPath = child(path, 'bindingConditions');
  const failuresPath = child(path, 'bindingFailureConditions');
  const causes = [
    ...validateSlice(conditions, bindingConditionsMaxSize, labelName, conditionsPath),
    ...validateSlice(failures, bindingConditionsMaxSize, labelName, failuresPath),
  ];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    if (seen.has(c)) causes.push(duplicate(index(conditionsPath, i), c));
    else seen.add(c);
  });
  const seenFailures = new Set<string>();
  failures.forEach((c, i) => {
    if (seenFailures.has(c)) causes.push(duplicate(index(failuresPath, i), c));
    else seenFailures.add(c);
    if (conditions.includes(c)) causes.push(invalid(index(failuresPath, i), c, 'bindingFailureConditions must not overlap with bindingConditions'));
  });
  // The bad value is the Go slice: null when unset.
  const goSlice = (v: unknown) => (Array.isArray(v) ? goJson(v) : null);
  if (conditions.length === 0 && failures.length > 0) causes.push(invalid(conditionsPath, goSlice(holder.bindingConditions), 'bindingConditions are required to use bindingFailureConditions'));
  if (failures.length === 0 && conditions.length > 0) causes.push(invalid(failuresPath, goSlice(holder.bindingFailureConditions), 'bindingFailureConditions are required to use bindingConditions'));
  return causes;
}
