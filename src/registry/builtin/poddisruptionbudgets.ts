// policy/v1 poddisruptionbudgets, after kubernetes pkg/registry/policy/poddisruptionbudget/strategy.go
// and pkg/apis/policy/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, duplicate, goJson, GoValue, invalid, notSupported, required, tooLong, validateNonnegative } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';
import { labelSelectorJson, regexError } from '../../api/labels.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { numberAt, objectAt, objectsAt, semanticEqual } from './object.ts';
import { goIntOrString, intOrPercentValue, validateLabelSelector, validatePositiveIntOrPercent } from './selector-validation.ts';

const unhealthyPodEvictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];

function validateIntOrPercentField(v: unknown, path: string): StatusCause[] {
  const causes = validatePositiveIntOrPercent(v, path);
  const parsed = intOrPercentValue(v);
  if (parsed.percent && parsed.value > 100) causes.push(invalid(path, goIntOrString(v), 'must not be greater than 100%'));
  return causes;
}

/**
 * ValidatePodDisruptionBudgetSpec, all of ValidatePodDisruptionBudget: no core ObjectMeta
 * validation, so neither DNS names nor core's finalizer-name rule (only the store's common checks).
 */
function validateSpec(pdb: KubeObject): StatusCause[] {
  const spec = objectAt(pdb, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const has = (k: string) => spec[k] !== undefined && spec[k] !== null;
  if (has('minAvailable') && has('maxUnavailable')) {
    // The internal policy.PodDisruptionBudgetSpec (Go field names); its selector marshals by its json tags.
    const json = (v: unknown) => goJson(v ?? null).text;
    const value = new GoValue(
      `{"MinAvailable":${json(spec.minAvailable)},"Selector":${labelSelectorJson(spec.selector).text},` +
      `"MaxUnavailable":${json(spec.maxUnavailable)},"UnhealthyPodEvictionPolicy":${json(spec.unhealthyPodEvictionPolicy)}}`,
    );
    causes.push(invalid('spec', value, 'minAvailable and maxUnavailable cannot be both set'));
  }
  if (has('minAvailable')) appendAll(causes, validateIntOrPercentField(spec.minAvailable, 'spec.minAvailable'));
  if (has('maxUnavailable')) appendAll(causes, validateIntOrPercentField(spec.maxUnavailable, 'spec.maxUnavailable'));
  const selector = objectAt(spec, 'selector');
  if (selector !== undefined) appendAll(causes, validateLabelSelector(selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== null && !unhealthyPodEvictionPolicies.includes(String(policy))) {
    causes.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, unhealthyPodEvictionPolicies));
  }
  return causes;
}

const conditionReasonFmt = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const conditionReasonRegexp = new RegExp(`^${conditionReasonFmt}$`);
const conditionReasonErrMsg =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";

/** metav1 ValidateConditions: each type once and a qualified name, a known status, a transition time, a reason. */
function validateConditions(conditions: JsonObject[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const type = typeof c.type === 'string' ? c.type : '';
    if (seen.has(type)) causes.push(duplicate(`${at}.type`, type));
    else seen.add(type);
    for (const msg of isQualifiedName(type)) causes.push(invalid(`${at}.type`, type, msg));
    const status = typeof c.status === 'string' ? c.status : '';
    if (!['True', 'False', 'Unknown'].includes(status)) causes.push(notSupported(`${at}.status`, status, ['False', 'True', 'Unknown']));
    const generation = numberAt(c, 'observedGeneration') ?? 0;
    if (generation < 0) causes.push(invalid(`${at}.observedGeneration`, generation, 'must be greater than or equal to zero'));
    if (typeof c.lastTransitionTime !== 'string' || c.lastTransitionTime === '') causes.push(required(`${at}.lastTransitionTime`, 'must be set'));
    const reason = typeof c.reason === 'string' ? c.reason : '';
    if (reason === '') causes.push(required(`${at}.reason`, 'must be set'));
    else {
      if (!conditionReasonRegexp.test(reason)) {
        causes.push(invalid(`${at}.reason`, reason, regexError(conditionReasonErrMsg, conditionReasonFmt, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
      }
      if (Buffer.byteLength(reason) > 1024) causes.push(tooLong(`${at}.reason`, 1024));
    }
    if (typeof c.message === 'string' && Buffer.byteLength(c.message) > 32 * 1024) causes.push(tooLong(`${at}.message`, 32 * 1024));
  });
  return causes;
}

/** ValidatePodDisruptionBudgetStatusUpdate for policy/v1: the conditions, then the counters not negative. */
function validateStatus(pdb: KubeObject): StatusCause[] {
  const status = objectAt(pdb, 'status') ?? {};
  const causes = validateConditions(objectsAt(status, 'conditions'), 'status.conditions');
  for (const k of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) {
    appendAll(causes, validateNonnegative(numberAt(status, k) ?? 0, `status.${k}`));
  }
  return causes;
}

/** The status a new budget starts with: its required counters at zero. */
function emptyStatus(): Record<string, unknown> {
  return { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
}

const podDisruptionBudgetStrategy: Strategy = {
  prepareForCreate(pdb) {
    pdb.status = emptyStatus();
    pdb.metadata.generation = 1;
  },

  prepareForUpdate(pdb, old) {
    keepOldStatus(pdb, old);
    const generation = old.metadata.generation ?? 0;
    pdb.metadata.generation = semanticEqual(pdb.spec, old.spec) ? generation : generation + 1;
  },

  validate: validateSpec,

  subresources: {
    status: {
      prepareForUpdate(pdb, old) {
        keepOldSpec(pdb, old);
        if (!isObject(pdb.status)) pdb.status = emptyStatus();
      },
      validateUpdate: validateStatus,
    },
  },
};

const intOrStringCell = (v: unknown): string => (v === undefined || v === null ? 'N/A' : String(v));

export function podDisruptionBudgetsType(): ResourceType {
  return builtinType('policy', 'v1', 'poddisruptionbudgets', {
    subresources: ['status'],
    strategy: podDisruptionBudgetStrategy,
    allowCreateOnUpdate: false,
    // Upstream's strategy: a PUT must carry the resourceVersion it replaces.
    allowUnconditionalUpdate: false,
    deleteReturnsObject: false,
    // ValidatePodDisruptionBudget checks no ObjectMeta: only the store's common check of names as path segments.
    nameRule: 'path-segment',
    // pkg/printers/internalversion: printPodDisruptionBudget.
    tableColumns: [
      nameColumn,
      column('Min Available', (pdb) => intOrStringCell(objectAt(pdb, 'spec')?.minAvailable), { description: 'The minimum number of pods that must be available.' }),
      column('Max Unavailable', (pdb) => intOrStringCell(objectAt(pdb, 'spec')?.maxUnavailable), { description: 'The maximum number of pods that may be unavailable.' }),
      column('Allowed Disruptions', (pdb) => numberAt(objectAt(pdb, 'status'), 'disruptionsAllowed') ?? 0, { type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.' }),
      ageColumn,
    ],
  });
}
