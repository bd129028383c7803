// kubectl 1.32 and 1.33 `create <type>` and `run`: since 1.32 kubectl sends built-in types
// as Protobuf, so each case checks the body decodes into the object kubectl meant, by
// reading it back with `kubectl get -o json`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';
import { kubectlAt } from '../helpers/kubectl.ts';

const kubectls = [
  { version: '1.32', bin: '/usr/bin/kubectl' },
  { version: '1.33', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.33' },
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Case {
  name: string;
  /** kubectl arguments creating the object; `NS` is the test's namespace, `V` the kubectl version's tag. */
  create: string[];
  /** What `kubectl get` names it by. */
  get: string[];
  check(obj: Json, ns: string, v: string): void;
  todo?: string;
}

const cases: Case[] = [
  {
    name: 'create job with a command',
    create: ['create', 'job', 'hello', '--image=busybox', '--', 'echo', 'hi'],
    get: ['job', 'hello'],
    check(job) {
      assert.equal(job.kind, 'Job');
      const c = job.spec.template.spec.containers[0];
      assert.deepEqual([c.name, c.image, c.command], ['hello', 'busybox', ['echo', 'hi']]);
      assert.equal(job.spec.template.spec.restartPolicy, 'Never');
    },
  },
  {
    name: 'create cronjob with a schedule',
    create: ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date'],
    get: ['cronjob', 'tick'],
    check(cj) {
      assert.equal(cj.spec.schedule, '*/5 * * * *');
      const pod = cj.spec.jobTemplate.spec.template.spec;
      assert.deepEqual([pod.containers[0].image, pod.containers[0].command, pod.restartPolicy], ['busybox', ['date'], 'OnFailure']);
      assert.equal(cj.spec.jobTemplate.metadata.name, 'tick');
    },
  },
  {
    name: 'create ingress with a rule and a default backend',
    create: ['create', 'ingress', 'web', '--class=nginx', '--rule=example.com/app*=web:8080,tls=web-tls', '--default-backend=fallback:80'],
    get: ['ingress', 'web'],
    check(ing) {
      assert.equal(ing.spec.ingressClassName, 'nginx');
      assert.deepEqual(ing.spec.rules, [{
        host: 'example.com',
        http: { paths: [{ path: '/app', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 8080 } } } }] },
      }]);
      assert.deepEqual(ing.spec.tls, [{ hosts: ['example.com'], secretName: 'web-tls' }]);
      assert.deepEqual(ing.spec.defaultBackend, { service: { name: 'fallback', port: { number: 80 } } });
    },
  },
  {
    name: 'create priorityclass',
    create: ['create', 'priorityclass', 'high-V', '--value=1000', '--description=important', '--preemption-policy=Never'],
    get: ['priorityclass', 'high-V'],
    check(pc) {
      assert.deepEqual([pc.value, pc.description, pc.preemptionPolicy], [1000, 'important', 'Never']);
      assert.equal(pc.globalDefault, undefined);
    },
  },
  {
    // BestEffort would refuse requests.cpu (it limits only pods), as upstream's validation does.
    name: 'create quota with hard limits and scopes',
    create: ['create', 'quota', 'limits', '--hard=pods=10,requests.cpu=2', '--scopes=NotBestEffort'],
    get: ['quota', 'limits'],
    check(q) {
      assert.deepEqual(q.spec.hard, { pods: '10', 'requests.cpu': '2' });
      assert.deepEqual(q.spec.scopes, ['NotBestEffort']);
    },
  },
  {
    name: 'create role with rules',
    create: ['create', 'role', 'reader', '--verb=get,list', '--resource=pods,deployments.apps', '--resource-name=web'],
    get: ['role', 'reader'],
    check(role) {
      assert.deepEqual(role.rules, [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] },
        { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
      ]);
    },
  },
  {
    name: 'create rolebinding to a role, a user and a service account',
    create: ['create', 'rolebinding', 'read', '--role=reader', '--user=alice', '--serviceaccount=NS:default'],
    get: ['rolebinding', 'read'],
    check(rb, ns) {
      assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
      assert.deepEqual(rb.subjects, [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'ServiceAccount', name: 'default', namespace: ns },
      ]);
    },
  },
  {
    name: 'create clusterrole with resource and non-resource rules',
    create: ['create', 'clusterrole', 'watcher-V', '--verb=get', '--resource=nodes', '--non-resource-url=/healthz'],
    get: ['clusterrole', 'watcher-V'],
    check(cr) {
      assert.deepEqual(cr.rules, [
        { verbs: ['get'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ]);
    },
  },
  {
    name: 'create clusterrolebinding to a group',
    create: ['create', 'clusterrolebinding', 'watchers-V', '--clusterrole=watcher-V', '--group=devs'],
    get: ['clusterrolebinding', 'watchers-V'],
    check(crb, _ns, v) {
      assert.deepEqual(crb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `watcher-${v}` });
      assert.deepEqual(crb.subjects, [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }]);
    },
  },
  {
    name: 'create poddisruptionbudget',
    create: ['create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=50%'],
    get: ['pdb', 'web'],
    check(pdb) {
      assert.deepEqual(pdb.spec.selector, { matchLabels: { app: 'web' } });
      assert.equal(pdb.spec.minAvailable, '50%');
    },
  },
  {
    name: 'create service clusterip',
    create: ['create', 'service', 'clusterip', 'web', '--tcp=80:8080'],
    get: ['service', 'web'],
    check(svc) {
      assert.equal(svc.spec.type, 'ClusterIP');
      assert.deepEqual(svc.spec.selector, { app: 'web' });
      assert.deepEqual(svc.spec.ports, [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
      assert.match(svc.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
    },
  },
  {
    name: 'create service nodeport',
    create: ['create', 'service', 'nodeport', 'edge', '--tcp=443:8443'],
    get: ['service', 'edge'],
    check(svc) {
      assert.equal(svc.spec.type, 'NodePort');
      const [port] = svc.spec.ports;
      assert.deepEqual([port.port, port.targetPort, port.protocol], [443, 8443, 'TCP']);
      assert.ok(port.nodePort >= 30000 && port.nodePort <= 32767, `nodePort ${port.nodePort}`);
      assert.equal(svc.spec.externalTrafficPolicy, 'Cluster');
    },
  },
  {
    name: 'run a pod with labels, env and a port',
    create: ['run', 'shell', '--image=busybox', '--labels=app=shell', '--env=MODE=test', '--port=8080', '--restart=Never', '--', 'sleep', '3600'],
    get: ['pod', 'shell'],
    check(pod) {
      assert.deepEqual(pod.metadata.labels, { app: 'shell' });
      const c = pod.spec.containers[0];
      assert.deepEqual([c.name, c.image, c.args], ['shell', 'busybox', ['sleep', '3600']]);
      assert.deepEqual(c.env, [{ name: 'MODE', value: 'test' }]);
      assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP' }]);
      assert.equal(pod.spec.restartPolicy, 'Never');
    },
  },
];

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

for (const { version, bin } of kubectls) {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version} create`, { skip }, () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
    const v = version.replace('.', '-');
    const kubectl = (...args: string[]) => kubectlAt(bin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir], ...args);
    after(() => rmSync(cacheDir, { recursive: true, force: true }));

    for (const c of cases) {
      test(c.name, { todo: c.todo }, async () => {
        const ns = await server.newNamespace(`create-${v}`);
        const fill = (args: string[]): string[] => args.map((a) => a.replaceAll('NS', ns).replaceAll('-V', `-${v}`));
        await kubectl('-n', ns, ...fill(c.create));
        c.check(JSON.parse(await kubectl('-n', ns, 'get', ...fill(c.get), '-o', 'json')) as Json, ns, v);
      });
    }
  });
}
