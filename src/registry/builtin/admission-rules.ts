// What admissionregistration.k8s.io's webhook configurations and admission policies validate
// alike (upstream's pkg/apis/admissionregistration/validation): rules with operations,
// match conditions, the values their enumerations accept and the reserved static name suffix.

import { cel } from '../../cel/lazy.ts';
import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { appendAll, duplicate, invalid, notSupported, required, tooMany } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';
import { stringAt } from './object.ts';

export const failurePolicies = ['Fail', 'Ignore'];
export const matchPolicies = ['Equivalent', 'Exact'];
export const reinvocationPolicies = ['IfNeeded', 'Never'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];

/**
 * The name suffix kube-apiserver v1.36 reserves for configurations loaded from manifest files
 * (ManifestBasedAdmissionControlConfig, alpha and off): with the gate off, a write through the
 * API is only warned (upstream's WarningsForStaticSuffix, on create and update of every kind).
 */
const staticConfigSuffix = '.static.k8s.io';

export function staticSuffixWarnings(obj: KubeObject): string[] {
  if (!(obj.metadata.name ?? '').endsWith(staticConfigSuffix)) return [];
  return [`metadata.name: names ending with "${staticConfigSuffix}" are reserved for static manifest-based configurations and cannot be managed via the API`];
}

/**
 * A default for a field Go decodes into a pointer: only a missing or null value is unset, so
 * an explicit "" stays and fails validation as upstream's does.
 */
export function defaultPointer(parent: JsonObject, key: string, value: unknown): void {
  if (parent[key] === undefined || parent[key] === null) parent[key] = value;
}

/** A list of strings as decoded into a Go []string (anything else: empty). */
export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

/** A value that must be one of `allowed` when set. */
export function checkEnum(value: unknown, allowed: string[], path: string): StatusCause[] {
  if (value === undefined || value === null || allowed.includes(String(value))) return [];
  return [notSupported(path, value, allowed)];
}

/** validateResources: resources with subresources and their wildcards. */
function validateResources(resources: string[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (resources.length === 0) causes.push(required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      causes.push(required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) causes.push(invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) causes.push(invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) causes.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) causes.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return causes;
}

/** validateRuleWithOperations. */
export function validateRule(rule: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const ops = strings(rule.operations);
  if (ops.length === 0) causes.push(required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) causes.push(invalid(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => appendAll(causes, checkEnum(op, operations, `${path}.operations[${i}]`)));
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) causes.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) causes.push(invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) causes.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) causes.push(invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') causes.push(required(`${path}.apiVersions[${i}]`));
  });
  appendAll(causes, validateResources(strings(rule.resources), `${path}.resources`));
  appendAll(causes, checkEnum(rule.scope, scopes, `${path}.scope`));
  return causes;
}

/**
 * validateMatchConditions. `params` is declared only for a policy with a paramKind (upstream's
 * allowParamsInMatchConditions); a webhook's conditions have none.
 */
export function validateMatchConditions(conditions: JsonObject[], path: string, declared: { params: boolean } = { params: false }): StatusCause[] {
  const causes: StatusCause[] = [];
  if (conditions.length > 64) causes.push(tooMany(path, conditions.length, 64));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const expression = stringAt(c, 'expression');
    if (expression.trim() === '') causes.push(required(`${path}[${i}].expression`));
    else {
      // Compiled as upstream does when the configuration is written: a broken expression is 422, not a failure at admission.
      const { params, ...withoutParams } = cel().matchConditionVariables;
      const variables = declared.params ? { ...withoutParams, params } : withoutParams;
      // `request` and `namespaceObject` typed as upstream declares them: `request.dryRun` is a bool.
      const compiled = cel().compile(expression, { ...variables, request: 'kubernetes.AdmissionRequest', namespaceObject: 'kubernetes.Namespace' });
      // Every field read that the types lack, as cel-go lists them, before other errors.
      const error = cel().admissionFieldErrors(expression, variables).join('\n') || compiled.error;
      if (error !== undefined) causes.push(invalid(`${path}[${i}].expression`, expression, `compilation failed: ${error}`));
      // Exactly bool, as upstream's compiler asks of a result type: a dynamically typed one is refused.
      else if (compiled.type !== 'bool') causes.push(invalid(`${path}[${i}].expression`, expression, 'must evaluate to bool'));
    }
    const name = stringAt(c, 'name');
    if (name === '') {
      causes.push(required(`${path}[${i}].name`));
      return;
    }
    for (const msg of isQualifiedName(name)) causes.push(invalid(`${path}[${i}].name`, name, msg));
    if (names.has(name)) causes.push(duplicate(`${path}[${i}].name`, name));
    names.add(name);
  });
  return causes;
}
