// `node bench/json.ts`: microseconds per copy and per comparison of a Deployment with 10
// containers, 3 managers' managedFields and a status (about 28 kB of JSON), by
// api/json.ts beside the alternatives it replaced: JSON's round trip, structuredClone,
// util.isDeepStrictEqual.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../src/api/types.ts';
import { clone, deepEqual } from '../src/api/json.ts';
import { apply, compileTopology } from '../src/apply/index.ts';
import { builtinDefinitions } from '../src/schema/index.ts';

const scope = {
  topology: compileTopology(builtinDefinitions['io.k8s.api.apps.v1.Deployment'], builtinDefinitions),
  apiVersion: 'apps/v1',
  kind: 'Deployment',
};

function container(i: number): Record<string, unknown> {
  return {
    name: `app-${i}`,
    image: `registry.example.com/app-${i}:1.0`,
    args: ['--port=8080', '--verbose'],
    ports: [{ name: 'http', containerPort: 8080 + i }, { name: 'metrics', containerPort: 9090 + i, protocol: 'TCP' }],
    env: [{ name: 'MODE', value: 'production' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
    volumeMounts: [{ name: 'config', mountPath: `/etc/app-${i}` }],
  };
}

let live: KubeObject | undefined;
for (const m of ['kubectl', 'argocd', 'helm']) {
  const r = apply(scope, live, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web', [`applied-by-${m}`]: '1' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: Array.from({ length: 10 }, (_, i) => container(i)) } },
    },
  }, m, {});
  if (!r.ok) throw new Error('unexpected conflict');
  live = { ...r.object, metadata: { ...r.object.metadata, uid: 'uid-1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' } };
}
const text = JSON.stringify({ ...live, status: { replicas: 3, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] } });
const object = JSON.parse(text) as KubeObject;
const same = JSON.parse(text) as KubeObject;

/** The fastest of 7 rounds, after a warm-up, in µs of CPU per call. */
function measure(name: string, op: () => unknown, n = 5_000): void {
  for (let i = 0; i < 2_000; i++) op();
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) op();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / n);
  }
  console.log(`${name.padEnd(40)} ${best.toFixed(1).padStart(7)} µs/op`);
}

console.log(`a Deployment of ${text.length} bytes of JSON`);
measure('clone', () => clone(object));
measure('JSON.parse(JSON.stringify(...))', () => JSON.parse(JSON.stringify(object)));
measure('structuredClone', () => structuredClone(object));
measure('deepEqual (equal objects)', () => deepEqual(object, same));
measure('util.isDeepStrictEqual (equal objects)', () => isDeepStrictEqual(object, same));
