// A pod's scheduling constraints, validated as upstream's ValidatePodSpec does
// (pkg/apis/core/validation: validateAffinity, ValidateNodeSelector,
// validateTopologySpreadConstraints), with its messages. The options upstream relaxes
// for objects that already held invalid values are taken as on a create.

import type { StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { appendAll, child, duplicate, forbidden, goJson, index, invalid, notSupported, required, type FieldPath } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName } from '../validation/names.ts';
import { arrayAt, itemsAt, numberAt, objectAt, present, semanticEqual, stringAt } from './object.ts';
import { validateLabelSelector } from './selector-validation.ts';

/** Upstream's ValidateLabelName (a qualified name) on a key. */
function labelNameCauses(name: string, path: FieldPath): StatusCause[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** ValidateNodeSelectorRequirement; preferred terms allow any value (`strictValues` false). */
function validateNodeSelectorRequirement(req: JsonObject, strictValues: boolean, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = arrayAt(req, 'values');
  const operator = stringAt(req, 'operator');
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) causes.push(required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) causes.push(forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) causes.push(required(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      causes.push(invalid(child(path, 'operator'), operator, 'not a valid selector operator'));
  }
  appendAll(causes, labelNameCauses(stringAt(req, 'key'), child(path, 'key')));
  if (strictValues) {
    values.forEach((value, i) => {
      for (const msg of isLabelValue(String(value))) causes.push(invalid(index(child(path, 'values'), i), String(value), msg));
    });
  }
  return causes;
}

/** ValidateNodeFieldSelectorRequirement: only metadata.name, with one value that is a node name. */
function validateNodeFieldSelectorRequirement(req: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = arrayAt(req, 'values');
  const operator = stringAt(req, 'operator');
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length !== 1) causes.push(required(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    causes.push(invalid(child(path, 'operator'), operator, 'not a valid selector operator'));
  }
  const fieldKey = stringAt(req, 'key');
  if (fieldKey !== 'metadata.name') {
    causes.push(invalid(child(path, 'key'), fieldKey, 'not a valid field selector key'));
  } else {
    values.forEach((value, i) => {
      for (const msg of isDNS1123Subdomain(String(value))) causes.push(invalid(index(child(path, 'values'), i), String(value), msg));
    });
  }
  return causes;
}

export function validateNodeSelectorTerm(term: JsonObject, strictValues: boolean, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  itemsAt(term, 'matchExpressions').forEach((req, j) => appendAll(causes, validateNodeSelectorRequirement(req, strictValues, index(child(path, 'matchExpressions'), j))));
  itemsAt(term, 'matchFields').forEach((req, j) => appendAll(causes, validateNodeFieldSelectorRequirement(req, index(child(path, 'matchFields'), j))));
  return causes;
}

function validateNodeAffinity(affinity: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const requiredTerms = objectAt(affinity, 'requiredDuringSchedulingIgnoredDuringExecution');
  if (requiredTerms !== undefined) {
    const termsPath = child(path, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
    const terms = itemsAt(requiredTerms, 'nodeSelectorTerms');
    if (terms.length === 0) causes.push(required(termsPath, 'must have at least one node selector term'));
    terms.forEach((term, i) => appendAll(causes, validateNodeSelectorTerm(term, true, index(termsPath, i))));
  }
  itemsAt(affinity, 'preferredDuringSchedulingIgnoredDuringExecution').forEach((term, i) => {
    const p = index(child(path, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
    const weight = numberAt(term, 'weight') ?? 0;
    if (weight <= 0 || weight > 100) causes.push(invalid(child(p, 'weight'), weight, 'must be in the range 1-100'));
    // Preferred terms take any value: they may match when the cluster has one node.
    appendAll(causes, validateNodeSelectorTerm(objectAt(term, 'preference') ?? {}, false, child(p, 'preference')));
  });
  return causes;
}

/** validateMatchLabelKeysAndMismatchLabelKeys of a pod affinity term. */
function validateAffinityLabelKeys(term: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const selector = objectAt(term, 'labelSelector');
  const matchKeys = arrayAt(term, 'matchLabelKeys').map(String);
  const mismatchKeys = arrayAt(term, 'mismatchLabelKeys').map(String);
  for (const [field, keys] of [['matchLabelKeys', matchKeys], ['mismatchLabelKeys', mismatchKeys]] as const) {
    if (keys.length === 0) continue;
    if (selector === undefined) causes.push(forbidden(child(path, field), 'must not be specified when labelSelector is not set'));
    else keys.forEach((k, i) => appendAll(causes, labelNameCauses(k, index(child(path, field), i))));
  }
  if (selector !== undefined) {
    const matchIndex = new Map(matchKeys.map((k, i) => [k, i]));
    const selectorKeys = new Set(Object.keys(objectAt(selector, 'matchLabels') ?? {}));
    for (const expr of itemsAt(selector, 'matchExpressions')) {
      const k = stringAt(expr, 'key');
      const i = matchIndex.get(k);
      if (i !== undefined && selectorKeys.has(k)) causes.push(invalid(index(path, i), k, 'exists in both matchLabelKeys and labelSelector'));
      selectorKeys.add(k);
    }
  }
  const mismatch = new Set(mismatchKeys);
  matchKeys.forEach((k, i) => {
    if (mismatch.has(k)) causes.push(invalid(index(child(path, 'matchLabelKeys'), i), k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return causes;
}

function validatePodAffinityTerm(term: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const selector of ['labelSelector', 'namespaceSelector']) {
    const sel = objectAt(term, selector);
    if (sel !== undefined) appendAll(causes, validateLabelSelector(sel, child(path, selector)));
  }
  for (const name of arrayAt(term, 'namespaces').map(String)) {
    for (const msg of isDNS1123Label(name)) causes.push(invalid(child(path, 'namespace'), name, msg));
  }
  appendAll(causes, validateAffinityLabelKeys(term, path));
  const topologyKey = stringAt(term, 'topologyKey');
  if (topologyKey === '') causes.push(required(child(path, 'topologyKey'), 'can not be empty'));
  appendAll(causes, labelNameCauses(topologyKey, child(path, 'topologyKey')));
  return causes;
}

function validatePodAffinity(affinity: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  itemsAt(affinity, 'requiredDuringSchedulingIgnoredDuringExecution').forEach((term, i) => {
    appendAll(causes, validatePodAffinityTerm(term, index(child(path, 'requiredDuringSchedulingIgnoredDuringExecution'), i)));
  });
  itemsAt(affinity, 'preferredDuringSchedulingIgnoredDuringExecution').forEach((weighted, j) => {
    const p = index(child(path, 'preferredDuringSchedulingIgnoredDuringExecution'), j);
    const weight = numberAt(weighted, 'weight') ?? 0;
    if (weight <= 0 || weight > 100) causes.push(invalid(child(p, 'weight'), weight, 'must be in the range 1-100'));
    appendAll(causes, validatePodAffinityTerm(objectAt(weighted, 'podAffinityTerm') ?? {}, child(p, 'podAffinityTerm')));
  });
  return causes;
}

/** Upstream's validateAffinity: node affinity, pod affinity and anti-affinity. */
export function validateAffinity(affinity: unknown, path: FieldPath): StatusCause[] {
  if (!isObject(affinity)) return [];
  const causes: StatusCause[] = [];
  const node = objectAt(affinity, 'nodeAffinity');
  if (node !== undefined) appendAll(causes, validateNodeAffinity(node, child(path, 'nodeAffinity')));
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const pod = objectAt(affinity, kind);
    if (pod !== undefined) appendAll(causes, validatePodAffinity(pod, child(path, kind)));
  }
  return causes;
}

const scheduleActions = ['DoNotSchedule', 'ScheduleAnyway'];
const nodeInclusionPolicies = ['Honor', 'Ignore'];

/** Upstream's validateTopologySpreadConstraints. */
export function validateTopologySpreadConstraints(constraints: unknown[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const all = constraints.map((item) => (isObject(item) ? item : {}));
  // Whether a later constraint repeats each one's pair, from one pass backwards: searching the
  // rest of the list for each took over a minute for a client's 150k constraints.
  const repeatedLater: boolean[] = new Array(all.length);
  const pairsAfter = new Set<string>();
  for (let i = all.length - 1; i >= 0; i--) {
    const pair = JSON.stringify([stringAt(all[i], 'topologyKey'), stringAt(all[i], 'whenUnsatisfiable')]);
    repeatedLater[i] = pairsAfter.has(pair);
    pairsAfter.add(pair);
  }
  all.forEach((constraint, i) => {
    const p = index(path, i);
    const maxSkew = numberAt(constraint, 'maxSkew') ?? 0;
    if (maxSkew <= 0) causes.push(invalid(child(p, 'maxSkew'), maxSkew, 'must be greater than zero'));
    const topologyKey = stringAt(constraint, 'topologyKey');
    if (topologyKey === '') causes.push(required(child(p, 'topologyKey'), 'can not be empty'));
    const action = stringAt(constraint, 'whenUnsatisfiable');
    if (!scheduleActions.includes(action)) causes.push(notSupported(child(p, 'whenUnsatisfiable'), action, scheduleActions));
    // {topologyKey, whenUnsatisfiable} is one kind of constraint: reported on the first of a repeated pair.
    if (repeatedLater[i]) {
      causes.push(duplicate(child(p, '{topologyKey, whenUnsatisfiable}'), `{${topologyKey}, ${action}}`));
    }
    const minDomains = numberAt(constraint, 'minDomains');
    if (minDomains !== undefined) {
      if (minDomains <= 0) causes.push(invalid(child(p, 'minDomains'), minDomains, 'must be greater than zero'));
      if (action !== 'DoNotSchedule') causes.push(invalid(child(p, 'minDomains'), minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      const value = constraint[policy];
      if (value !== undefined && value !== null && !nodeInclusionPolicies.includes(String(value))) {
        causes.push(notSupported(child(p, policy), value, nodeInclusionPolicies));
      }
    }
    const selector = objectAt(constraint, 'labelSelector');
    const matchLabelKeys = arrayAt(constraint, 'matchLabelKeys').map(String);
    if (matchLabelKeys.length > 0) {
      const keysPath = child(p, 'matchLabelKeys');
      if (selector === undefined) causes.push(forbidden(keysPath, 'must not be specified when labelSelector is not set'));
      const selectorKeys = new Set([...Object.keys(objectAt(selector, 'matchLabels') ?? {}), ...itemsAt(selector, 'matchExpressions').map((e) => stringAt(e, 'key'))]);
      matchLabelKeys.forEach((k, j) => {
        appendAll(causes, labelNameCauses(k, index(keysPath, j)));
        if (selectorKeys.has(k)) causes.push(invalid(index(keysPath, j), k, 'exists in both matchLabelKeys and labelSelector'));
      });
    }
    if (selector !== undefined) appendAll(causes, validateLabelSelector(selector, child(p, 'labelSelector')));
  });
  return causes;
}

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Upstream's ValidateTolerations (pods, RuntimeClasses' scheduling). */
export function validateTolerations(tolerations: unknown[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  tolerations.forEach((raw, i) => {
    const t = isObject(raw) ? raw : {};
    const p = index(path, i);
    const tkey = stringAt(t, 'key');
    const operator = stringAt(t, 'operator');
    const effect = stringAt(t, 'effect');
    if (tkey !== '') for (const msg of isQualifiedName(tkey)) causes.push(invalid(child(p, 'key'), tkey, msg));
    if (tkey === '' && operator !== 'Exists') {
      causes.push(invalid(child(p, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      causes.push(invalid(child(p, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === '' || operator === 'Equal') {
      const errs = isLabelValue(stringAt(t, 'value'));
      if (errs.length > 0) causes.push(invalid(child(p, 'operator'), stringAt(t, 'value'), errs.join(';')));
    } else if (operator === 'Exists') {
      if (stringAt(t, 'value') !== '') causes.push(invalid(child(p, 'operator'), t, "value must be empty when `operator` is 'Exists'"));
    } else {
      causes.push(notSupported(child(p, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !taintEffects.includes(effect)) causes.push(notSupported(child(p, 'effect'), effect, taintEffects));
  });
  return causes;
}

/** A node selector term as the internal core.NodeSelectorTerm marshals: Go field names, nil lists `null`. */
function goNodeSelectorTerm(term: unknown): unknown {
  const requirements = (list: unknown) => (Array.isArray(list)
    ? list.map((r) => ({ Key: stringAt(r, 'key'), Operator: stringAt(r, 'operator'), Values: Array.isArray(isObject(r) ? r.values : undefined) ? (r as JsonObject).values : null }))
    : null);
  return { MatchExpressions: requirements(isObject(term) ? term.matchExpressions : undefined), MatchFields: requirements(isObject(term) ? term.matchFields : undefined) };
}

/** A list whose old entries are still its first ones, unchanged. */
function onlyAppended(next: unknown[], prev: unknown[]): boolean {
  return prev.length === 0 || (next.length >= prev.length && semanticEqual(next.slice(0, prev.length), prev));
}

/** validateNodeSelectorTermHasOnlyAdditions: requirements may be appended to a term's lists, none changed or removed. */
function termHasOnlyAdditions(next: unknown, prev: JsonObject): boolean {
  const expressions = arrayAt(next, 'matchExpressions');
  const fields = arrayAt(next, 'matchFields');
  const oldExpressions = arrayAt(prev, 'matchExpressions');
  const oldFields = arrayAt(prev, 'matchFields');
  if (oldExpressions.length === 0 && oldFields.length === 0 && (expressions.length > 0 || fields.length > 0)) return false;
  return onlyAppended(expressions, oldExpressions) && onlyAppended(fields, oldFields);
}

/** validateNodeAffinityMutation: a gated pod's required node selector terms may only gain requirements. */
function validateNodeAffinityMutation(next: JsonObject | undefined, prev: JsonObject | undefined, path: FieldPath): StatusCause[] {
  const oldRequired = objectAt(prev, 'requiredDuringSchedulingIgnoredDuringExecution');
  if (oldRequired === undefined) return [];
  const termsPath = child(path, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
  const oldTerms = arrayAt(oldRequired, 'nodeSelectorTerms');
  const newRequired = objectAt(next, 'requiredDuringSchedulingIgnoredDuringExecution');
  const newTerms = arrayAt(newRequired, 'nodeSelectorTerms');
  const rendered = (terms: unknown) => goJson(Array.isArray(terms) ? terms.map(goNodeSelectorTerm) : null);
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    return [invalid(termsPath, rendered(newRequired?.nodeSelectorTerms), 'no additions/deletions to non-empty NodeSelectorTerms list are allowed')];
  }
  const causes: StatusCause[] = [];
  oldTerms.forEach((old, i) => {
    if (!termHasOnlyAdditions(newTerms[i], isObject(old) ? old : {})) {
      causes.push(invalid(index(termsPath, i), goJson(goNodeSelectorTerm(newTerms[i])), 'only additions are allowed (no mutations or deletions)'));
    }
  });
  return causes;
}

/**
 * What ValidatePodUpdate lets a pod that still has scheduling gates change: entries added
 * to spec.nodeSelector (validateNodeSelectorMutation) and requirements added to its
 * required node affinity (validateNodeAffinityMutation). Either, once judged, is put back
 * in `munged` (the new spec being compared with the old) as the old spec had it.
 */
export function validateGatedPodSchedulingUpdate(munged: JsonObject, oldSpec: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const oldSelector = objectAt(oldSpec, 'nodeSelector') ?? {};
  if (!semanticEqual(munged.nodeSelector, oldSpec.nodeSelector)) {
    const selector = objectAt(munged, 'nodeSelector') ?? {};
    if (Object.entries(oldSelector).some(([k, v]) => !Object.hasOwn(selector, k) || selector[k] !== v)) {
      causes.push(invalid(child(path, 'nodeSelector'), munged.nodeSelector ?? null, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
    }
    setOrDelete(munged, 'nodeSelector', oldSpec.nodeSelector);
  }
  const oldAffinity = objectAt(oldSpec, 'affinity');
  const oldNodeAffinity = objectAt(oldAffinity, 'nodeAffinity');
  const affinity = objectAt(munged, 'affinity');
  const nodeAffinity = objectAt(affinity, 'nodeAffinity');
  if (!semanticEqual(nodeAffinity, oldNodeAffinity)) {
    appendAll(causes, validateNodeAffinityMutation(nodeAffinity, oldNodeAffinity, child(path, 'affinity', 'nodeAffinity')));
    if (affinity === undefined) {
      if (oldNodeAffinity !== undefined) munged.affinity = { nodeAffinity: oldNodeAffinity };
    } else if (oldAffinity === undefined && !present(affinity.podAffinity) && !present(affinity.podAntiAffinity)) {
      delete munged.affinity;
    } else {
      setOrDelete(affinity, 'nodeAffinity', oldNodeAffinity);
    }
  }
  return causes;
}

function setOrDelete(target: JsonObject, field: string, value: unknown): void {
  if (value === undefined) delete target[field];
  else target[field] = value as JsonObject[string];
}
