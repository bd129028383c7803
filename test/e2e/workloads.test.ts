// The workload types beside Deployments through kubectl: apply, get with upstream's columns,
// scale, and upstream's answers to invalid updates.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const kubectlBin = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

let server: TestServer;
const dir = mkdtempSync(path.join(os.tmpdir(), 'workloads-'));
before(async () => {
  // The ControllerRevision below names its DaemonSet by a made-up uid: the garbage collector would take it.
  server = await startServer({ enableGarbageCollector: false });
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function kubectl(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', path.join(dir, 'cache'), ...args], { timeout: 30_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr ?? e.message);
  }
}

let files = 0;
async function apply(ns: string, yaml: string): Promise<string> {
  const file = path.join(dir, `manifest-${files++}.yaml`);
  writeFileSync(file, yaml);
  return kubectl('-n', ns, 'apply', '-f', file);
}

const podSpec = `
    spec:
      containers:
      - {name: web, image: nginx:1.27}`;

const manifests = `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-rs}
spec:
  replicas: 2
  selector: {matchLabels: {app: web-rs}}
  template:
    metadata: {labels: {app: web-rs}}${podSpec}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}${podSpec}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {disk: ssd}
      containers:
      - {name: agent, image: agent:1}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  template:
    metadata: {labels: {app: legacy}}${podSpec}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: base}
template:
  metadata: {labels: {app: base}}
  spec:
    containers:
    - {name: web, image: nginx:1.27}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: agent-1
  ownerReferences:
  - {apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: 5b0c5f5e-0000-4000-8000-000000000001, controller: true}
data: {spec: {template: {metadata: {labels: {app: agent}}}}}
revision: 1
`;

/** The rows of a kubectl table, split on runs of two or more spaces. */
function rows(out: string): string[][] {
  return out.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
}

describe('workloads through kubectl 1.33', { skip: existsSync(kubectlBin) ? false : `kubectl 1.33 is not installed at ${kubectlBin}` }, () => {
  test('apply of each kind, then get shows upstream\'s columns', async () => {
    const ns = await server.newNamespace('workloads');
    const applied = await apply(ns, manifests);
    for (const line of ['replicaset.apps/web-rs created', 'statefulset.apps/db created', 'daemonset.apps/agent created',
      'replicationcontroller/legacy created', 'podtemplate/base created', 'controllerrevision.apps/agent-1 created']) {
      assert.match(applied, new RegExp(line.replace('.', '\\.')));
    }
    const cases: { args: string[]; expected: string[][] }[] = [
      { args: ['get', 'rs'], expected: [['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'], ['web-rs', '2', '0', '0']] },
      {
        args: ['get', 'rs', '-o', 'wide'],
        expected: [['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'], ['web-rs', '2', '0', '0', 'web', 'nginx:1.27', 'app=web-rs']],
      },
      { args: ['get', 'sts'], expected: [['NAME', 'READY', 'AGE'], ['db', '0/1']] },
      { args: ['get', 'sts', '-o', 'wide'], expected: [['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES'], ['db', '0/1', 'web', 'nginx:1.27']] },
      {
        args: ['get', 'ds'],
        expected: [['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'], ['agent', '0', '0', '0', '0', '0', 'disk=ssd']],
      },
      { args: ['get', 'rc'], expected: [['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'], ['legacy', '1', '0', '0']] },
      { args: ['get', 'controllerrevisions'], expected: [['NAME', 'CONTROLLER', 'REVISION', 'AGE'], ['agent-1', 'daemonset.apps/agent', '1']] },
      { args: ['get', 'podtemplates'], expected: [['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS'], ['base', 'web', 'nginx:1.27', 'app=base']] },
    ];
    for (const c of cases) {
      const [header, row] = rows(await kubectl('-n', ns, ...c.args));
      assert.deepEqual(header, c.expected[0], c.args.join(' '));
      // The Age cell varies; compare the others.
      const ageAt = header!.indexOf('AGE');
      assert.deepEqual(ageAt < 0 ? row : row!.filter((_, i) => i !== ageAt), c.expected[1], c.args.join(' '));
    }
  });

  test('new objects answer upstream\'s initial statuses and defaults', async () => {
    const ns = await server.newNamespace('workloads');
    await apply(ns, manifests);
    const get = async (kind: string, name: string) => JSON.parse(await kubectl('-n', ns, 'get', kind, name, '-o', 'json'));
    assert.deepEqual((await get('rs', 'web-rs')).status, { replicas: 0 });
    assert.deepEqual((await get('rc', 'legacy')).status, { replicas: 0 });
    const sts = await get('sts', 'db');
    assert.deepEqual(sts.status, { replicas: 0, availableReplicas: 0 });
    assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
    assert.equal(sts.spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
    const ds = await get('ds', 'agent');
    assert.deepEqual(ds.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    const rc = await get('rc', 'legacy');
    assert.deepEqual(rc.spec.selector, { app: 'legacy' });
    assert.deepEqual(rc.metadata.labels, { app: 'legacy' });
  });

  test('kubectl scale sets the replicas of a ReplicaSet, a StatefulSet and a ReplicationController', async () => {
    const ns = await server.newNamespace('workloads');
    await apply(ns, manifests);
    for (const [kind, name] of [['rs', 'web-rs'], ['sts', 'db'], ['rc', 'legacy']] as const) {
      assert.match(await kubectl('-n', ns, 'scale', kind, name, '--replicas=4'), /scaled/);
      const obj = JSON.parse(await kubectl('-n', ns, 'get', kind, name, '-o', 'json'));
      assert.equal(obj.spec.replicas, 4, kind);
      assert.equal(obj.metadata.generation, 2, kind);
    }
  });

  test('invalid updates answer upstream\'s 422 messages', async () => {
    const ns = await server.newNamespace('workloads');
    await apply(ns, manifests);
    const cases: { name: string; yaml: string; message: string }[] = [
      {
        name: 'a StatefulSet\'s serviceName',
        yaml: manifests.split('---')[1]!.replace('serviceName: db', 'serviceName: other'),
        message: `The StatefulSet "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden`,
      },
      {
        name: 'a ReplicaSet\'s selector',
        yaml: manifests.split('---')[0]!.replaceAll('app: web-rs}', 'app: web-rs, v: "2"}'),
        message: 'The ReplicaSet "web-rs" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web-rs","v":"2"}}: field is immutable',
      },
    ];
    for (const c of cases) {
      await assert.rejects(apply(ns, c.yaml), (err: Error) => {
        assert.ok(err.message.includes(c.message), `${c.name}: ${err.message}`);
        return true;
      });
    }
  });
});
