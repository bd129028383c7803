// Client-side `kubectl apply` of a Deployment edited three times. kubectl computes a
// three-way strategic merge patch (last-applied annotation, new manifest, live object)
// and sends it; the server applies it to the live object. The patches below are the
// bodies kubectl 1.33 sent for these edits (taken from `kubectl apply -v=9`), the live
// objects are what kube-apiserver stores (its defaults filled in), and each step's
// result is what kube-apiserver's strategic merge gives before defaulting.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyPatch } from '../../src/patch/index.ts';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';

const defs = builtinDefinitions;
const deploymentSchema = defs['io.k8s.api.apps.v1.Deployment']!;
const lastAppliedKey = 'kubectl.kubernetes.io/last-applied-configuration';

/** The annotation kubectl writes: the manifest as Go marshals a map (sorted keys), then a newline. */
function lastApplied(manifest: unknown): string {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]));
  };
  return `${JSON.stringify(sorted(manifest))}\n`;
}

interface Edit {
  labels: Record<string, string>;
  strategy: Record<string, unknown>;
  containers: Record<string, unknown>[];
}

/** One version of the user's manifest (as kubectl reads it, annotations: {} added). */
function manifest(edit: Edit): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { annotations: {}, labels: edit.labels, name: 'web', namespace: 'default' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: edit.strategy,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: edit.containers } },
    },
  };
}

const nginx = (image: string, env: { name: string; value: string }[], ports: { containerPort: number; name: string }[]) => ({ env, image, name: 'nginx', ports });
const sidecar = { command: ['sleep', 'infinity'], image: 'busybox:1.36', name: 'sidecar' };
const rollingUpdate = { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 }, type: 'RollingUpdate' };
const mode = { name: 'MODE', value: 'prod' };
const logLevel = { name: 'LOG_LEVEL', value: 'debug' };
const http = { containerPort: 80, name: 'http' };
const https = { containerPort: 443, name: 'https' };

const v0 = manifest({ labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginx('nginx:1.25', [mode], [http, https])] });
// Edit 1: a new image.
const v1 = manifest({ labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginx('nginx:1.27', [mode], [http, https])] });
// Edit 2: an environment variable and a second container.
const v2 = manifest({ labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginx('nginx:1.27', [mode, logLevel], [http, https]), sidecar] });
// Edit 3: the https port, the tier label and the rolling update parameters gone (strategy Recreate).
const v3 = manifest({ labels: { app: 'web' }, strategy: { type: 'Recreate' }, containers: [nginx('nginx:1.27', [mode, logLevel], [http]), sidecar] });

/** The container defaults kube-apiserver fills in. */
const containerDefaults = { imagePullPolicy: 'IfNotPresent', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
const withProtocol = (ports: object[]) => ports.map((port) => ({ ...port, protocol: 'TCP' }));

interface Live {
  applied: Record<string, unknown>;
  labels: Record<string, string>;
  strategy: Record<string, unknown>;
  containers: Record<string, unknown>[];
}

/** The Deployment as the server holds it. */
function live(state: Live): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      annotations: { [lastAppliedKey]: lastApplied(state.applied) },
      creationTimestamp: '2025-06-01T10:00:00Z',
      generation: 1,
      labels: state.labels,
      name: 'web',
      namespace: 'default',
      resourceVersion: '6',
      uid: '6bdddf78-4361-4662-b949-101b26ef7f07',
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas: 2,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: 'web' } },
      strategy: state.strategy,
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: state.containers,
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: {},
  };
}

const nginxLive = (image: string, env: object[], ports: object[]) => ({
  env,
  image,
  imagePullPolicy: 'IfNotPresent',
  name: 'nginx',
  ports: withProtocol(ports),
  resources: {},
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
});

// The bodies kubectl sent, annotation values aside (built by lastApplied, which gives
// kubectl's exact string).
const patch1 = {
  metadata: { annotations: { [lastAppliedKey]: lastApplied(v1) } },
  spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ image: 'nginx:1.27', name: 'nginx' }] } } },
};
const patch2 = {
  metadata: { annotations: { [lastAppliedKey]: lastApplied(v2) } },
  spec: {
    template: {
      spec: {
        '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
        containers: [
          { '$setElementOrder/env': [{ name: 'MODE' }, { name: 'LOG_LEVEL' }], env: [{ name: 'LOG_LEVEL', value: 'debug' }], name: 'nginx' },
          { command: ['sleep', 'infinity'], image: 'busybox:1.36', name: 'sidecar' },
        ],
      },
    },
  },
};
const patch3 = {
  metadata: { annotations: { [lastAppliedKey]: lastApplied(v3) }, labels: { tier: null } },
  spec: {
    strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' },
    template: {
      spec: {
        '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }],
        containers: [{ '$setElementOrder/ports': [{ containerPort: 80 }], name: 'nginx', ports: [{ $patch: 'delete', containerPort: 443 }] }],
      },
    },
  },
};

const live0 = live({ applied: v0, labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginxLive('nginx:1.25', [mode], [http, https])] });

const result1 = live({ applied: v1, labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginxLive('nginx:1.27', [mode], [http, https])] });
// The sidecar comes in as the patch has it; defaulting the patched object completes it.
const result2 = live({ applied: v2, labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginxLive('nginx:1.27', [mode, logLevel], [http, https]), sidecar] });
const live2 = live({ applied: v2, labels: { app: 'web', tier: 'frontend' }, strategy: rollingUpdate, containers: [nginxLive('nginx:1.27', [mode, logLevel], [http, https]), { ...sidecar, ...containerDefaults }] });
const result3 = live({ applied: v3, labels: { app: 'web' }, strategy: { type: 'Recreate' }, containers: [nginxLive('nginx:1.27', [mode, logLevel], [http]), { ...sidecar, ...containerDefaults }] });

describe('kubectl client-side apply of a Deployment edited three times', () => {
  test('the annotation kubectl writes is the manifest with sorted keys', () => {
    assert.equal(
      lastApplied(v1),
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"web","tier":"frontend"},"name":"web","namespace":"default"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0},"type":"RollingUpdate"},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"env":[{"name":"MODE","value":"prod"}],"image":"nginx:1.27","name":"nginx","ports":[{"containerPort":80,"name":"http"},{"containerPort":443,"name":"https"}]}]}}}}\n',
    );
  });

  test('edit 1, a new image: the container merges on its name, nothing else moves', () => {
    assert.deepStrictEqual(applyStrategicMergePatch(defs, deploymentSchema, live0, patch1), result1);
  });

  test('edit 2, an env var and a container: both lists merge and keep the manifest order', () => {
    assert.deepStrictEqual(applyStrategicMergePatch(defs, deploymentSchema, result1, patch2), result2);
  });

  test('edit 3, a port, a label and the rolling update parameters removed: $patch delete, null and $retainKeys', () => {
    assert.deepStrictEqual(applyStrategicMergePatch(defs, deploymentSchema, live2, patch3), result3);
  });

  test('through applyPatch, as the PATCH handler calls it', () => {
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    const ctx = { defs, schema: deploymentSchema };
    let object: object = live0;
    object = applyPatch('strategic', object, bytes(patch1), ctx);
    assert.deepStrictEqual(object, result1);
    object = applyPatch('strategic', object, bytes(patch2), ctx);
    assert.deepStrictEqual(object, result2);
    object = applyPatch('strategic', live2, bytes(patch3), ctx);
    assert.deepStrictEqual(object, result3);
  });

  test('applying the same patch again changes nothing', () => {
    assert.deepStrictEqual(applyStrategicMergePatch(defs, deploymentSchema, result3, patch3), result3);
  });
});
