// autoscaling/v1 HorizontalPodAutoscalers to and from autoscaling/v2, their stored version, after
// upstream's pkg/apis/autoscaling/v1/conversion.go: v1 holds only the CPU utilization target;
// what else v2 holds travels in upstream's round-trip annotations, so a v1 client that reads
// and writes an object back loses nothing.

import type { KubeObject } from '../../api/index.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';

export const metricSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const metricStatusesAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
/** Written by the v2beta2 conversion; dropped with the others. */
const toleranceAnnotations = ['autoscaling.alpha.kubernetes.io/scale-down-tolerance', 'autoscaling.alpha.kubernetes.io/scale-up-tolerance'];
const roundTripAnnotations = [metricSpecsAnnotation, behaviorAnnotation, metricStatusesAnnotation, conditionsAnnotation, ...toleranceAnnotations];

/** autoscaling.DefaultCPUUtilization: the target a v1 object without one gets. */
export const defaultCPUUtilization = 80;

function obj(v: unknown): JsonObject {
  return isObject(v) ? v : {};
}

function present(o: JsonObject, key: string): boolean {
  return o[key] !== undefined && o[key] !== null;
}

/** Copies `from[fromKey]` to `to[toKey]` when set. */
function copy(to: JsonObject, toKey: string, from: JsonObject, fromKey = toKey): void {
  if (present(from, fromKey)) to[toKey] = clone(from[fromKey]);
}

/** A Go resource.Quantity held by value: an unset one marshals as "0". */
function quantity(from: JsonObject, key: string): unknown {
  return present(from, key) ? clone(from[key]) : '0';
}

function crossVersionRef(ref: JsonObject): JsonObject {
  const out: JsonObject = { kind: ref.kind ?? '', name: ref.name ?? '' };
  copy(out, 'apiVersion', ref);
  return out;
}

function isCPU(metric: JsonObject): boolean {
  return metric.type === 'Resource' && isObject(metric.resource) && metric.resource.name === 'cpu';
}

/** A v2 metric v1 says with targetCPUUtilizationPercentage. */
function isCPUUtilization(metric: JsonObject): boolean {
  return isCPU(metric) && present(obj(obj(metric.resource).target), 'averageUtilization');
}

function withoutRoundTripAnnotations(meta: JsonObject): void {
  const annotations = meta.annotations;
  if (!isObject(annotations) || !roundTripAnnotations.some((a) => a in annotations)) return;
  const kept = { ...annotations };
  for (const a of roundTripAnnotations) delete kept[a];
  if (Object.keys(kept).length === 0) delete meta.annotations;
  else meta.annotations = kept;
}

function annotation(meta: JsonObject, key: string): unknown {
  const value = obj(meta.annotations)[key];
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function identifier(src: JsonObject, selectorKey: string): JsonObject {
  const out: JsonObject = { name: src.metricName ?? '' };
  copy(out, 'selector', src, selectorKey);
  return out;
}

// ---- metric specs and statuses in v1's (v2beta1-like) form, as the annotations hold them ----

function metricSpecToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isObject(m.object)) {
    const o = m.object;
    const metric = obj(o.metric);
    const target = obj(o.target);
    const v: JsonObject = { target: crossVersionRef(obj(o.describedObject)), metricName: metric.name ?? '', targetValue: quantity(target, 'value') };
    copy(v, 'selector', metric);
    copy(v, 'averageValue', target);
    out.object = v;
  }
  if (isObject(m.pods)) {
    const metric = obj(m.pods.metric);
    const v: JsonObject = { metricName: metric.name ?? '', targetAverageValue: quantity(obj(m.pods.target), 'averageValue') };
    copy(v, 'selector', metric);
    out.pods = v;
  }
  for (const key of ['resource', 'containerResource']) {
    const r = m[key];
    if (!isObject(r)) continue;
    const target = obj(r.target);
    const v: JsonObject = { name: r.name ?? '' };
    copy(v, 'targetAverageUtilization', target, 'averageUtilization');
    copy(v, 'targetAverageValue', target, 'averageValue');
    if (key === 'containerResource') v.container = r.container ?? '';
    out[key] = v;
  }
  if (isObject(m.external)) {
    const metric = obj(m.external.metric);
    const target = obj(m.external.target);
    const v: JsonObject = { metricName: metric.name ?? '' };
    copy(v, 'metricSelector', metric, 'selector');
    copy(v, 'targetValue', target, 'value');
    copy(v, 'targetAverageValue', target, 'averageValue');
    out.external = v;
  }
  return out;
}

function metricSpecFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isObject(m.object)) {
    const o = m.object;
    const target: JsonObject = { type: present(o, 'averageValue') ? 'AverageValue' : 'Value', value: quantity(o, 'targetValue') };
    copy(target, 'averageValue', o);
    out.object = { describedObject: crossVersionRef(obj(o.target)), metric: identifier(o, 'selector'), target };
  }
  if (isObject(m.pods)) {
    out.pods = { metric: identifier(m.pods, 'selector'), target: { type: 'AverageValue', averageValue: quantity(m.pods, 'targetAverageValue') } };
  }
  for (const key of ['resource', 'containerResource']) {
    const r = m[key];
    if (!isObject(r)) continue;
    const target: JsonObject = { type: present(r, 'targetAverageUtilization') ? 'Utilization' : 'AverageValue' };
    copy(target, 'averageUtilization', r, 'targetAverageUtilization');
    copy(target, 'averageValue', r, 'targetAverageValue');
    const v: JsonObject = { name: r.name ?? '' };
    if (key === 'containerResource') v.container = r.container ?? '';
    v.target = target;
    out[key] = v;
  }
  if (isObject(m.external)) {
    const e = m.external;
    const target: JsonObject = { type: present(e, 'targetValue') ? 'Value' : 'AverageValue' };
    copy(target, 'value', e, 'targetValue');
    copy(target, 'averageValue', e, 'targetAverageValue');
    out.external = { metric: identifier(e, 'metricSelector'), target };
  }
  return out;
}

function metricStatusToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isObject(m.object)) {
    const o = m.object;
    const metric = obj(o.metric);
    const current = obj(o.current);
    const v: JsonObject = { target: crossVersionRef(obj(o.describedObject)), metricName: metric.name ?? '', currentValue: quantity(current, 'value') };
    copy(v, 'selector', metric);
    copy(v, 'averageValue', current);
    out.object = v;
  }
  if (isObject(m.pods)) {
    const metric = obj(m.pods.metric);
    const v: JsonObject = { metricName: metric.name ?? '', currentAverageValue: quantity(obj(m.pods.current), 'averageValue') };
    copy(v, 'selector', metric);
    out.pods = v;
  }
  for (const key of ['resource', 'containerResource']) {
    const r = m[key];
    if (!isObject(r)) continue;
    const current = obj(r.current);
    const v: JsonObject = { name: r.name ?? '' };
    copy(v, 'currentAverageUtilization', current, 'averageUtilization');
    v.currentAverageValue = quantity(current, 'averageValue');
    if (key === 'containerResource') v.container = r.container ?? '';
    out[key] = v;
  }
  if (isObject(m.external)) {
    const metric = obj(m.external.metric);
    const current = obj(m.external.current);
    const v: JsonObject = { metricName: metric.name ?? '' };
    copy(v, 'metricSelector', metric, 'selector');
    v.currentValue = quantity(current, 'value');
    copy(v, 'currentAverageValue', current, 'averageValue');
    out.external = v;
  }
  return out;
}

function metricStatusFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isObject(m.object)) {
    const o = m.object;
    const current: JsonObject = { value: quantity(o, 'currentValue') };
    copy(current, 'averageValue', o);
    out.object = { metric: identifier(o, 'selector'), current, describedObject: crossVersionRef(obj(o.target)) };
  }
  if (isObject(m.pods)) {
    out.pods = { metric: identifier(m.pods, 'selector'), current: { averageValue: quantity(m.pods, 'currentAverageValue') } };
  }
  for (const key of ['resource', 'containerResource']) {
    const r = m[key];
    if (!isObject(r)) continue;
    const current: JsonObject = { averageValue: quantity(r, 'currentAverageValue') };
    copy(current, 'averageUtilization', r, 'currentAverageUtilization');
    const v: JsonObject = { name: r.name ?? '' };
    if (key === 'containerResource') v.container = r.container ?? '';
    v.current = current;
    out[key] = v;
  }
  if (isObject(m.external)) {
    const e = m.external;
    const current: JsonObject = { value: quantity(e, 'currentValue') };
    copy(current, 'averageValue', e, 'currentAverageValue');
    out.external = { metric: identifier(e, 'metricSelector'), current };
  }
  return out;
}

// ---- behavior: upstream marshals its internal Go type, which has no JSON tags ----

function rulesToGo(rules: unknown): unknown {
  if (!isObject(rules)) return null;
  const policies = Array.isArray(rules.policies)
    ? rules.policies.map((p) => ({ Type: obj(p).type ?? '', Value: obj(p).value ?? 0, PeriodSeconds: obj(p).periodSeconds ?? 0 }))
    : null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? null,
    SelectPolicy: rules.selectPolicy ?? null,
    Policies: policies,
    Tolerance: rules.tolerance ?? null,
  };
}

/** A field as encoding/json matches keys: exactly, else ignoring case. */
function field(o: JsonObject, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  const key = Object.keys(o).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : o[key];
}

function rulesFromGo(rules: unknown): JsonObject | undefined {
  if (!isObject(rules)) return undefined;
  const out: JsonObject = {};
  const set = (key: string, goName: string) => {
    const value = field(rules, goName);
    if (value !== undefined && value !== null) out[key] = clone(value);
  };
  set('stabilizationWindowSeconds', 'StabilizationWindowSeconds');
  set('selectPolicy', 'SelectPolicy');
  const policies = field(rules, 'Policies');
  if (Array.isArray(policies)) {
    out.policies = policies.map((p) => ({ type: field(obj(p), 'Type') ?? '', value: field(obj(p), 'Value') ?? 0, periodSeconds: field(obj(p), 'PeriodSeconds') ?? 0 }));
  }
  set('tolerance', 'Tolerance');
  return out;
}

function behaviorFromGo(value: unknown): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const out: JsonObject = {};
  const scaleUp = rulesFromGo(field(value, 'ScaleUp'));
  const scaleDown = rulesFromGo(field(value, 'ScaleDown'));
  if (scaleUp !== undefined) out.scaleUp = scaleUp;
  if (scaleDown !== undefined) out.scaleDown = scaleDown;
  return Object.keys(out).length === 0 ? undefined : out;
}

// ---- whole objects ----

