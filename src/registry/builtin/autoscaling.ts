// autoscaling HorizontalPodAutoscalers: stored as autoscaling/v2 (upstream's storage version)
// and served as v2 and v1, v1 converted (hpa-conversion.ts). Defaults after
// pkg/apis/autoscaling/{v1,v2}/defaults.go, validation after pkg/apis/autoscaling/validation,
// table after pkg/printers printHorizontalPodAutoscaler.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import type { ResourceType, StorageConversion, Strategy } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, child, forbidden, index, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import { isDNS1123Label, validateName } from '../validation/names.ts';
import { specStatusStrategy } from './common.ts';
import { strategyThroughStorage } from './converted-strategy.ts';
import { defaultCPUUtilization, hpaV1ToV2, hpaV2ToV1 } from './hpa-conversion.ts';
import { objectAt, objectsAt, stringAt } from './object.ts';
import { canonicalQuantity, isNegative, isPositive, parseQuantity } from '../../api/quantity.ts';
import { sentEmptyList } from '../../schema/prune.ts';
import { validateContainerResourceName } from './resource-names.ts';
import { builtinType } from './skeleton.ts';

/** Upstream's HPA behavior defaults (autoscaling/v2 defaults.go). */
function defaultScaleUp(): JsonObject {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
  };
}

function defaultScaleDown(): JsonObject {
  return { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
}

/**
 * What the client set wins; unset fields come from the defaults (copyHPAScalingRules). Policies
 * sent as `[]` are set in Go (an empty slice is not nil): none are defaulted, and validation
 * refuses the rules, as upstream's.
 */
function withDefaults(rules: unknown, defaults: JsonObject): JsonObject {
  if (!isObject(rules)) return defaults;
  const out = defaults;
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance']) {
    if (rules[key] !== undefined && rules[key] !== null) out[key] = clone(rules[key]);
    else if (sentEmptyList(rules, key)) delete out[key];
  }
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v2. */
export function defaultHPA(hpa: KubeObject): void {
  if (!isObject(hpa.spec)) return;
  const spec = hpa.spec;
  if (spec.minReplicas === undefined || spec.minReplicas === null) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  }
  if (isObject(spec.behavior)) {
    spec.behavior = { scaleUp: withDefaults(spec.behavior.scaleUp, defaultScaleUp()), scaleDown: withDefaults(spec.behavior.scaleDown, defaultScaleDown()) };
  }
}

// ---- validation ----

const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;
const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceFields: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource', External: 'external' };

function has(o: JsonObject, key: string): boolean {
  return o[key] !== undefined && o[key] !== null;
}

function quantityCauses(target: JsonObject, key: string, path: string): StatusCause[] {
  if (!has(target, key)) return [];
  const q = parseQuantity(target[key]);
  return q !== undefined && isPositive(q) ? [] : [invalid(child(path, key), target[key], 'must be positive')];
}

/** Upstream's CrossVersionObjectReferenceValidationOptions: how strictly an apiVersion is checked. */
interface RefOptions {
  allowEmptyGroup: boolean;
  allowInvalidAPIVersion: boolean;
}

/** ValidateAPIVersion: why `ref`'s apiVersion is refused (schema.ParseGroupVersion, then the group), or undefined. */
function apiVersionError(ref: JsonObject, opts: RefOptions): string | undefined {
  if (opts.allowInvalidAPIVersion) return undefined;
  const apiVersion = stringAt(ref, 'apiVersion');
  if (apiVersion === '' || apiVersion === '/') return opts.allowEmptyGroup ? undefined : 'apiVersion must specify API group';
  const slashes = apiVersion.split('/').length - 1;
  if (slashes > 1) return `unexpected GroupVersion string: ${apiVersion}`;
  const group = slashes === 0 ? '' : apiVersion.slice(0, apiVersion.indexOf('/'));
  return group === '' && !opts.allowEmptyGroup ? 'apiVersion must specify API group' : undefined;
}

function validateCrossVersionObjectReference(ref: JsonObject, path: string, opts: RefOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ['kind', 'name']) {
    const value = stringAt(ref, key);
    if (value === '') causes.push(required(child(path, key)));
    else for (const msg of validateName(value, 'path-segment')) causes.push(invalid(child(path, key), value, msg));
  }
  const apiVersionMsg = apiVersionError(ref, opts);
  if (apiVersionMsg !== undefined) causes.push(invalid(child(path, 'apiVersion'), stringAt(ref, 'apiVersion'), apiVersionMsg));
  return causes;
}

