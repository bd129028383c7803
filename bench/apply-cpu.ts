// `node test/apply/apply.bench.ts`: CPU per server-side apply and per managed-fields update
// of a Deployment with 10 containers, in process (the apply module alone, no HTTP or
// storage). Meant for bench/ beside bench/schema.ts; issue 5 aims at ≥ 2,000 applies/s
// through the whole server on 2 cores, so this part should stay well under 0.5 ms.

import type { KubeObject } from '../src/api/types.ts';
import type { ManagedFieldsScope } from '../src/apply/index.ts';
import { apply, compileTopology, updateManagedFields } from '../src/apply/index.ts';
import { builtinDefinitions } from '../src/schema/index.ts';

const scope: ManagedFieldsScope = {
  topology: compileTopology(builtinDefinitions['io.k8s.api.apps.v1.Deployment'], builtinDefinitions),
  apiVersion: 'apps/v1',
  kind: 'Deployment',
};

function container(i: number, tag: string): Record<string, unknown> {
  return {
    name: `app-${i}`,
    image: `registry.example.com/app-${i}:${tag}`,
    args: ['--port=8080', '--verbose'],
    ports: [{ name: 'http', containerPort: 8080 + i }, { name: 'metrics', containerPort: 9090 + i, protocol: 'TCP' }],
    env: [{ name: 'MODE', value: 'production' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
    volumeMounts: [{ name: 'config', mountPath: `/etc/app-${i}` }],
  };
}

/** Manager `m`'s configuration: the whole Deployment plus a label of its own. */
function config(m: string, n: number, tag = '1.0'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web', [`applied-by-${m}`]: String(n) } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: Array.from({ length: 10 }, (_, i) => container(i, tag)), volumes: [{ name: 'config', configMap: { name: 'web-config' } }] },
      },
    },
  };
}

function stored(obj: KubeObject, i: number): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'uid-1', resourceVersion: String(i) } };
}

/**
 * Microseconds of CPU per operation, after a warm-up. `step` prepares its input untimed
 * and passes the operation to `timed`.
 */
function measure(name: string, n: number, step: (i: number, timed: (op: () => void) => void) => void): void {
  let total = 0;
  const timed = (op: () => void): void => {
    const before = process.cpuUsage();
    op();
    const used = process.cpuUsage(before);
    total += used.user + used.system;
  };
  for (let i = 0; i < Math.min(n, 2000); i++) step(i, (op) => op());
  for (let i = 0; i < n; i++) step(i, timed);
  const us = total / n;
  console.log(`${name.padEnd(62)} ${us.toFixed(0).padStart(5)} µs/op  ${Math.round(1e6 / us).toString().padStart(6)} ops/s`);
}

const managers = ['kubectl', 'argocd', 'helm'];
let live: KubeObject | undefined;

function applyInTurn(i: number, timed: (op: () => void) => void, current: KubeObject | undefined, tag?: string): void {
  const m = managers[i % 3]!;
  const body = config(m, i, tag);
  let r: ReturnType<typeof apply> | undefined;
  timed(() => {
    r = apply(scope, current, body, m, { force: tag !== undefined });
  });
  if (!r!.ok) throw new Error('unexpected conflict');
  live = stored(r!.object, i);
}

measure('apply by 3 managers in turn (shared spec, own labels)', 10_000, (i, timed) => applyInTurn(i, timed, live));
measure('same, the live object freshly parsed from JSON each time', 5_000, (i, timed) => {
  applyInTurn(i, timed, JSON.parse(JSON.stringify(live)) as KubeObject);
});

// The last apply above, made again.
const last = 4_999;
const settled = live!;
const same = config(managers[last % 3]!, last);
const noop = apply(scope, settled, same, managers[last % 3]!);
if (!noop.ok || noop.changed) throw new Error('expected a no-op');
measure('re-apply of an unchanged configuration (no-op)', 10_000, (_, timed) => timed(() => apply(scope, settled, same, managers[last % 3]!)));
measure('non-apply update (PUT changing replicas) with 3 Apply entries', 10_000, (i, timed) => {
  const obj = { ...settled, spec: { ...(settled.spec as Record<string, unknown>), replicas: i } };
  timed(() => updateManagedFields(scope, settled, obj, 'kubectl-scale'));
});
measure('apply by 3 managers in turn, each forcing 10 new images', 5_000, (i, timed) => applyInTurn(i, timed, live, `v${i}`));
