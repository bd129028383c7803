// Conversions between served and stored versions: autoscaling/v1 ↔ v2 HorizontalPodAutoscalers
// (with upstream's round-trip annotations) and events.k8s.io/v1 ↔ core/v1 Events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { hpaV1ToV2, hpaV2ToV1 } from '../../../src/registry/builtin/hpa-conversion.ts';
import { eventFromCore, eventToCore } from '../../../src/registry/builtin/events-v1.ts';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const v2 = (spec: Record<string, unknown>, status: Record<string, unknown> = { desiredReplicas: 0 }, annotations?: Record<string, string>) =>
  ({ kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2', metadata: { name: 'h', ...(annotations ? { annotations } : {}) }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, ...spec }, status }) as KubeObject;
const cpu = (n: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: n } } });

const roundTrips: { name: string; v2: KubeObject; v1Spec: Record<string, unknown>; annotations?: Record<string, unknown> }[] = [
  { name: 'the CPU utilization metric is targetCPUUtilizationPercentage', v2: v2({ metrics: [cpu(55)] }), v1Spec: { targetCPUUtilizationPercentage: 55 } },
  {
    name: 'another metric goes to the metrics annotation in v1 form',
    v2: v2({ metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }] }),
    v1Spec: {},
    annotations: { 'autoscaling.alpha.kubernetes.io/metrics': [{ type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10' } }] },
  },
  {
    name: 'behavior goes to the behavior annotation with Go field names',
    v2: v2({ metrics: [cpu(80)], behavior: { scaleDown: { stabilizationWindowSeconds: 30, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } } }),
    v1Spec: { targetCPUUtilizationPercentage: 80 },
    annotations: {
      'autoscaling.alpha.kubernetes.io/behavior': {
        ScaleUp: null, ScaleDown: { StabilizationWindowSeconds: 30, SelectPolicy: 'Min', Policies: [{ Type: 'Pods', Value: 1, PeriodSeconds: 60 }], Tolerance: null },
      },
    },
  },
  {
    name: 'current metrics and conditions go to their annotations; the CPU utilization is also currentCPUUtilizationPercentage',
    v2: v2({ metrics: [cpu(80)] }, {
      currentReplicas: 2, desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40, averageValue: '100m' } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Ready', message: 'ok' }],
    }),
    v1Spec: { targetCPUUtilizationPercentage: 80 },
    annotations: {
      'autoscaling.alpha.kubernetes.io/current-metrics': [{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 40, currentAverageValue: '100m' } }],
      'autoscaling.alpha.kubernetes.io/conditions': [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Ready', message: 'ok' }],
    },
  },
  {
    name: 'the client annotations stay beside the round-trip ones',
    v2: v2({ metrics: [cpu(70)] }, { desiredReplicas: 0 }, { team: 'web' }),
    v1Spec: { targetCPUUtilizationPercentage: 70 },
    annotations: { team: 'web' },
  },
];

for (const c of roundTrips) {
  test(`v2 → v1 → v2: ${c.name}`, () => {
    const v1 = hpaV2ToV1(c.v2);
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, ...c.v1Spec });
    const annotations = Object.fromEntries(Object.entries(v1.metadata.annotations ?? {}).map(([k, v]) => [k, k.startsWith('autoscaling.alpha') ? JSON.parse(v) : v]));
    assert.deepEqual(annotations, c.annotations ?? {});
    const back = hpaV1ToV2(v1);
    assert.deepEqual(back, c.v2);
    assert.deepEqual(hpaV2ToV1(back), v1);
  });
}

test('v1 → v2: no CPU target and no metrics annotation is the default 80% CPU utilization', () => {
  const v1 = { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: { name: 'h' }, spec: { scaleTargetRef: ref, maxReplicas: 2 } } as KubeObject;
  assert.deepEqual(hpaV1ToV2(v1).spec, { scaleTargetRef: ref, maxReplicas: 2, metrics: [cpu(80)] });
});

test('v1 → v2: annotated metrics come before the CPU target, and unparsable annotations are ignored', () => {
  const v1 = {
    kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1',
    metadata: { name: 'h', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":50}}]', 'autoscaling.alpha.kubernetes.io/behavior': 'not json' } },
    spec: { scaleTargetRef: ref, maxReplicas: 2, targetCPUUtilizationPercentage: 60 },
  } as KubeObject;
  const out = hpaV1ToV2(v1);
  assert.deepEqual((out.spec as any).metrics, [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50 } } }, cpu(60)]);
  assert.equal((out.spec as any).behavior, undefined);
  assert.equal(out.metadata.annotations, undefined);
});

const eventCases: { name: string; core: Record<string, unknown>; events: Record<string, unknown> }[] = [
  {
    name: 'an old-style event: deprecated fields, no eventTime',
    core: {
      involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'hi', source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: '2024-01-01T00:00:00Z', lastTimestamp: '2024-01-01T00:00:01Z', count: 3, type: 'Normal',
      // What core/v1's Go type writes however empty: the time null, the reporting fields "".
      eventTime: null, reportingComponent: '', reportingInstance: '',
    },
    events: {
      eventTime: null, reason: 'Started', regarding: { kind: 'Pod', name: 'p' }, note: 'hi', type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'n1' }, deprecatedFirstTimestamp: '2024-01-01T00:00:00Z', deprecatedLastTimestamp: '2024-01-01T00:00:01Z', deprecatedCount: 3,
    },
  },
  {
    name: 'a new-style event: reporting fields, series, related',
    core: {
      involvedObject: { kind: 'Deployment', name: 'web' }, reason: 'Scaled', message: 'up', source: {}, type: 'Warning', eventTime: '2024-01-01T00:00:00.000000Z',
      series: { count: 2, lastObservedTime: '2024-01-01T00:00:02.000000Z' }, action: 'Scale', related: { kind: 'Pod', name: 'p' },
      reportingComponent: 'ctl', reportingInstance: 'ctl-1', firstTimestamp: null, lastTimestamp: null,
    },
    events: {
      eventTime: '2024-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2024-01-01T00:00:02.000000Z' }, reportingController: 'ctl', reportingInstance: 'ctl-1',
      action: 'Scale', reason: 'Scaled', regarding: { kind: 'Deployment', name: 'web' }, related: { kind: 'Pod', name: 'p' }, note: 'up', type: 'Warning', deprecatedSource: {},
      deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null,
    },
  },
];

for (const c of eventCases) {
  test(`core/v1 ↔ events.k8s.io/v1 Event: ${c.name}`, () => {
    const core = { kind: 'Event', apiVersion: 'v1', metadata: { name: 'e', namespace: 'ns' }, ...c.core } as KubeObject;
    const events = eventFromCore(core);
    assert.deepEqual(events, { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'e', namespace: 'ns' }, ...c.events });
    assert.deepEqual(eventToCore(events), core);
  });
}
