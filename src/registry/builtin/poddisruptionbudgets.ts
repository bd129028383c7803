// policy/v1 poddisruptionbudgets, after kubernetes pkg/registry/policy/poddisruptionbudget/strategy.go
// and pkg/apis/policy/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, goJson, GoValue, invalid, notSupported, validateNonnegative } from '../validation/field.ts';
import { validateConditions } from '../validation/conditions.ts';
import { labelSelectorJson } from '../../api/labels.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';
import { isObject } from '../../api/json.ts';
import { itemsAt, numberAt, objectAt, semanticEqual } from './object.ts';
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

/** ValidatePodDisruptionBudgetStatusUpdate for policy/v1: the conditions, then the counters not negative. */
function validateStatus(pdb: KubeObject): StatusCause[] {
  const status = objectAt(pdb, 'status') ?? {};
  const causes = validateConditions(itemsAt(status, 'conditions'), 'status.conditions');
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
