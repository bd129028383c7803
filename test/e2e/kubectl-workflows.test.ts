// kubectl workflows beyond create/get/delete, with kubectl 1.27 and 1.33 against one server:
// node maintenance (cordon, drain through the eviction API and a PodDisruptionBudget,
// uncordon), CSR approval, bound tokens, access checks, wait, diff (server-side dry run),
// apply --prune, server-side apply conflicts, replace --force, patch errors, label and
// annotate preconditions, set, scale preconditions, rollout, jobs from cronjobs, output
// formats, raw paths, events, explain, api-resources and cascading deletion. Each asserts
// what kubectl prints against kube-apiserver 1.36 (no controllers but Plinth's own run:
// deployments get no ReplicaSets, CSRs are approved but not issued).
//
// The last tests are workflows that differed from kube-apiserver until they were fixed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectls = [
  { version: '1.27', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.27' },
  { version: '1.33', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.33' },
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A CSR for CN=alice, O=dev (P-256), as `openssl req -new` writes it. */
const csrPem = `-----BEGIN CERTIFICATE REQUEST-----
MIHZMIGAAgEAMB4xDjAMBgNVBAMMBWFsaWNlMQwwCgYDVQQKDANkZXYwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAATMhhGZV+uAmxO75G+S3Z/UboGttfDCwh1Wheiq
wpPBFS1hS9yYp6AB2MdAgdYBbI8I2LQWWr4QQIBS8QeUfbtQoAAwCgYIKoZIzj0E
AwIDSAAwRQIhAJ09stPHmP/L7Vyrg3Du8gOo3Ik3pB46hTXUjT97faGeAiAcTreD
xjziKsyd0Idrf7I0RjzP87yUQ8Pw0jnuhEq4sA==
-----END CERTIFICATE REQUEST-----
`;

let server: TestServer;
let kubeconfig: string;
before(async () => {
  // One simulated node per kubectl version, so that one version's drain leaves the others' alone;
  // terminating pods go after half a second, so that drains and waits end quickly.
  server = await startServer({ simulatedNodes: kubectls.length, simulatedMaxGracePeriodMs: 500 });
  kubeconfig = path.join(server.dataDir, 'kubeconfig');
  const crd = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
        versions: [{
          name: 'v1', served: true, storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object', description: 'The widget\'s desired state.',
                  properties: { size: { type: 'string', description: 'How big the widget is.', enum: ['S', 'M', 'L'] }, replicas: { type: 'integer', minimum: 0 } },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer' },
                    conditions: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } } },
                  },
                },
              },
            },
          },
        }],
      },
    },
  });
  assert.equal(crd.status, 201, crd.text);
});
after(async () => {
  await server?.stop();
});

async function post(urlPath: string, body: Json): Promise<Json> {
  const res = await server.request('POST', urlPath, { body });
  assert.equal(res.status, 201, `POST ${urlPath}: ${res.text}`);
  return res.json;
}

async function get(urlPath: string): Promise<Json> {
  const res = await server.request('GET', urlPath);
  assert.equal(res.status, 200, `GET ${urlPath}: ${res.text}`);
  return res.json;
}

async function absent(urlPath: string): Promise<boolean> {
  return (await server.request('GET', urlPath)).status === 404;
}

function podTemplate(app: string, image = 'nginx'): Json {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image }] } };
}

/** A pod bound to `node`, owned by `owner` when given (kind, name, uid). */
function boundPod(name: string, node: string, labels: Record<string, string>, owner?: { kind: string; name: string; uid: string }, extra: Json = {}): Json {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, labels,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }], ...extra },
  };
}

