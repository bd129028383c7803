// metav1.Time and MicroTime sites of built-in types, from their schemas: each string is
// parsed as Go parses it and written back as Go writes it; the first that does not parse
// is the answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { builtinDefinitions, canonicalizeTimes, schemaRef, timeSites } from '../../src/schema/index.ts';

const sitesOf = (name: string) => timeSites(builtinDefinitions, { $ref: schemaRef(name) });

test('every type holds the metadata\'s times; an Event holds both kinds', () => {
  const configMap = sitesOf('io.k8s.api.core.v1.ConfigMap')!;
  const cm = { metadata: { creationTimestamp: '2024-01-01T01:00:00+01:00', managedFields: [{ manager: 'm', time: '2024-01-01T00:00:00.5Z' }] }, data: { t: 'garbage' } };
  assert.equal(canonicalizeTimes(configMap, cm), undefined);
  assert.deepEqual(cm, { metadata: { creationTimestamp: '2024-01-01T00:00:00Z', managedFields: [{ manager: 'm', time: '2024-01-01T00:00:00Z' }] }, data: { t: 'garbage' } });

  const events = sitesOf('io.k8s.api.core.v1.Event')!;
  const event = { firstTimestamp: '2024-01-01T00:00:00Z', eventTime: '2024-01-01T00:00:00.1234567Z', series: { lastObservedTime: 'x' } };
  assert.equal(canonicalizeTimes(events, event), 'parsing time "2024-01-01T00:00:00.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"');
  assert.equal(canonicalizeTimes(events, { eventTime: '2024-01-01T00:00:00.000000Z', series: { lastObservedTime: '0001-01-01T00:00:00.000000Z' } }), undefined);
});

test('conditions in a list, nulls and values of other types are left to the schema', () => {
  const pods = sitesOf('io.k8s.api.core.v1.Pod')!;
  const pod = { metadata: { creationTimestamp: null }, status: { conditions: [{ type: 'Ready', lastProbeTime: '0001-01-01T00:00:00Z', lastTransitionTime: 5 }] } };
  assert.equal(canonicalizeTimes(pods, pod), undefined);
  assert.deepEqual(pod.status.conditions[0], { type: 'Ready', lastProbeTime: null, lastTransitionTime: 5 });
  assert.equal(canonicalizeTimes(pods, { status: { conditions: [{ lastTransitionTime: '2024-01-01' }] } }),
    'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"');
});

test('long strings are not remembered: a hundred bad 300 kB times leave the heap as it was', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const events = sitesOf('io.k8s.api.core.v1.Event')!;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100; i++) {
    const error = canonicalizeTimes(events, { firstTimestamp: `${i}${'x'.repeat(300_000)}` });
    assert.match(error!, /^parsing time "\d+x+" as "2006-01-02T15:04:05Z07:00": cannot parse/);
  }
  gc();
  // Kept, each text and its parse error stayed until 1024 of them had been seen.
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 20_000_000, `the heap grew ${Math.round(grown / 1e6)} MB`);
});