function validateMetricTarget(target: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = stringAt(target, 'type');
  if (type === '') causes.push(required(child(path, 'type'), 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') {
    causes.push(invalid(child(path, 'type'), type, 'must be either Utilization, Value, or AverageValue'));
  }
  appendAll(causes, quantityCauses(target, 'value', path), quantityCauses(target, 'averageValue', path));
  const utilization = target.averageUtilization;
  if (typeof utilization === 'number' && utilization < 1) causes.push(invalid(child(path, 'averageUtilization'), utilization, 'must be greater than 0'));
  return causes;
}

function validateMetricIdentifier(metric: JsonObject, path: string): StatusCause[] {
  const name = stringAt(metric, 'name');
  if (name === '') return [required(child(path, 'name'), 'must specify a metric name')];
  return validateName(name, 'path-segment').map((msg) => invalid(child(path, 'name'), name, msg));
}

function validateSource(kind: string, src: JsonObject, path: string, objectRefs: RefOptions): StatusCause[] {
  const target = objectAt(src, 'target') ?? {};
  const targetPath = child(path, 'target');
  const causes: StatusCause[] = [];
  switch (kind) {
    case 'object':
      appendAll(causes, validateCrossVersionObjectReference(objectAt(src, 'describedObject') ?? {}, child(path, 'describedObject'), objectRefs));
      appendAll(causes, validateMetricIdentifier(objectAt(src, 'metric') ?? {}, child(path, 'metric')), validateMetricTarget(target, targetPath));
      if (!has(target, 'value') && !has(target, 'averageValue')) causes.push(required(child(targetPath, 'averageValue'), 'must set either a target value or averageValue'));
      break;
    case 'external':
      appendAll(causes, validateMetricIdentifier(objectAt(src, 'metric') ?? {}, child(path, 'metric')), validateMetricTarget(target, targetPath));
      if (!has(target, 'value') && !has(target, 'averageValue')) causes.push(required(child(targetPath, 'averageValue'), 'must set either a target value for metric or a per-pod target'));
      if (has(target, 'value') && has(target, 'averageValue')) causes.push(forbidden(child(targetPath, 'value'), 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'pods':
      appendAll(causes, validateMetricIdentifier(objectAt(src, 'metric') ?? {}, child(path, 'metric')), validateMetricTarget(target, targetPath));
      if (!has(target, 'averageValue')) causes.push(required(child(targetPath, 'averageValue'), 'must specify a positive target averageValue'));
      break;
    case 'resource':
    case 'containerResource': {
      const name = stringAt(src, 'name');
      if (name === '') causes.push(required(child(path, 'name'), 'must specify a resource name'));
      // Only a container resource's name is checked further (core/v1 ValidateContainerResourceName).
      else if (kind === 'containerResource') appendAll(causes, validateContainerResourceName(name, child(path, 'name')));
      if (kind === 'containerResource') {
        const container = stringAt(src, 'container');
        if (container === '') causes.push(required(child(path, 'container'), 'must specify a container'));
        else for (const msg of isDNS1123Label(container)) causes.push(invalid(child(path, 'container'), container, msg));
      }
      appendAll(causes, validateMetricTarget(target, targetPath));
      if (!has(target, 'averageUtilization') && !has(target, 'averageValue')) {
        causes.push(required(child(targetPath, 'averageUtilization'), 'must set either a target raw value or a target utilization'));
      }
      if (has(target, 'averageUtilization') && has(target, 'averageValue')) {
        causes.push(forbidden(child(targetPath, 'averageValue'), 'may not set both a target raw value and a target utilization'));
      }
      break;
    }
  }
  return causes;
}

function validateMetricSpec(metric: JsonObject, path: string, objectRefs: RefOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = stringAt(metric, 'type');
  if (type === '') causes.push(required(child(path, 'type'), 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) causes.push(notSupported(child(path, 'type'), type, metricSourceTypes));
  // Only the first source present is validated, as upstream.
  const present = Object.values(sourceFields).filter((key) => isObject(metric[key]));
  if (present.length > 0) appendAll(causes, validateSource(present[0]!, metric[present[0]!] as JsonObject, child(path, present[0]!), objectRefs));
  const expected = sourceFields[type];
  if (expected !== undefined && !present.includes(expected)) causes.push(required(child(path, expected), 'must populate information for the given metric source'));
  // Upstream's switch over the type refuses an unknown one a second time (the message lists it once).
  if (expected === undefined) causes.push(notSupported(child(path, 'type'), type, metricSourceTypes));
  if (present.length !== 1) {
    for (const key of present) if (key !== expected) causes.push(forbidden(child(path, key), 'must populate the given metric source only'));
  }
  return causes;
}

function validateScalingRules(rules: unknown, path: string): StatusCause[] {
  if (!isObject(rules)) return [];
  const causes: StatusCause[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) causes.push(invalid(child(path, 'stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > maxStabilizationWindowSeconds) {
    causes.push(invalid(child(path, 'stabilizationWindowSeconds'), window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  if (has(rules, 'selectPolicy') && !['Disabled', 'Max', 'Min'].includes(rules.selectPolicy as string)) {
    causes.push(notSupported(child(path, 'selectPolicy'), rules.selectPolicy, ['Disabled', 'Max', 'Min']));
  }
  const policies = objectsAt(rules, 'policies');
  const policiesPath = child(path, 'policies');
  if (policies.length === 0) causes.push(required(policiesPath, 'must specify at least one Policy'));
  policies.forEach((policy, i) => {
    const p = index(policiesPath, i);
    if (policy.type !== 'Pods' && policy.type !== 'Percent') causes.push(notSupported(child(p, 'type'), policy.type ?? '', ['Percent', 'Pods']));
    const value = typeof policy.value === 'number' ? policy.value : 0;
    if (value <= 0) causes.push(invalid(child(p, 'value'), value, 'must be greater than zero'));
    const period = typeof policy.periodSeconds === 'number' ? policy.periodSeconds : 0;
    if (period <= 0) causes.push(invalid(child(p, 'periodSeconds'), period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) causes.push(invalid(child(p, 'periodSeconds'), period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  // ValidateNonnegativeQuantity: the value as Quantity.String() writes it.
  const tolerance = has(rules, 'tolerance') ? parseQuantity(rules.tolerance) : undefined;
  if (tolerance !== undefined && isNegative(tolerance)) {
    causes.push(invalid(child(path, 'tolerance'), canonicalQuantity(rules.tolerance), 'must be greater than or equal to 0'));
  }
  return causes;
}

/**
 * The strategy's validationOptionsForHorizontalPodAutoscaler: a scaleTargetRef's apiVersion
 * needs a group (but a ReplicationController's) and is not checked again on an update that
 * keeps it and the kind; an Object metric's may be core, and is not checked when the stored
 * object already had an invalid one.
 */
function refOptions(spec: JsonObject, oldSpec: JsonObject | undefined): { target: RefOptions; objects: RefOptions } {
  const ref = objectAt(spec, 'scaleTargetRef') ?? {};
  const oldRef = objectAt(oldSpec, 'scaleTargetRef');
  const unchanged = oldRef !== undefined && stringAt(oldRef, 'apiVersion') === stringAt(ref, 'apiVersion') && stringAt(oldRef, 'kind') === stringAt(ref, 'kind');
  const target = { allowInvalidAPIVersion: unchanged, allowEmptyGroup: !unchanged && stringAt(ref, 'kind') === 'ReplicationController' };
  const objects = { allowInvalidAPIVersion: false, allowEmptyGroup: true };
  const oldMetrics = objectsAt(oldSpec, 'metrics').filter((m) => m.type === 'Object' && isObject(m.object));
  objects.allowInvalidAPIVersion = oldMetrics.some((m) => apiVersionError(objectAt(m.object, 'describedObject') ?? {}, objects) !== undefined);
  return { target, objects };
}

/** validateHorizontalPodAutoscalerSpec, on the autoscaling/v2 form; `old` is the stored object of an update. */
export function validateHPA(hpa: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(hpa, 'spec') ?? {};
  const oldSpec = old === undefined ? undefined : objectAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  // HPAScaleToZero is off: the lower bound is 1, unless the stored object already has 0.
  const lowerBound = oldSpec?.minReplicas === 0 ? 0 : 1;
  if (typeof min === 'number' && min < lowerBound) causes.push(invalid('spec.minReplicas', min, `must be greater than or equal to ${lowerBound}`));
  if (max < 1) causes.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) causes.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  const refs = refOptions(spec, oldSpec);
  appendAll(causes, validateCrossVersionObjectReference(objectAt(spec, 'scaleTargetRef') ?? {}, 'spec.scaleTargetRef', refs.target));
  const metrics = objectsAt(spec, 'metrics');
  metrics.forEach((metric, i) => appendAll(causes, validateMetricSpec(metric, index('spec.metrics', i), refs.objects)));
  // validateMetrics: scaling to zero needs a metric that does not come from the pods.
  if (min === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External')) {
    causes.push(forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  const behavior = objectAt(spec, 'behavior');
  if (behavior !== undefined) {
    appendAll(causes, validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp'), validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return causes;
}

function validateHPAStatus(hpa: KubeObject): StatusCause[] {
  const status = objectAt(hpa, 'status') ?? {};
  const number = (key: string) => (typeof status[key] === 'number' ? (status[key] as number) : 0);
  return [...validateNonnegative(number('currentReplicas'), 'status.currentReplicas'), ...validateNonnegative(number('desiredReplicas'), 'status.desiredReplicas')];
}

function hpaStrategy(): Strategy {
  const base = specStatusStrategy({ validate: validateHPA });
  return {
    ...base,
    defaults: defaultHPA,
    prepareForCreate(obj) {
      base.prepareForCreate!(obj);
      // desiredReplicas has no omitempty in autoscaling/v2: a new object shows it as 0.
      obj.status = { desiredReplicas: 0 };
    },
    prepareForUpdate: base.prepareForUpdate!,
    subresources: {
      status: { ...base.subresources!.status!, validateUpdate: validateHPAStatus },
    },
  };
}

// ---- table ----

function quantityText(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '0';
}

/** Upstream's formatHPAMetrics: at most two metrics, then "+ N more...". */
export function formatHPAMetrics(specs: JsonObject[], statuses: JsonObject[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    const type = stringAt(spec, 'type');
    switch (type) {
      case 'External':
      case 'Object': {
        const key = type === 'External' ? 'external' : 'object';
        const target = objectAt(objectAt(spec, key), 'target') ?? {};
        const current = objectAt(objectAt(status, key), 'current');
        if (has(target, 'averageValue')) {
          const now = current !== undefined && has(current, 'averageValue') ? quantityText(current.averageValue) : '<unknown>';
          return `${now}/${quantityText(target.averageValue)} (avg)`;
        }
        return `${current !== undefined ? quantityText(current.value) : '<unknown>'}/${quantityText(target.value)}`;
      }
      case 'Pods': {
        const current = objectAt(objectAt(status, 'pods'), 'current');
        return `${current !== undefined ? quantityText(current.averageValue) : '<unknown>'}/${quantityText(objectAt(objectAt(spec, 'pods'), 'target')?.averageValue)}`;
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = type === 'Resource' ? 'resource' : 'containerResource';
        const source = objectAt(spec, key) ?? {};
        const target = objectAt(source, 'target') ?? {};
        const current = objectAt(objectAt(status, key), 'current');
        const name = stringAt(source, 'name');
        if (has(target, 'averageValue')) {
          return `${name}: ${current !== undefined ? quantityText(current.averageValue) : '<unknown>'}/${quantityText(target.averageValue)}`;
        }
        const now = current !== undefined && typeof current.averageUtilization === 'number' ? `${current.averageUtilization}%` : '<unknown>';
        const goal = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
        return `${name}: ${now}/${goal}`;
      }
      default:
        return '<unknown type>';
    }
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

/** printHorizontalPodAutoscaler's columns, of the autoscaling/v2 form. */
const hpaColumnsV2: TableColumn[] = [
  nameColumn,
  column('Reference', (h) => {
    const ref = objectAt(objectAt(h, 'spec'), 'scaleTargetRef');
    return `${stringAt(ref, 'kind')}/${stringAt(ref, 'name')}`;
  }, { description: 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.' }),
  column('Targets', (h) => formatHPAMetrics(objectsAt(objectAt(h, 'spec'), 'metrics'), objectsAt(objectAt(h, 'status'), 'currentMetrics')), {
    description: 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).',
  }),
  column('MinPods', (h) => {
    const min = objectAt(h, 'spec')?.minReplicas;
    return typeof min === 'number' ? String(min) : '<unset>';
  }, { description: 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.' }),
  column('MaxPods', (h) => (objectAt(h, 'spec')?.maxReplicas as number | undefined) ?? 0, {
    type: 'integer', description: 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.',
  }),
  column('Replicas', (h) => (objectAt(h, 'status')?.currentReplicas as number | undefined) ?? 0, {
    type: 'integer', description: 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
  }),
  ageColumn,
];

/** The same columns for autoscaling/v1 objects: upstream prints the converted object. */
const hpaColumnsV1: TableColumn[] = hpaColumnsV2.map((c) => (c === nameColumn || c === ageColumn ? c : { ...c, cell: (obj, now) => c.cell(hpaV1ToV2(obj), now) }));

export function horizontalPodAutoscalersType(): ResourceType {
  return builtinType('autoscaling', 'v2', 'horizontalpodautoscalers', { strategy: hpaStrategy(), tableColumns: hpaColumnsV2 });
}

const storedAsV2: StorageConversion = {
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  toStorage: hpaV1ToV2,
  fromStorage: hpaV2ToV1,
};

/** autoscaling/v1: the same stored objects, converted; v1's own default (minReplicas 1) comes from v2's. */
export function horizontalPodAutoscalersV1Type(): ResourceType {
  return builtinType('autoscaling', 'v1', 'horizontalpodautoscalers', {
    strategy: strategyThroughStorage(hpaStrategy(), storedAsV2),
    tableColumns: hpaColumnsV1,
    storage: storedAsV2,
  });
}