function jwtPayload(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

kubectls.forEach(({ version, bin }, index) => {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version} workflows`, { skip }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-workflows-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const node = `sim-node-${index}`;
    const tag = version.replace('.', '-');
    const kubectl = (...args: string[]) => new Promise<Run>((resolve) => {
      execFile(bin, ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        // Every one of these kubectls is more than one minor version from 1.36.
        resolve({ code, stdout, stderr: stderr.split('\n').filter((line) => !line.includes('exceeds the supported minor version skew')).join('\n') });
      });
    });
    const ok = async (...args: string[]) => {
      const run = await kubectl(...args);
      assert.equal(run.code, 0, `kubectl ${args.join(' ')}: ${run.stderr}`);
      return run;
    };
    const file = (name: string, text: string) => {
      const p = path.join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    let ns = '';
    before(async () => {
      ns = await server.newNamespace(`wf-${tag}`);
    });

    describe('cordon, drain and uncordon a node with pods', () => {
      const api = () => `/api/v1/namespaces/${ns}`;
      before(async () => {
        const rs = await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
          apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' },
          spec: { replicas: 2, selector: { matchLabels: { app: 'rs' } }, template: podTemplate('rs') },
        });
        const ds = await post(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
          apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' },
          spec: { selector: { matchLabels: { app: 'ds' } }, template: podTemplate('ds') },
        });
        await post(`${api()}/pods`, boundPod('rs-a', node, { app: 'rs' }, { kind: 'ReplicaSet', name: 'rs', uid: rs.metadata.uid }));
        await post(`${api()}/pods`, boundPod('rs-b', node, { app: 'rs' }, { kind: 'ReplicaSet', name: 'rs', uid: rs.metadata.uid }));
        await post(`${api()}/pods`, boundPod('ds-a', node, { app: 'ds' }, { kind: 'DaemonSet', name: 'ds', uid: ds.metadata.uid }));
        await post(`${api()}/pods`, boundPod('scratch', node, { app: 'scratch' }, undefined, { volumes: [{ name: 'v', emptyDir: {} }] }));
        await post(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
          apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb' },
          spec: { minAvailable: 1, selector: { matchLabels: { app: 'rs' } } },
        });
      });

      test('wait until the pods run on the node', async () => {
        const run = await ok('-n', ns, 'wait', '--for=condition=Ready', 'pod', '--all', '--timeout=15s');
        assert.deepEqual(run.stdout.trim().split('\n').sort(), ['pod/ds-a condition met', 'pod/rs-a condition met', 'pod/rs-b condition met', 'pod/scratch condition met']);
      });

      test('cordon marks the node unschedulable, once', async () => {
        assert.equal((await ok('cordon', node)).stdout, `node/${node} cordoned\n`);
        assert.equal((await ok('cordon', node)).stdout, `node/${node} already cordoned\n`);
        assert.equal((await get(`/api/v1/nodes/${node}`)).spec.unschedulable, true);
        const table = await ok('get', 'node', node);
        assert.match(table.stdout, new RegExp(`^${node}\\s+Ready,SchedulingDisabled\\s+<none>\\s+\\S+\\s+v1\\.36\\.2\\n`, 'm'));
      });

      test('drain without flags refuses DaemonSet pods and local storage', async () => {
        const run = await kubectl('drain', node, '--timeout=5s');
        assert.equal(run.code, 1);
        assert.match(run.stderr, new RegExp(`cannot delete DaemonSet-managed Pods \\(use --ignore-daemonsets to ignore\\): ${ns}/ds-a`));
        assert.match(run.stderr, new RegExp(`cannot delete Pods with local storage \\(use --delete-emptydir-data to override\\): ${ns}/scratch`));
        assert.ok(!(await absent(`${api()}/pods/rs-a`)) && !(await absent(`${api()}/pods/scratch`)), 'nothing was evicted');
      });

      test('drain evicts until the PodDisruptionBudget forbids it (429, retried until the timeout)', async () => {
        const run = await kubectl('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=3s');
        assert.equal(run.code, 1);
        assert.match(run.stdout, new RegExp(`^node/${node} already cordoned\\n`));
        assert.match(run.stdout, new RegExp(`^evicting pod ${ns}/scratch$`, 'm'));
        assert.match(run.stdout, new RegExp(`^pod/scratch evicted$`, 'm'));
        assert.match(run.stderr, new RegExp(`^error when evicting pods/"rs-[ab]" -n "${ns}" \\(will retry after 5s\\): Cannot evict pod as it would violate the pod's disruption budget\\.$`, 'm'));
        assert.match(run.stderr, /global timeout reached: 3s/);
        const left = (await get(`${api()}/pods`)).items.map((p: Json) => p.metadata.name).sort();
        assert.equal(left.filter((n: string) => n.startsWith('rs-')).length, 1, `one of the budget's pods stays: ${left}`);
        assert.ok(left.includes('ds-a'));
        const pdb = await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/pdb`);
        assert.equal(pdb.status.disruptionsAllowed, 0);
      });

      test('without the budget, drain finishes', async () => {
        await ok('-n', ns, 'delete', 'pdb', 'pdb');
        const run = await ok('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=15s');
        assert.match(run.stdout, new RegExp(`^evicting pod ${ns}/rs-[ab]$`, 'm'));
        assert.match(run.stdout, new RegExp(`^node/${node} drained\\n$`, 'm'));
        assert.match(run.stderr, new RegExp(`^Warning: ignoring DaemonSet-managed Pods: ${ns}/ds-a\\n`));
        const left = (await get(`${api()}/pods`)).items.map((p: Json) => p.metadata.name);
        assert.deepEqual(left, ['ds-a']);
      });

      test('uncordon makes the node schedulable again', async () => {
        assert.equal((await ok('uncordon', node)).stdout, `node/${node} uncordoned\n`);
        assert.equal((await ok('uncordon', node)).stdout, `node/${node} already uncordoned\n`);
        assert.equal((await get(`/api/v1/nodes/${node}`)).spec.unschedulable, undefined);
      });
    });

    test('certificate approve and deny', async () => {
      const request = Buffer.from(csrPem).toString('base64');
      for (const name of ['a', 'd']) {
        await post('/apis/certificates.k8s.io/v1/certificatesigningrequests', {
          apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: `csr-${tag}-${name}` },
          spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 86400 },
        });
      }
      assert.equal((await ok('certificate', 'approve', `csr-${tag}-a`)).stdout, `certificatesigningrequest.certificates.k8s.io/csr-${tag}-a approved\n`);
      assert.equal((await ok('certificate', 'deny', `csr-${tag}-d`)).stdout, `certificatesigningrequest.certificates.k8s.io/csr-${tag}-d denied\n`);
      const approved = await get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-${tag}-a`);
      assert.deepEqual(approved.status.conditions.map((c: Json) => [c.type, c.status, c.reason, c.message]),
        [['Approved', 'True', 'KubectlApprove', 'This CSR was approved by kubectl certificate approve.']]);
      const again = await kubectl('certificate', 'approve', `csr-${tag}-d`);
      assert.equal(again.code, 1);
      assert.equal(again.stderr.trim(), `error: certificate signing request "csr-${tag}-d" is already Denied`);
      const table = await ok('get', 'csr', `csr-${tag}-a`, `csr-${tag}-d`);
      assert.match(table.stdout, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/);
      assert.match(table.stdout, new RegExp(`^csr-${tag}-a\\s+\\S+\\s+kubernetes.io/kube-apiserver-client\\s+admin\\s+24h\\s+Approved\\n`, 'm'));
      assert.match(table.stdout, new RegExp(`^csr-${tag}-d\\s+\\S+\\s+kubernetes.io/kube-apiserver-client\\s+admin\\s+24h\\s+Denied\\n`, 'm'));
      const missing = await kubectl('certificate', 'approve', 'no-such-csr');
      assert.equal(missing.code, 1);
      assert.equal(missing.stderr.trim(), 'Error from server (NotFound): certificatesigningrequests.certificates.k8s.io "no-such-csr" not found');
    });

    test('create token bound to a pod, with a duration and audiences', async () => {
      await ok('-n', ns, 'create', 'serviceaccount', 'bot');
      await post(`/api/v1/namespaces/${ns}/pods`, boundPod('botpod', node, {}, undefined, { serviceAccountName: 'bot' }));
      await post(`/api/v1/namespaces/${ns}/pods`, boundPod('otherpod', node, {}));
      const pod = await get(`/api/v1/namespaces/${ns}/pods/botpod`);
      const token = (await ok('-n', ns, 'create', 'token', 'bot', '--duration=2h', '--audience=foo', '--audience=bar', '--bound-object-kind=Pod', '--bound-object-name=botpod')).stdout.trim();
      const claims = jwtPayload(token);
      assert.deepEqual(claims.aud, ['foo', 'bar']);
      assert.equal(claims.exp - claims.iat, 7200);
      assert.equal(claims.sub, `system:serviceaccount:${ns}:bot`);
      assert.deepEqual(claims['kubernetes.io'].pod, { name: 'botpod', uid: pod.metadata.uid });
      assert.equal(claims['kubernetes.io'].node.name, node);

      const other = await kubectl('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Pod', '--bound-object-name=otherpod');
      assert.equal(other.code, 1);
      assert.equal(other.stderr.trim(), 'error: failed to create token: cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.');
      const uid = await kubectl('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Pod', '--bound-object-name=botpod', '--bound-object-uid=wrong');
      assert.equal(uid.code, 1);
      assert.equal(uid.stderr.trim(), 'error: failed to create token: Operation cannot be fulfilled on Pod "botpod": the UID in the bound object reference (wrong) does not match the UID in record. The object might have been deleted and then recreated');
      const secret = await kubectl('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Secret', '--bound-object-name=nosuch');
      assert.equal(secret.code, 1);
      assert.equal(secret.stderr.trim(), 'error: failed to create token: secrets "nosuch" not found');
      const noSa = await kubectl('-n', ns, 'create', 'token', 'nosa');
      assert.equal(noSa.code, 1);
      assert.equal(noSa.stderr.trim(), 'error: failed to create token: serviceaccounts "nosa" not found');
    });

    test('auth can-i --list and --as, auth whoami --as', async () => {
      const admin = await ok('auth', 'can-i', '--list');
      assert.deepEqual(admin.stdout.split('\n').slice(0, 3).map((l) => l.split(/\s+/).filter((c) => c !== '').join(' ')), [
        'Resources Non-Resource URLs Resource Names Verbs',
        '*.* [] [] [*]',
        '[*] [] [*]',
      ]);
      await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      });
      await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: ns }],
      });
      const sa = `system:serviceaccount:${ns}:bot`;
      const list = await ok('auth', 'can-i', '--list', '-n', ns, `--as=${sa}`);
      assert.match(list.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
      assert.match(list.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
      assert.match(list.stdout, /^\s+\[\/openid\/v1\/jwks\]\s+\[\]\s+\[get\]$/m);
      assert.equal((await ok('auth', 'can-i', 'list', 'pods', '-n', ns, `--as=${sa}`)).stdout, 'yes\n');
      const no = await kubectl('auth', 'can-i', 'delete', 'pods', '-n', ns, `--as=${sa}`);
      assert.deepEqual([no.code, no.stdout], [1, 'no\n']);
      const logs = await kubectl('auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', ns, `--as=${sa}`);
      assert.deepEqual([logs.code, logs.stdout], [1, 'no\n']);
      if (version !== '1.27') {
        const whoami = await ok('auth', 'whoami', '--as=bob', '--as-group=g1', '--as-uid=u1');
        assert.equal(whoami.stdout, 'ATTRIBUTE   VALUE\nUsername    bob\nUID         u1\nGroups      [g1 system:authenticated]\n');
      }
    });

    test('wait for a condition, a JSONPath value, a deletion; and its timeout', async () => {
      assert.equal((await ok('-n', ns, 'wait', '--for=condition=Ready', 'pod/botpod', '--timeout=10s')).stdout, 'pod/botpod condition met\n');
      assert.equal((await ok('-n', ns, 'wait', '--for=jsonpath={.status.phase}=Running', 'pod/botpod', '--timeout=10s')).stdout, 'pod/botpod condition met\n');
      const timeout = await kubectl('-n', ns, 'wait', '--for=jsonpath={.status.phase}=Failed', 'pod/botpod', '--timeout=1s');
      assert.equal(timeout.code, 1);
      assert.equal(timeout.stderr.trim(), 'error: timed out waiting for the condition on pods/botpod');
      await ok('-n', ns, 'delete', 'pod', 'otherpod', '--wait=false');
      assert.equal((await ok('-n', ns, 'wait', '--for=delete', 'pod/otherpod', '--timeout=10s')).stdout, 'pod/otherpod condition met\n');
    });

    test('diff against the server-side dry run', async () => {
      const manifest = (image: string) => file('web.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "${image}"}]}
`);
      const added = await kubectl('diff', '-f', manifest('nginx:1'));
      assert.equal(added.code, 1, added.stderr);
      assert.match(added.stdout, /^\+  progressDeadlineSeconds: 600$/m);
      assert.match(added.stdout, /^\+      - image: nginx:1$/m);
      await ok('apply', '-f', manifest('nginx:1'));
      const same = await ok('diff', '-f', manifest('nginx:1'));
      assert.equal(same.stdout, '');
      const changed = await kubectl('diff', '-f', manifest('nginx:2'));
      assert.equal(changed.code, 1, changed.stderr);
      assert.deepEqual(changed.stdout.split('\n').filter((l) => /^[-+] /.test(l)), ['-  generation: 1', '+  generation: 2', '-      - image: nginx:1', '+      - image: nginx:2']);
      assert.equal((await get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).spec.template.spec.containers[0].image, 'nginx:1');
    });

    test('apply --prune with a label selector and an allowlist', async () => {
      const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}, labels: {set: s1}}\n`;
      const both = file('prune-both.yaml', `${cm('pa')}---\n${cm('pb')}---\napiVersion: v1\nkind: Secret\nmetadata: {name: ps, namespace: ${ns}, labels: {set: s1}}\n`);
      await ok('apply', '-f', both);
      const one = file('prune-one.yaml', cm('pa'));
      const dry = await ok('apply', '--prune', '-l', 'set=s1', '--prune-allowlist=core/v1/ConfigMap', '-f', one, '--dry-run=server');
      assert.equal(dry.stdout, 'configmap/pa unchanged (server dry run)\nconfigmap/pb pruned (server dry run)\n');
      const run = await ok('apply', '--prune', '-l', 'set=s1', '--prune-allowlist=core/v1/ConfigMap', '-f', one);
      assert.equal(run.stdout, 'configmap/pa unchanged\nconfigmap/pb pruned\n');
      assert.ok(await absent(`/api/v1/namespaces/${ns}/configmaps/pb`));
      assert.ok(!(await absent(`/api/v1/namespaces/${ns}/secrets/ps`)), 'the Secret is not in the allowlist');
    });

    test('apply --server-side: two conflicts in upstream\'s words, then --force-conflicts', async () => {
      const manifest = (replicas: number, image: string) => file('ssa.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: ssa, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ssa}}
  template:
    metadata: {labels: {app: ssa}}
    spec: {containers: [{name: c, image: "${image}"}]}
`);
      assert.equal((await ok('apply', '--server-side', '-f', manifest(1, 'nginx:1'))).stdout, 'deployment.apps/ssa serverside-applied\n');
      const conflict = await kubectl('apply', '--server-side', '--field-manager=bob', '-f', manifest(3, 'nginx:2'));
      assert.equal(conflict.code, 1);
      assert.match(conflict.stderr, /^error: Apply failed with 2 conflicts: conflicts with "kubectl":\n- \.spec\.replicas\n- \.spec\.template\.spec\.containers\[name="c"\]\.image\nPlease review the fields above--they currently have other managers\./);
      assert.equal((await ok('apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', manifest(3, 'nginx:2'))).stdout, 'deployment.apps/ssa serverside-applied\n');
      const live = await get(`/apis/apps/v1/namespaces/${ns}/deployments/ssa`);
      assert.deepEqual([live.spec.replicas, live.spec.template.spec.containers[0].image], [3, 'nginx:2']);
      assert.deepEqual(live.metadata.managedFields.map((m: Json) => `${m.manager} ${m.operation}`).sort(), ['bob Apply', 'kubectl Apply']);
    });

    test('replace --force deletes and creates again', async () => {
      await ok('-n', ns, 'create', 'configmap', 'rep', '--from-literal=a=1');
      const before = await get(`/api/v1/namespaces/${ns}/configmaps/rep`);
      const saved = file('rep.json', JSON.stringify(before));
      const run = await ok('replace', '--force', '-f', saved);
      assert.equal(run.stdout, 'configmap "rep" deleted\nconfigmap/rep replaced\n');
      assert.notEqual((await get(`/api/v1/namespaces/${ns}/configmaps/rep`)).metadata.uid, before.metadata.uid);
      const stale = await kubectl('replace', '-f', saved);
      assert.equal(stale.code, 1);
      assert.equal(stale.stderr.trim(), `Error from server (Conflict): error when replacing "${saved}": Operation cannot be fulfilled on configmaps "rep": the object has been modified; please apply your changes to the latest version and try again`);
    });

    test('patch: validation errors, warnings and failing JSON patches', async () => {
      const patch = (...args: string[]) => kubectl('-n', ns, 'patch', 'deploy', 'ssa', ...args);
      const negative = await patch('-p', '{"spec":{"replicas":-1}}');
      assert.deepEqual([negative.code, negative.stderr.trim()], [1, 'The Deployment "ssa" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
      const selector = await patch('-p', '{"spec":{"selector":{"matchLabels":{"app":"zz"}}}}');
      assert.equal(selector.code, 1);
      assert.equal(selector.stderr.trim(), 'The Deployment "ssa" is invalid: \n* spec.template.metadata.labels: Invalid value: {"app":"ssa"}: `selector` does not match template `labels`\n* spec.selector: Invalid value: {"matchLabels":{"app":"zz"}}: field is immutable');
      const unknown = await patch('--type=merge', '-p', '{"spec":{"bogus":1}}');
      assert.deepEqual([unknown.code, unknown.stdout, unknown.stderr.trim()], [0, 'deployment.apps/ssa patched (no change)\n', 'Warning: unknown field "spec.bogus"']);
      const failing = await patch('--type=json', '-p', '[{"op":"test","path":"/spec/replicas","value":99}]');
      assert.deepEqual([failing.code, failing.stderr.trim()], [1, 'The request is invalid: the server rejected our request due to an error in our request']);
      const nullMerge = await patch('--type=merge', '-p', 'null');
      assert.deepEqual([nullMerge.code, nullMerge.stderr.trim()], [1, 'Error from server (BadRequest): Invalid JSON Patch']);
      const rename = await patch('-p', '{"metadata":{"name":"other"}}');
      assert.deepEqual([rename.code, rename.stderr.trim()], [1, 'Error from server (BadRequest): the name of the object (other) does not match the name on the URL (ssa)']);
      const missing = await kubectl('-n', ns, 'patch', 'cm', 'nope', '-p', '{}');
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'Error from server (NotFound): configmaps "nope" not found']);
    });

    test('label and annotate with --overwrite and --resource-version', async () => {
      await ok('-n', ns, 'create', 'configmap', 'lab');
      const rv = (await get(`/api/v1/namespaces/${ns}/configmaps/lab`)).metadata.resourceVersion;
      assert.equal((await ok('-n', ns, 'label', 'cm', 'lab', 'x=1', `--resource-version=${rv}`)).stdout, 'configmap/lab labeled\n');
      const noOverwrite = await kubectl('-n', ns, 'label', 'cm', 'lab', 'x=2');
      assert.deepEqual([noOverwrite.code, noOverwrite.stderr.trim()], [1, "error: 'x' already has a value (1), and --overwrite is false"]);
      assert.equal((await ok('-n', ns, 'label', 'cm', 'lab', 'x=2', '--overwrite')).stdout, 'configmap/lab labeled\n');
      const stale = await kubectl('-n', ns, 'annotate', 'cm', 'lab', 'y=1', `--resource-version=${rv}`);
      assert.deepEqual([stale.code, stale.stderr.trim()], [1, 'Error from server (Conflict): Operation cannot be fulfilled on configmaps "lab": the object has been modified; please apply your changes to the latest version and try again']);
      const badKey = await kubectl('-n', ns, 'label', 'cm', 'lab', 'bad key!=1');
      assert.equal(badKey.code, 1);
      assert.equal(badKey.stderr.trim(), 'The ConfigMap "lab" is invalid: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')');
      assert.equal((await ok('-n', ns, 'label', 'cm', 'lab', 'x-')).stdout, 'configmap/lab unlabeled\n');
    });

    test('set image, env and resources on a Deployment', async () => {
      assert.equal((await ok('-n', ns, 'set', 'image', 'deploy/ssa', 'c=nginx:3')).stdout, 'deployment.apps/ssa image updated\n');
      assert.equal((await ok('-n', ns, 'set', 'env', 'deploy/ssa', 'A=1', 'B=2')).stdout, 'deployment.apps/ssa env updated\n');
      assert.equal((await ok('-n', ns, 'set', 'env', 'deploy/ssa', '--list')).stdout, '# Deployment ssa, container c\nA=1\nB=2\n');
      assert.equal((await ok('-n', ns, 'set', 'resources', 'deploy/ssa', '--limits=cpu=200m,memory=512Mi', '--requests=cpu=100m')).stdout, 'deployment.apps/ssa resource requirements updated\n');
      const bad = await kubectl('-n', ns, 'set', 'resources', 'deploy/ssa', '--limits=cpu=50m', '--requests=cpu=100m');
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr.trim(), 'error: failed to patch resources update to pod template Deployment.apps "ssa" is invalid: spec.template.spec.containers[0].resources.requests: Invalid value: "100m": must be less than or equal to cpu limit of 50m');
      const c = (await get(`/apis/apps/v1/namespaces/${ns}/deployments/ssa`)).spec.template.spec.containers[0];
      assert.deepEqual([c.image, c.env, c.resources], ['nginx:3', [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], { limits: { cpu: '200m', memory: '512Mi' }, requests: { cpu: '100m' } }]);
    });

    test('scale with --current-replicas and --resource-version preconditions, and a custom resource', async () => {
      assert.equal((await ok('-n', ns, 'scale', 'deploy', 'ssa', '--current-replicas=3', '--replicas=4')).stdout, 'deployment.apps/ssa scaled\n');
      const wrong = await kubectl('-n', ns, 'scale', 'deploy', 'ssa', '--current-replicas=3', '--replicas=5');
      assert.deepEqual([wrong.code, wrong.stderr.trim()], [1, 'error: Expected replicas to be 3, was 4']);
      const rv = await kubectl('-n', ns, 'scale', 'deploy', 'ssa', '--resource-version=1', '--replicas=5');
      assert.equal(rv.code, 1);
      assert.match(rv.stderr.trim(), /^error: Expected resource version to be 1, was \d+$/);
      const none = await kubectl('-n', ns, 'scale', 'cm', 'lab', '--replicas=1');
      assert.deepEqual([none.code, none.stderr.trim()], [1, 'Error from server (NotFound): the server could not find the requested resource']);
      await ok('apply', '-f', file('widget.yaml', `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: ${ns}}\nspec: {size: M, replicas: 1}\n`));
      assert.equal((await ok('-n', ns, 'scale', 'widget', 'w1', '--current-replicas=1', '--replicas=3')).stdout, 'widget.example.com/w1 scaled\n');
      assert.equal((await get(`/apis/example.com/v1/namespaces/${ns}/widgets/w1`)).spec.replicas, 3);
      const strategic = await kubectl('-n', ns, 'patch', 'widget', 'w1', '-p', '{"spec":{"size":"L"}}');
      assert.equal(strategic.code, 1);
      assert.equal(strategic.stderr.trim(), 'error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    });

    test('rollout pause, resume, restart and history of a Deployment; undo of a DaemonSet', async () => {
      assert.equal((await ok('-n', ns, 'rollout', 'pause', 'deploy/ssa')).stdout, 'deployment.apps/ssa paused\n');
      const paused = await kubectl('-n', ns, 'rollout', 'pause', 'deploy/ssa');
      assert.deepEqual([paused.code, paused.stderr.trim()], [1, 'error: deployments.apps "ssa" is already paused']);
      assert.equal((await ok('-n', ns, 'rollout', 'resume', 'deploy/ssa')).stdout, 'deployment.apps/ssa resumed\n');
      assert.equal((await ok('-n', ns, 'rollout', 'restart', 'deploy/ssa')).stdout, 'deployment.apps/ssa restarted\n');
      const template = (await get(`/apis/apps/v1/namespaces/${ns}/deployments/ssa`)).spec.template;
      assert.match(template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal((await ok('-n', ns, 'rollout', 'history', 'deploy/ssa')).stdout, 'deployment.apps/ssa \nNo rollout history found.\n');
      // No controller moves status: the status check times out, as against a kube-apiserver alone.
      const status = await kubectl('-n', ns, 'rollout', 'status', 'deploy/ssa', '--timeout=1s');
      assert.equal(status.code, 1);
      assert.match(status.stdout, /^Waiting for deployment spec update to be observed\.\.\.\n/);

      const ds = await post(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
        apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'roll' },
        spec: { selector: { matchLabels: { app: 'roll' } }, template: podTemplate('roll', 'nginx:2') },
      });
      for (const revision of [1, 2]) {
        await post(`/apis/apps/v1/namespaces/${ns}/controllerrevisions`, {
          apiVersion: 'apps/v1', kind: 'ControllerRevision',
          metadata: {
            name: `roll-r${revision}`, labels: { app: 'roll' },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'roll', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true }],
          },
          revision,
          data: { spec: { template: { $patch: 'replace', ...podTemplate('roll', `nginx:${revision}`) } } },
        });
      }
      assert.equal((await ok('-n', ns, 'rollout', 'history', 'ds/roll')).stdout, 'daemonset.apps/roll \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n');
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'ds/roll', '--to-revision=1')).stdout, 'daemonset.apps/roll rolled back\n');
      assert.equal((await get(`/apis/apps/v1/namespaces/${ns}/daemonsets/roll`)).spec.template.spec.containers[0].image, 'nginx:1');
    });

    test('rollout undo of a Deployment to a ReplicaSet\'s revision (the Deployment has annotations)', async () => {
      await ok('-n', ns, 'create', 'deployment', 'undo', '--image=nginx:1');
      // kubectl's undo replaces /metadata/annotations with a JSON patch: see below for a Deployment without any.
      await ok('-n', ns, 'annotate', 'deploy', 'undo', 'team=a');
      const deployment = await get(`/apis/apps/v1/namespaces/${ns}/deployments/undo`);
      for (const [hash, revision] of [['aaa', 1], ['bbb', 2]] as const) {
        await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
          apiVersion: 'apps/v1', kind: 'ReplicaSet',
          metadata: {
            name: `undo-${hash}`, labels: { app: 'undo', 'pod-template-hash': hash },
            annotations: { 'deployment.kubernetes.io/revision': String(revision), 'kubernetes.io/change-cause': `rev ${revision}` },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'undo', uid: deployment.metadata.uid, controller: true, blockOwnerDeletion: true }],
          },
          spec: {
            replicas: 0, selector: { matchLabels: { app: 'undo', 'pod-template-hash': hash } },
            template: { metadata: { labels: { app: 'undo', 'pod-template-hash': hash } }, spec: { containers: [{ name: 'nginx', image: `nginx:${revision}` }] } },
          },
        });
      }
      assert.equal((await ok('-n', ns, 'rollout', 'history', 'deploy/undo')).stdout, 'deployment.apps/undo \nREVISION  CHANGE-CAUSE\n1         rev 1\n2         rev 2\n\n');
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'deploy/undo', '--to-revision=1')).stdout, 'deployment.apps/undo skipped rollback (current template already matches revision 1)\n');
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'deploy/undo', '--to-revision=2')).stdout, 'deployment.apps/undo rolled back\n');
      const rolled = await get(`/apis/apps/v1/namespaces/${ns}/deployments/undo`);
      assert.deepEqual([rolled.spec.template.spec.containers[0].image, rolled.metadata.annotations], ['nginx:2', { 'kubernetes.io/change-cause': 'rev 2' }]);
    });

    test('create cronjob, then a job from it', async () => {
      assert.equal((await ok('-n', ns, 'create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--', 'echo', 'hi')).stdout, 'cronjob.batch/cj created\n');
      assert.equal((await ok('-n', ns, 'create', 'job', 'from-cj', '--from=cronjob/cj')).stdout, 'job.batch/from-cj created\n');
      const cronjob = await get(`/apis/batch/v1/namespaces/${ns}/cronjobs/cj`);
      const job = await get(`/apis/batch/v1/namespaces/${ns}/jobs/from-cj`);
      // kubectl 1.27 writes the owner reference without `controller` (kubectl's own choice).
      assert.deepEqual(job.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'cj', uid: cronjob.metadata.uid, ...(version === '1.27' ? {} : { controller: true }) }]);
      assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      assert.deepEqual(job.spec.template.spec.containers[0].command, ['echo', 'hi']);
      const again = await kubectl('-n', ns, 'create', 'job', 'from-cj', '--from=cronjob/cj');
      assert.deepEqual([again.code, again.stderr.trim()], [1, 'error: failed to create job: jobs.batch "from-cj" already exists']);
      const bad = await kubectl('-n', ns, 'create', 'cronjob', 'bad', '--image=busybox', '--schedule=TZ=UTC 0 * * * *');
      assert.deepEqual([bad.code, bad.stderr.trim()], [1, 'error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']);
      const none = await kubectl('-n', ns, 'create', 'job', 'j', '--from=cronjob/nope');
      assert.deepEqual([none.code, none.stderr.trim()], [1, 'Error from server (NotFound): cronjobs.batch "nope" not found']);
    });

    test('get with --sort-by, --field-selector, -o custom-columns, jsonpath, go-template, wide, --show-labels and -L', async () => {
      for (const [name, app] of [['zed', 'z'], ['amy', 'a']] as const) await post(`/api/v1/namespaces/${ns}/pods`, boundPod(name, node, { app }));
      await ok('-n', ns, 'wait', '--for=condition=Ready', 'pod/zed', 'pod/amy', '--timeout=10s');
      const selected = ['--field-selector', `spec.nodeName=${node},status.phase=Running,metadata.name!=botpod`, '-l', 'app in (a,z)'];
      const columns = await ok('-n', ns, 'get', 'pods', ...selected, '--sort-by=.metadata.name', '-o', 'custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,APP:.metadata.labels.app');
      assert.equal(columns.stdout, `NAME   NODE         APP\namy    ${node}   a\nzed    ${node}   z\n`);
      const jsonpath = await ok('-n', ns, 'get', 'pods', ...selected, '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase}{"\\n"}{end}');
      assert.equal(jsonpath.stdout, 'amy=Running\nzed=Running\n');
      const template = await ok('-n', ns, 'get', 'pods', ...selected, '--sort-by=.metadata.name', '-o', 'go-template={{range .items}}{{.metadata.name}} {{end}}');
      assert.equal(template.stdout, 'amy zed ');
      const wide = await ok('-n', ns, 'get', 'pods', ...selected, '-o', 'wide', '--show-labels', '-L', 'app');
      assert.match(wide.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\s+APP\s+LABELS\n/);
      assert.match(wide.stdout, new RegExp(`^amy\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+10\\.\\d+\\.\\d+\\.\\d+\\s+${node}\\s+<none>\\s+<none>\\s+a\\s+app=a\\n`, 'm'));
      const unsupported = await kubectl('-n', ns, 'get', 'pods', '--field-selector=foo=bar');
      assert.deepEqual([unsupported.code, unsupported.stderr.trim()], [1, 'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "foo=bar": field label not supported: foo']);
    });

    test('get --raw of /metrics and /openapi/v3', async () => {
      const metrics = await ok('get', '--raw', '/metrics');
      assert.match(metrics.stdout, /^# TYPE apiserver_request_total counter$/m);
      const index = JSON.parse((await ok('get', '--raw', '/openapi/v3')).stdout);
      assert.match(index.paths['apis/apps/v1'].serverRelativeURL, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
      const apps = JSON.parse((await ok('get', '--raw', index.paths['apis/apps/v1'].serverRelativeURL)).stdout);
      assert.ok(apps.components.schemas['io.k8s.api.apps.v1.Deployment']);
      const missing = await kubectl('get', '--raw', '/no/such/path');
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'Error from server (NotFound): the server could not find the requested resource']);
    });

    test('events and events --for', async () => {
      await post(`/api/v1/namespaces/${ns}/events`, {
        apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' },
        involvedObject: { kind: 'Deployment', name: 'ssa', namespace: ns, apiVersion: 'apps/v1' },
        reason: 'Testing', message: 'hello there', type: 'Warning', count: 1, source: { component: 'me' },
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      });
      const forDeploy = await ok('-n', ns, 'events', '--for', 'deployment/ssa');
      assert.match(forDeploy.stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\S+\s+Warning\s+Testing\s+Deployment\/ssa\s+hello there\n$/);
      const warnings = await ok('-n', ns, 'events', '--types=Warning');
      assert.match(warnings.stdout, /^\S+\s+Warning\s+Testing\s+Deployment\/ssa\s+hello there$/m);
      const selected = await ok('-n', ns, 'get', 'events', '--field-selector', 'type=Warning,reason=Testing,involvedObject.kind=Deployment');
      assert.match(selected.stdout, /^\S+\s+Warning\s+Testing\s+deployment\/ssa\s+hello there\n$/m);
    });

    test('explain a built-in field and a custom resource\'s field', async () => {
      const builtin = await ok('explain', 'deployment.spec.strategy');
      assert.match(builtin.stdout, /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: strategy <DeploymentStrategy>\n/);
      assert.match(builtin.stdout, /^ {2}rollingUpdate\t<RollingUpdateDeployment>$/m);
      const crd = await ok('explain', 'widgets.spec.size');
      // kubectl 1.28 and later print the schema's enum.
      const enumLines = version === '1.27' ? '' : 'ENUM:\n    S\n    M\n    L\n';
      assert.equal(crd.stdout, `GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n\nFIELD: size <string>\n${enumLines}\nDESCRIPTION:\n    How big the widget is.\n    \n\n`);
      const missing = await kubectl('explain', 'deployment.spec.nope');
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'error: field "nope" does not exist']);
    });

    test('api-resources --verbs=list --namespaced -o wide', async () => {
      const run = await ok('api-resources', '--verbs=list', '--namespaced', '-o', 'wide');
      const rows = run.stdout.trim().split('\n').map((line) => line.split(/\s+/).filter((cell) => cell !== '').join(' '));
      assert.equal(rows[0], 'NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES');
      assert.ok(rows.includes('configmaps cm v1 true ConfigMap create,delete,deletecollection,get,list,patch,update,watch'), rows.join('\n'));
      assert.ok(rows.includes('widgets wd example.com/v1 true Widget create,delete,deletecollection,get,list,patch,update,watch'), rows.join('\n'));
      assert.ok(rows.includes('pods po v1 true Pod create,delete,deletecollection,get,list,patch,update,watch all'), rows.join('\n'));
      assert.ok(!rows.some((row) => row.startsWith('nodes ') || row.startsWith('bindings ')), 'cluster-scoped and unlistable types are left out');
    });

    test('delete with --cascade=orphan, --cascade=foreground, --grace-period and --wait', async () => {
      const owned = async (rsName: string, podName: string) => {
        const rs = await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
          apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: rsName },
          spec: { replicas: 1, selector: { matchLabels: { app: rsName } }, template: podTemplate(rsName) },
        });
        await post(`/api/v1/namespaces/${ns}/pods`, boundPod(podName, node, { app: rsName }, { kind: 'ReplicaSet', name: rsName, uid: rs.metadata.uid }));
      };
      await owned('orphaner', 'orphan-pod');
      assert.equal((await ok('-n', ns, 'delete', 'rs', 'orphaner', '--cascade=orphan')).stdout, 'replicaset.apps "orphaner" deleted\n');
      const orphan = await get(`/api/v1/namespaces/${ns}/pods/orphan-pod`);
      assert.equal(orphan.metadata.ownerReferences, undefined);

      await owned('fg', 'fg-pod');
      await ok('-n', ns, 'wait', '--for=condition=Ready', 'pod/fg-pod', '--timeout=10s');
      assert.equal((await ok('-n', ns, 'delete', 'rs', 'fg', '--cascade=foreground', '--wait', '--timeout=20s')).stdout, 'replicaset.apps "fg" deleted\n');
      assert.ok(await absent(`/apis/apps/v1/namespaces/${ns}/replicasets/fg`));
      assert.ok(await absent(`/api/v1/namespaces/${ns}/pods/fg-pod`), 'the dependent went first');

      assert.equal((await ok('-n', ns, 'delete', 'pod', 'orphan-pod', '--grace-period=1', '--wait', '--timeout=20s')).stdout, 'pod "orphan-pod" deleted\n');
      assert.ok(await absent(`/api/v1/namespaces/${ns}/pods/orphan-pod`));
      const dry = await ok('-n', ns, 'delete', 'deploy', 'ssa', '--dry-run=server');
      assert.equal(dry.stdout, 'deployment.apps "ssa" deleted (server dry run)\n');
      const missing = await kubectl('-n', ns, 'delete', 'pod', 'nope');
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'Error from server (NotFound): pods "nope" not found']);
      assert.equal((await ok('-n', ns, 'delete', 'pod', 'nope', '--ignore-not-found')).stdout, '');
    });

    // Workflows that differed from kube-apiserver 1.36 until fixed.

    test('a pod with an ephemeral container (kubectl debug) can still be labelled and have its finalizers removed', async () => {
      await post(`/api/v1/namespaces/${ns}/pods`, { ...boundPod('dbg', node, { app: 'dbg' }), metadata: { name: 'dbg', labels: { app: 'dbg' }, finalizers: ['example.com/keep'] } });
      await ok('-n', ns, 'wait', '--for=condition=Ready', 'pod/dbg', '--timeout=10s');
      await ok('-n', ns, 'debug', 'dbg', '--image=busybox', '--container=dbgc', '--', 'sleep', '1000');
      assert.equal((await get(`/api/v1/namespaces/${ns}/pods/dbg`)).spec.ephemeralContainers[0].name, 'dbgc');
      assert.equal((await ok('-n', ns, 'label', 'pod', 'dbg', 'x=y')).stdout, 'pod/dbg labeled\n');
      assert.equal((await ok('-n', ns, 'set', 'image', 'pod/dbg', 'c=nginx:2')).stdout, 'pod/dbg image updated\n');
      await ok('-n', ns, 'delete', 'pod', 'dbg', '--wait=false');
      await ok('-n', ns, 'patch', 'pod', 'dbg', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
      await ok('-n', ns, 'wait', '--for=delete', 'pod/dbg', '--timeout=10s');
    });

    test('rollout undo of a Deployment that has no annotations', async () => {
      await ok('-n', ns, 'create', 'deployment', 'bare', '--image=nginx:1');
      const deployment = await get(`/apis/apps/v1/namespaces/${ns}/deployments/bare`);
      await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: {
          name: 'bare-old', labels: { app: 'bare', 'pod-template-hash': 'old' },
          annotations: { 'deployment.kubernetes.io/revision': '1' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'bare', uid: deployment.metadata.uid, controller: true, blockOwnerDeletion: true }],
        },
        spec: {
          replicas: 0, selector: { matchLabels: { app: 'bare', 'pod-template-hash': 'old' } },
          template: { metadata: { labels: { app: 'bare', 'pod-template-hash': 'old' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:0' }] } },
        },
      });
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'deploy/bare', '--to-revision=1')).stdout, 'deployment.apps/bare rolled back\n');
    });

    test('patch bodies of the wrong JSON shape, in the strict decoder\'s words (kubectl sends no fieldValidation: Warn)', async () => {
      const merge = await kubectl('-n', ns, 'patch', 'cm', 'lab', '--type=merge', '-p', '[]');
      assert.deepEqual([merge.code, merge.stderr.trim()], [1, 'Error from server (BadRequest): error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}']);
      const json = await kubectl('-n', ns, 'patch', 'cm', 'lab', '--type=json', '-p', '{"op":"add"}');
      assert.deepEqual([json.code, json.stderr.trim()], [1, 'Error from server (BadRequest): error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp']);
    });
  });
});