/** A stored autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 shows it. */
export function hpaV2ToV1(v2: KubeObject): KubeObject {
  const { kind, apiVersion, metadata, spec: rawSpec, status: rawStatus, ...rest } = clone(v2) as KubeObject & { spec?: unknown; status?: unknown };
  const meta = metadata as unknown as JsonObject;
  withoutRoundTripAnnotations(meta);
  const inSpec = obj(rawSpec);
  const inStatus = obj(rawStatus);
  const metrics = Array.isArray(inSpec.metrics) ? inSpec.metrics.map(obj) : [];

  const spec: JsonObject = { scaleTargetRef: crossVersionRef(obj(inSpec.scaleTargetRef)) };
  copy(spec, 'minReplicas', inSpec);
  spec.maxReplicas = inSpec.maxReplicas ?? 0;
  const cpu = metrics.find(isCPU);
  if (cpu !== undefined && isCPUUtilization(cpu)) spec.targetCPUUtilizationPercentage = obj(obj(cpu.resource).target).averageUtilization;

  const status: JsonObject = {};
  copy(status, 'observedGeneration', inStatus);
  copy(status, 'lastScaleTime', inStatus);
  status.currentReplicas = inStatus.currentReplicas ?? 0;
  status.desiredReplicas = inStatus.desiredReplicas ?? 0;
  const currentMetrics = Array.isArray(inStatus.currentMetrics) ? inStatus.currentMetrics.map(obj) : [];
  // No break upstream: the last CPU utilization wins.
  for (const m of currentMetrics) {
    if (isCPU(m) && present(obj(obj(m.resource).current), 'averageUtilization')) {
      status.currentCPUUtilizationPercentage = obj(obj(m.resource).current).averageUtilization;
    }
  }

  const annotations: Record<string, string> = {};
  const otherMetrics = metrics.filter((m) => !isCPUUtilization(m)).map(metricSpecToV1);
  if (otherMetrics.length > 0) annotations[metricSpecsAnnotation] = JSON.stringify(otherMetrics);
  if (currentMetrics.length > 0) annotations[metricStatusesAnnotation] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  if (isObject(inSpec.behavior)) {
    annotations[behaviorAnnotation] = JSON.stringify({ ScaleUp: rulesToGo(inSpec.behavior.scaleUp), ScaleDown: rulesToGo(inSpec.behavior.scaleDown) });
  }
  const conditions = Array.isArray(inStatus.conditions) ? inStatus.conditions : [];
  if (conditions.length > 0) annotations[conditionsAnnotation] = JSON.stringify(conditions);
  if (Object.keys(annotations).length > 0) meta.annotations = { ...obj(meta.annotations), ...annotations };

  return { kind, apiVersion: 'autoscaling/v1', metadata, ...rest, spec, status } as KubeObject;
}

/** An autoscaling/v1 HorizontalPodAutoscaler as autoscaling/v2 (its stored version) holds it. */
export function hpaV1ToV2(v1: KubeObject): KubeObject {
  const { kind, apiVersion, metadata, spec: rawSpec, status: rawStatus, ...rest } = clone(v1) as KubeObject & { spec?: unknown; status?: unknown };
  const meta = metadata as unknown as JsonObject;
  const inSpec = obj(rawSpec);
  const inStatus = obj(rawStatus);

  const spec: JsonObject = { scaleTargetRef: crossVersionRef(obj(inSpec.scaleTargetRef)) };
  copy(spec, 'minReplicas', inSpec);
  spec.maxReplicas = inSpec.maxReplicas ?? 0;
  let metrics: JsonObject[] = [];
  if (present(inSpec, 'targetCPUUtilizationPercentage')) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: inSpec.targetCPUUtilizationPercentage } } });
  }
  const otherMetrics = annotation(meta, metricSpecsAnnotation);
  // The metrics from the annotation come first, the CPU target after them, as upstream.
  if (Array.isArray(otherMetrics)) metrics = [...otherMetrics.map((m) => metricSpecFromV1(obj(m))), ...metrics];
  // v1's implicit default, made explicit now that every metric is known.
  if (metrics.length === 0) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } });
  }
  spec.metrics = metrics;
  const behavior = behaviorFromGo(annotation(meta, behaviorAnnotation));
  if (behavior !== undefined) spec.behavior = behavior;

  const status: JsonObject = {};
  copy(status, 'observedGeneration', inStatus);
  copy(status, 'lastScaleTime', inStatus);
  if (typeof inStatus.currentReplicas === 'number' && inStatus.currentReplicas !== 0) status.currentReplicas = inStatus.currentReplicas;
  status.desiredReplicas = inStatus.desiredReplicas ?? 0;
  if (present(inStatus, 'currentCPUUtilizationPercentage')) {
    status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: inStatus.currentCPUUtilizationPercentage } } }];
  }
  // The annotation has more than the CPU utilization: it wins.
  const currentMetrics = annotation(meta, metricStatusesAnnotation);
  if (Array.isArray(currentMetrics)) status.currentMetrics = currentMetrics.map((m) => metricStatusFromV1(obj(m)));
  const conditions = annotation(meta, conditionsAnnotation);
  if (Array.isArray(conditions)) status.conditions = conditions;
  withoutRoundTripAnnotations(meta);

  return { kind, apiVersion: 'autoscaling/v2', metadata, ...rest, spec, status } as KubeObject;
}
