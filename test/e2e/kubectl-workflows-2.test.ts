// More kubectl workflows, with kubectl 1.29 and 1.31 against one server: the move from
// client-side to server-side apply (kubectl's managed-fields upgrade) and back, the
// last-applied commands, apply with ApplySets and kustomize, secret and ConfigMap
// generators, expose, autoscale, the set commands, taints and node labels, rollouts of
// StatefulSets and DaemonSets, status and scale subresources, foreground deletion held by a
// dependent, chunked and watching gets, auth reconcile, bound tokens and wait. Each asserts
// what kubectl prints and what the server stores against kube-apiserver 1.36 (no workload
// controllers run, so rollouts and status waits time out as they would against a
// kube-apiserver alone).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectls = [
  { version: '1.29', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.29' },
  { version: '1.31', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.31' },
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let server: TestServer;
let kubeconfig: string;
before(async () => {
  // One simulated node per kubectl version, so that one version's taints leave the other's alone.
  server = await startServer({ simulatedNodes: kubectls.length, simulatedMaxGracePeriodMs: 500 });
  kubeconfig = path.join(server.dataDir, 'kubeconfig');
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

function managers(obj: Json): string[] {
  return (obj.metadata.managedFields ?? []).map((m: Json) => `${m.manager} ${m.operation}`).sort();
}

function fieldsOf(obj: Json, manager: string): Json | undefined {
  return (obj.metadata.managedFields ?? []).find((m: Json) => m.manager === manager)?.fieldsV1;
}

function jwtPayload(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/** A self-signed P-256 certificate for web.local and its key, as `openssl req -x509 -newkey ec` writes them. */
const tlsCert = `-----BEGIN CERTIFICATE-----
MIIBfTCCASOgAwIBAgIUYA9qVn4Lgc6XuMKfKAwQ2m8aweAwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJd2ViLmxvY2FsMB4XDTI2MTIwMzIyMjA0MloXDTM2MTEzMDIy
MjA0MlowFDESMBAGA1UEAwwJd2ViLmxvY2FsMFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEq26KJrzhY+20VXNj2K5iPhFPLXAH9/cAgM/cie7vGpHi8gJGurOJ8Hmi
6ELaHl1uXZGtZMRCJTtm3Y0cKWktkaNTMFEwHQYDVR0OBBYEFP0AZ0XXSSq135Z4
lgmdkxJEshsGMB8GA1UdIwQYMBaAFP0AZ0XXSSq135Z4lgmdkxJEshsGMA8GA1Ud
EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgI8NX2R+WD6/7OPxHx4yvXa1i
A5l+C0Xxv9mAS5YTotMCIQDlBoaFlqkRmf0BfhJDdC3Ac57n2YfrUDdmhWGP+TaH
jA==
-----END CERTIFICATE-----
`;
const tlsKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQRkgPUBzSkKfjkjw
g8KWqqMH0E/G/PkwAtQSq45m2DyhRANCAASrboomvOFj7bRVc2PYrmI+EU8tcAf3
9wCAz9yJ7u8akeLyAka6s4nweaLoQtoeXW5dka1kxEIlO2bdjRwpaS2R
-----END PRIVATE KEY-----
`;

kubectls.forEach(({ version, bin }, index) => {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version} workflows (2)`, { skip }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-workflows-2-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const node = `sim-node-${index}`;
    const tag = version.replace('.', '-');
    const kubectl = (args: string[], env: Record<string, string> = {}, timeout = 30_000) => new Promise<Run>((resolve) => {
      execFile(bin, ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args], { timeout, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        // Both kubectls are more than one minor version from 1.36.
        resolve({ code, stdout, stderr: stderr.split('\n').filter((line) => !line.includes('exceeds the supported minor version skew')).join('\n') });
      });
    });
    const run = (...args: string[]) => kubectl(args);
    const ok = async (...args: string[]) => {
      const result = await kubectl(args);
      assert.equal(result.code, 0, `kubectl ${args.join(' ')}: ${result.stderr}`);
      return result;
    };
    const file = (name: string, text: string) => {
      const p = path.join(dir, name);
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, text);
      return p;
    };
    let ns = '';
    before(async () => {
      ns = await server.newNamespace(`wf2-${tag}`);
    });
    const api = () => `/api/v1/namespaces/${ns}`;
    const apps = () => `/apis/apps/v1/namespaces/${ns}`;

    test('client-side apply, then server-side apply: kubectl upgrades the managed fields, and a field left out goes', async () => {
      const cm = (name: string, data: string, labels: string) => file(`${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mig, namespace: ${ns}, labels: {${labels}}}\ndata: {${data}}\n`);
      assert.equal((await ok('apply', '-f', cm('csa', 'x: "1", z: "2"', 'a: "1", b: "2"'))).stdout, 'configmap/mig created\n');
      const before = await get(`${api()}/configmaps/mig`);
      assert.deepEqual(managers(before), ['kubectl-client-side-apply Update']);
      assert.deepEqual(fieldsOf(before, 'kubectl-client-side-apply'), {
        'f:data': { '.': {}, 'f:x': {}, 'f:z': {} },
        'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} }, 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } },
      });

      assert.equal((await ok('apply', '--server-side', '-f', cm('ssa', 'x: "1"', 'a: "1"'))).stdout, 'configmap/mig serverside-applied\n');
      const upgraded = await get(`${api()}/configmaps/mig`);
      // kubectl merged its client-side manager into its Apply one and applied again: what the
      // manifest no longer holds had no other owner, so it is gone.
      assert.deepEqual(upgraded.data, { x: '1' });
      assert.deepEqual(upgraded.metadata.labels, { a: '1' });
      assert.deepEqual(managers(upgraded), ['kubectl Apply', 'kubectl-last-applied Apply']);
      assert.deepEqual(fieldsOf(upgraded, 'kubectl'), { 'f:data': { 'f:x': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } });
      assert.deepEqual(fieldsOf(upgraded, 'kubectl-last-applied'), { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } });
      assert.deepEqual(JSON.parse(upgraded.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data, { x: '1' });

      // A later client-side apply changes x: the update takes it, and the annotation, from the appliers.
      assert.equal((await ok('apply', '-f', cm('csa2', 'x: "9"', 'a: "1"'))).stdout, 'configmap/mig configured\n');
      const back = await get(`${api()}/configmaps/mig`);
      assert.deepEqual(back.data, { x: '9' });
      assert.deepEqual(managers(back), ['kubectl Apply', 'kubectl-client-side-apply Update']);
      assert.deepEqual(fieldsOf(back, 'kubectl'), { 'f:metadata': { 'f:labels': { 'f:a': {} } } });
      assert.deepEqual(fieldsOf(back, 'kubectl-client-side-apply'), { 'f:data': { 'f:x': {} }, 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } });
      assert.equal((await ok('apply', '-f', cm('csa2', 'x: "9"', 'a: "1"'))).stdout, 'configmap/mig unchanged\n');
    });

    test('server-side apply of a Deployment after a client-side one keeps list items keyed as the schema says', async () => {
      const manifest = (second: string) => file('pd.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: pd, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: pd}}
  template:
    metadata: {labels: {app: pd}}
    spec:
      containers:
      - name: a
        image: nginx
        ports: [{containerPort: 53, protocol: UDP}, {containerPort: 53}]
      - {name: ${second}, image: nginx}
`);
      await ok('apply', '-f', manifest('b'));
      await ok('apply', '--server-side', '-f', manifest('b'));
      const applied = await get(`${apps()}/deployments/pd`);
      const containers = fieldsOf(applied, 'kubectl')!['f:spec']['f:template']['f:spec']['f:containers'];
      assert.deepEqual(Object.keys(containers).sort(), ['k:{"name":"a"}', 'k:{"name":"b"}']);
      // The port without a protocol is keyed by its default.
      assert.deepEqual(Object.keys(containers['k:{"name":"a"}']['f:ports']).sort(), ['k:{"containerPort":53,"protocol":"TCP"}', 'k:{"containerPort":53,"protocol":"UDP"}']);
      // A client-side apply that replaces container b by c: the removed item leaves every manager.
      assert.equal((await ok('apply', '-f', manifest('c'))).stdout, 'deployment.apps/pd configured\n');
      const replaced = await get(`${apps()}/deployments/pd`);
      assert.deepEqual(replaced.spec.template.spec.containers.map((c: Json) => c.name), ['a', 'c']);
      assert.deepEqual(Object.keys(fieldsOf(replaced, 'kubectl')!['f:spec']['f:template']['f:spec']['f:containers']), ['k:{"name":"a"}']);
      assert.deepEqual(Object.keys(fieldsOf(replaced, 'kubectl-client-side-apply')!['f:spec']['f:template']['f:spec']['f:containers']), ['k:{"name":"c"}']);
    });

    test('apply view-last-applied, set-last-applied and edit-last-applied', async () => {
      await ok('-n', ns, 'create', 'configmap', 'la', '--from-literal=q=0');
      // kubectl create --save-config is not used: no annotation, and no managed fields are started by later updates.
      const none = await run('-n', ns, 'apply', 'view-last-applied', 'configmap/la');
      assert.deepEqual([none.code, none.stdout], [0, '']);
      const manifest = (q: string) => file('la.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: la, namespace: ${ns}}\ndata: {q: "${q}"}\n`);
      const missing = await run('apply', 'set-last-applied', '-f', manifest('1'));
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'error: no last-applied-configuration annotation found on resource: la, to create the annotation, run the command with --create-annotation']);
      assert.equal((await ok('apply', 'set-last-applied', '-f', manifest('1'), '--create-annotation')).stdout, 'configmap/la configured\n');
      const viewed = await ok('-n', ns, 'apply', 'view-last-applied', 'configmap/la', '-o', 'json');
      assert.deepEqual(JSON.parse(viewed.stdout), { apiVersion: 'v1', data: { q: '1' }, kind: 'ConfigMap', metadata: { name: 'la', namespace: ns } });
      const editor = file('editor.sh', '#!/bin/sh\nsed -i \'s/q: "1"/q: "2"/\' "$1"\n');
      chmodSync(editor, 0o755);
      const edited = await kubectl(['-n', ns, 'apply', 'edit-last-applied', 'configmap/la'], { EDITOR: editor, KUBE_EDITOR: editor });
      assert.deepEqual([edited.code, edited.stdout], [0, 'configmap/la edited\n']);
      const live = await get(`${api()}/configmaps/la`);
      assert.deepEqual(JSON.parse(live.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data, { q: '2' });
      assert.deepEqual(live.data, { q: '0' }, 'only the annotation changes');
      // set-last-applied names no field manager (the server takes the user agent's), edit-last-applied names kubectl-client-side-apply.
      assert.deepEqual(managers(live), ['kubectl-client-side-apply Update', 'kubectl-create Update', `kubectl.${version} Update`]);
    });

    test('apply --prune --applyset with a Secret parent, then pruning and a ConfigMap parent', async () => {
      const env = { KUBECTL_APPLYSET: 'true' };
      const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\n`;
      const deployment = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: as-d, namespace: ${ns}}\nspec:\n  selector: {matchLabels: {app: asd}}\n  template:\n    metadata: {labels: {app: asd}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;
      const all = file('as-all.yaml', `${cm('as-a')}---\n${cm('as-b')}---\n${deployment}`);
      const first = await kubectl(['apply', '-n', ns, '--prune', '--applyset=set1', '-f', all], env);
      assert.deepEqual([first.code, first.stdout], [0, 'configmap/as-a created\nconfigmap/as-b created\ndeployment.apps/as-d created\n'], first.stderr);
      const parent = await get(`${api()}/secrets/set1`);
      const id = parent.metadata.labels['applyset.kubernetes.io/id'];
      assert.match(id, /^applyset-[A-Za-z0-9_-]{43}-v1$/);
      assert.deepEqual(parent.metadata.annotations, {
        'applyset.kubernetes.io/additional-namespaces': '',
        'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap,Deployment.apps',
        'applyset.kubernetes.io/tooling': `kubectl/v${version}.${parent.metadata.annotations['applyset.kubernetes.io/tooling'].split('.').at(-1)}`,
      });
      assert.equal(parent.type, 'Opaque');
      assert.deepEqual(managers(parent), ['kubectl-applyset Apply']);
      assert.equal((await get(`${api()}/configmaps/as-b`)).metadata.labels['applyset.kubernetes.io/part-of'], id);

      const one = file('as-one.yaml', cm('as-a'));
      // kubectl prunes one kind after the other in an order of its own: compare sorted lines.
      const lines = (out: string) => out.trim().split('\n').sort();
      const dry = await kubectl(['apply', '-n', ns, '--prune', '--applyset=set1', '-f', one, '--dry-run=server'], env);
      assert.deepEqual([dry.code, lines(dry.stdout)], [0, ['configmap/as-a unchanged (server dry run)', 'configmap/as-b pruned (server dry run)', 'deployment.apps/as-d pruned (server dry run)']], dry.stderr);
      assert.ok(!(await absent(`${api()}/configmaps/as-b`)));
      const pruned = await kubectl(['apply', '-n', ns, '--prune', '--applyset=set1', '-f', one], env);
      assert.deepEqual([pruned.code, lines(pruned.stdout)], [0, ['configmap/as-a unchanged', 'configmap/as-b pruned', 'deployment.apps/as-d pruned']], pruned.stderr);
      assert.ok(await absent(`${api()}/configmaps/as-b`));
      assert.ok(await absent(`${apps()}/deployments/as-d`));
      assert.equal((await get(`${api()}/secrets/set1`)).metadata.annotations['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');

      const ssa = await kubectl(['apply', '-n', ns, '--server-side', '--prune', '--applyset=configmaps/set2', '-f', file('as-ssa.yaml', cm('as-c'))], env);
      assert.deepEqual([ssa.code, ssa.stdout], [0, 'configmap/as-c serverside-applied\n'], ssa.stderr);
      const cmParent = await get(`${api()}/configmaps/set2`);
      assert.match(cmParent.metadata.labels['applyset.kubernetes.io/id'], /^applyset-[A-Za-z0-9_-]{43}-v1$/);
      assert.equal(cmParent.metadata.annotations['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');
      const member = await get(`${api()}/configmaps/as-c`);
      assert.deepEqual(managers(member), ['kubectl Apply']);
      assert.deepEqual(fieldsOf(member, 'kubectl'), { 'f:metadata': { 'f:labels': { 'f:applyset.kubernetes.io/part-of': {} } } });
    });

    test('apply -k and diff -k of a small kustomization', async () => {
      const kustomization = path.dirname(file('kz/kustomization.yaml', `namespace: ${ns}\nnamePrefix: kz-\nlabels:\n- pairs: {team: blue}\n  includeSelectors: true\nconfigMapGenerator:\n- name: gen\n  literals: [a=1, b=2]\nresources: [svc.yaml]\n`));
      file('kz/svc.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n');
      const applied = await ok('apply', '-k', kustomization);
      const [cmLine, svcLine] = applied.stdout.trim().split('\n');
      assert.match(cmLine!, /^configmap\/kz-gen-[a-z0-9]{10} created$/);
      assert.equal(svcLine, 'service/kz-web created');
      const svc = await get(`${api()}/services/kz-web`);
      assert.deepEqual([svc.spec.selector, svc.metadata.labels, svc.spec.ports], [{ app: 'web', team: 'blue' }, { team: 'blue' }, [{ port: 80, protocol: 'TCP', targetPort: 80 }]]);
      assert.equal((await ok('-n', ns, 'get', 'configmaps', '-l', 'team=blue', '-o', 'name')).stdout, `${cmLine!.replace(' created', '')}\n`);
      assert.equal((await ok('apply', '-k', kustomization)).stdout, `${cmLine!.replace('created', 'unchanged')}\nservice/kz-web unchanged\n`);
      assert.equal((await ok('diff', '-k', kustomization)).stdout, '');
    });

    test('create secret tls, docker-registry and generic --from-file; configmap --from-env-file', async () => {
      const cert = file('tls.crt', tlsCert);
      const key = file('tls.key', tlsKey);
      assert.equal((await ok('-n', ns, 'create', 'secret', 'tls', 'tls1', `--cert=${cert}`, `--key=${key}`)).stdout, 'secret/tls1 created\n');
      assert.equal((await ok('-n', ns, 'create', 'secret', 'docker-registry', 'reg', '--docker-server=r.io', '--docker-username=u', '--docker-password=p', '--docker-email=e@x')).stdout, 'secret/reg created\n');
      const payload = file('f1.txt', 'hello');
      assert.equal((await ok('-n', ns, 'create', 'secret', 'generic', 'gen', `--from-file=${payload}`, `--from-file=k2=${payload}`, '--type=example.com/x')).stdout, 'secret/gen created\n');
      assert.equal((await ok('-n', ns, 'create', 'configmap', 'envcm', `--from-env-file=${file('env.txt', 'A=1\n# a comment\nB=two words\n')}`)).stdout, 'configmap/envcm created\n');
      const tls = await get(`${api()}/secrets/tls1`);
      assert.deepEqual([tls.type, Buffer.from(tls.data['tls.crt'], 'base64').toString()], ['kubernetes.io/tls', tlsCert]);
      const reg = await get(`${api()}/secrets/reg`);
      assert.equal(reg.type, 'kubernetes.io/dockerconfigjson');
      assert.deepEqual(JSON.parse(Buffer.from(reg.data['.dockerconfigjson'], 'base64').toString()), { auths: { 'r.io': { username: 'u', password: 'p', email: 'e@x', auth: 'dTpw' } } });
      const gen = await get(`${api()}/secrets/gen`);
      assert.deepEqual([gen.type, gen.data], ['example.com/x', { 'f1.txt': 'aGVsbG8=', k2: 'aGVsbG8=' }]);
      assert.deepEqual((await get(`${api()}/configmaps/envcm`)).data, { A: '1', B: 'two words' });
      const table = await ok('-n', ns, 'get', 'secrets', 'tls1', 'reg', 'gen');
      assert.match(table.stdout, /^NAME\s+TYPE\s+DATA\s+AGE\ntls1\s+kubernetes\.io\/tls\s+2\s+\S+\nreg\s+kubernetes\.io\/dockerconfigjson\s+1\s+\S+\ngen\s+example\.com\/x\s+2\s+\S+\n$/);
      const noKeys = await run('-n', ns, 'create', 'secret', 'generic', 'badtls', '--type=kubernetes.io/tls', '--from-literal=a=b');
      assert.deepEqual([noKeys.code, noKeys.stderr.trim()], [1, 'error: failed to create secret Secret "badtls" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]']);
    });

    test('expose a Deployment, create NodePort services, autoscale', async () => {
      await ok('-n', ns, 'create', 'deployment', 'ex', '--image=nginx', '--port=8080', '--replicas=2');
      assert.equal((await ok('-n', ns, 'expose', 'deployment', 'ex', '--port=80', '--target-port=8080', '--name=ex-svc')).stdout, 'service/ex-svc exposed\n');
      const svc = await get(`${api()}/services/ex-svc`);
      assert.deepEqual([svc.spec.selector, svc.spec.ports, svc.spec.type, svc.spec.sessionAffinity, svc.spec.ipFamilyPolicy], [{ app: 'ex' }, [{ port: 80, protocol: 'TCP', targetPort: 8080 }], 'ClusterIP', 'None', 'SingleStack']);
      assert.match(svc.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
      const port = 30100 + index;
      assert.equal((await ok('-n', ns, 'create', 'service', 'nodeport', 'np1', '--tcp=80:8080', `--node-port=${port}`)).stdout, 'service/np1 created\n');
      const taken = await run('-n', ns, 'create', 'service', 'nodeport', 'np2', '--tcp=80:8080', `--node-port=${port}`);
      assert.deepEqual([taken.code, taken.stderr.trim()], [1, `error: failed to create NodePort service: Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is already allocated`]);
      const range = await run('-n', ns, 'create', 'service', 'nodeport', 'np3', '--tcp=80:8080', '--node-port=20');
      assert.deepEqual([range.code, range.stderr.trim()], [1, 'error: failed to create NodePort service: Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 20: provided port is not in the valid range. The range of valid ports is 30000-32767']);
      assert.match((await ok('-n', ns, 'get', 'service', 'np1')).stdout, new RegExp(`^np1\\s+NodePort\\s+10\\.96\\.\\d+\\.\\d+\\s+<none>\\s+80:${port}/TCP\\s+\\S+\\n`, 'm'));
      assert.equal((await ok('-n', ns, 'autoscale', 'deployment', 'ex', '--min=2', '--max=5', '--cpu-percent=60')).stdout, 'horizontalpodautoscaler.autoscaling/ex autoscaled\n');
      const hpa = await get(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/ex`);
      assert.deepEqual(hpa.spec, { maxReplicas: 5, minReplicas: 2, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'ex' }, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] });
      assert.match((await ok('-n', ns, 'get', 'hpa', 'ex')).stdout, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nex\s+Deployment\/ex\s+cpu: <unknown>\/60%\s+2\s+5\s+0\s+\S+\n$/);
    });

    test('set serviceaccount, subject, env --from, selector, and image on a CronJob', async () => {
      await ok('-n', ns, 'create', 'serviceaccount', 'bot');
      assert.equal((await ok('-n', ns, 'set', 'serviceaccount', 'deployment', 'ex', 'bot')).stdout, 'deployment.apps/ex serviceaccount updated\n');
      assert.equal((await get(`${apps()}/deployments/ex`)).spec.template.spec.serviceAccountName, 'bot');
      await ok('-n', ns, 'create', 'rolebinding', 'rb', '--clusterrole=view', '--user=u1');
      assert.equal((await ok('-n', ns, 'set', 'subject', 'rolebinding', 'rb', `--serviceaccount=${ns}:bot`, '--group=g1')).stdout, 'rolebinding.rbac.authorization.k8s.io/rb subjects updated\n');
      assert.deepEqual((await get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/rb`)).subjects, [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'u1' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'g1' },
        { kind: 'ServiceAccount', name: 'bot', namespace: ns },
      ]);
      assert.match((await ok('-n', ns, 'get', 'rolebinding', 'rb', '-o', 'wide')).stdout, new RegExp(`^rb\\s+ClusterRole/view\\s+\\S+\\s+u1\\s+g1\\s+${ns}/bot\\n`, 'm'));
      assert.equal((await ok('-n', ns, 'set', 'env', 'deployment/ex', '--from=configmap/envcm', '--prefix=P_')).stdout, 'deployment.apps/ex env updated\n');
      const env = await ok('-n', ns, 'set', 'env', 'deployment/ex', '--from=secret/gen', '--keys=k2');
      assert.deepEqual([env.stdout, env.stderr.trim()], ['deployment.apps/ex env updated\n', 'Warning: key k2 transferred to K2']);
      // kubectl adds a ConfigMap's keys in Go's map order, which is random: P_A and P_B either way round.
      const listed = (await ok('-n', ns, 'set', 'env', 'deployment/ex', '--list', '--resolve')).stdout.split('\n');
      assert.deepEqual([listed[0], ...listed.slice(1, 3).sort(), ...listed.slice(3)], ['# Deployment ex, container nginx', 'P_A=1', 'P_B=two words', 'K2=hello', '']);
      const stored = (await get(`${apps()}/deployments/ex`)).spec.template.spec.containers[0].env as { name: string }[];
      assert.deepEqual([...stored.slice(0, 2).sort((a, b) => a.name.localeCompare(b.name)), ...stored.slice(2)], [
        { name: 'P_A', valueFrom: { configMapKeyRef: { key: 'A', name: 'envcm' } } },
        { name: 'P_B', valueFrom: { configMapKeyRef: { key: 'B', name: 'envcm' } } },
        { name: 'K2', valueFrom: { secretKeyRef: { key: 'k2', name: 'gen' } } },
      ]);
      assert.equal((await ok('-n', ns, 'set', 'selector', 'service', 'ex-svc', 'app=other')).stdout, 'service/ex-svc selector updated\n');
      assert.deepEqual((await get(`${api()}/services/ex-svc`)).spec.selector, { app: 'other' });
      await ok('-n', ns, 'create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *');
      assert.equal((await ok('-n', ns, 'set', 'image', 'cronjob/cj', 'cj=busybox:2')).stdout, 'cronjob.batch/cj image updated\n');
      assert.match((await ok('-n', ns, 'get', 'cronjob', 'cj', '-o', 'wide')).stdout, /^cj\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+\s+cj\s+busybox:2\s+<none>\n/m);
    });

    test('taint and label a node', async () => {
      assert.equal((await ok('taint', 'nodes', node, 'k=v:NoSchedule')).stdout, `node/${node} tainted\n`);
      const again = await run('taint', 'nodes', node, 'k=v:NoSchedule');
      assert.deepEqual([again.code, again.stderr.trim()], [1, `error: node ${node} already has k taint(s) with same effect(s) and --overwrite is false`]);
      assert.equal((await ok('taint', 'nodes', node, 'k=w:NoSchedule', '--overwrite')).stdout, `node/${node} modified\n`);
      assert.deepEqual((await get(`/api/v1/nodes/${node}`)).spec.taints, [{ key: 'k', value: 'w', effect: 'NoSchedule' }]);
      assert.equal((await ok('taint', 'nodes', node, 'k:NoSchedule-')).stdout, `node/${node} untainted\n`);
      assert.equal((await get(`/api/v1/nodes/${node}`)).spec.taints, undefined);
      const gone = await run('taint', 'nodes', node, 'k-');
      assert.deepEqual([gone.code, gone.stderr.trim()], [1, 'error: taint "k" not found']);
      const bad = await run('taint', 'nodes', node, 'k=v:Sometimes');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /invalid taint effect: Sometimes, unsupported taint effect/);
      assert.equal((await ok('label', 'nodes', node, `zone=z${tag}`)).stdout, `node/${node} labeled\n`);
      assert.match((await ok('get', 'nodes', '-L', 'zone', '-l', `zone=z${tag}`)).stdout, new RegExp(`^NAME\\s+STATUS\\s+ROLES\\s+AGE\\s+VERSION\\s+ZONE\\n${node}\\s+Ready\\s+<none>\\s+\\S+\\s+v1\\.36\\.2\\s+z${tag}\\n$`));
      assert.equal((await ok('label', 'nodes', node, 'zone-')).stdout, `node/${node} unlabeled\n`);
    });

    test('rollout of a StatefulSet and a DaemonSet: pause refused, restart, history from ControllerRevisions, undo, status', async () => {
      await ok('apply', '-f', file('sts.yaml', `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ${ns}}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: "nginx:1"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: "nginx:1"}]}
`));
      assert.deepEqual((await get(`${apps()}/statefulsets/db`)).status, { availableReplicas: 0, replicas: 0 });
      assert.deepEqual((await get(`${apps()}/daemonsets/agent`)).status, { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 });
      for (const [short, resource, kind, words] of [['sts/db', 'statefulsets', 'statefulset', 'statefulset'], ['ds/agent', 'daemonsets', 'daemonset', 'daemon set']] as const) {
        const name = short.split('/')[1]!;
        const pause = await run('-n', ns, 'rollout', 'pause', short);
        assert.deepEqual([pause.code, pause.stderr.trim()], [1, `error: ${resource}.apps "${name}" pausing is not supported`]);
        const resume = await run('-n', ns, 'rollout', 'resume', short);
        assert.deepEqual([resume.code, resume.stderr.trim()], [1, `error: ${resource}.apps "${name}" resuming is not supported`]);
        assert.equal((await ok('-n', ns, 'rollout', 'restart', short)).stdout, `${kind}.apps/${name} restarted\n`);
        const restarted = await get(`${apps()}/${resource}/${name}`);
        assert.match(restarted.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        assert.equal(restarted.metadata.generation, 2);
        assert.equal((await ok('-n', ns, 'rollout', 'history', short)).stdout, `${kind}.apps/${name} \nNo rollout history found.\n`);
        const status = await run('-n', ns, 'rollout', 'status', short, '--timeout=1s');
        assert.deepEqual([status.code, status.stdout, status.stderr.trim()], [1, `Waiting for ${words} spec update to be observed...\n`, 'error: timed out waiting for the condition']);
        const once = await run('-n', ns, 'rollout', 'status', short, '--watch=false');
        assert.deepEqual([once.code, once.stdout], [0, `Waiting for ${words} spec update to be observed...\n`]);
      }
      const sts = await get(`${apps()}/statefulsets/db`);
      for (const revision of [1, 2]) {
        await post(`${apps()}/controllerrevisions`, {
          apiVersion: 'apps/v1', kind: 'ControllerRevision',
          metadata: {
            name: `db-r${revision}`, labels: { app: 'db' },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true }],
          },
          revision,
          data: { spec: { template: { $patch: 'replace', metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: `nginx:${revision}` }] } } } },
        });
      }
      assert.equal((await ok('-n', ns, 'rollout', 'history', 'sts/db')).stdout, 'statefulset.apps/db \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n');
      assert.match((await ok('-n', ns, 'rollout', 'history', 'sts/db', '--revision=2')).stdout, /^statefulset\.apps\/db with revision #2\nPod Template:\n {2}Labels:\tapp=db\n {2}Containers:\n {3}c:\n {4}Image:\tnginx:2\n/);
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'sts/db', '--to-revision=2', '--dry-run=server')).stdout, 'statefulset.apps/db rolled back (server dry run)\n');
      assert.equal((await get(`${apps()}/statefulsets/db`)).spec.template.spec.containers[0].image, 'nginx:1');
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'sts/db', '--to-revision=2')).stdout, 'statefulset.apps/db rolled back\n');
      assert.equal((await get(`${apps()}/statefulsets/db`)).spec.template.spec.containers[0].image, 'nginx:2');
    });

    test('patch and get the status and scale subresources', async () => {
      assert.equal((await ok('-n', ns, 'patch', 'deployment', 'ex', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":7,"observedGeneration":9}}')).stdout, 'deployment.apps/ex patched\n');
      const patched = await get(`${apps()}/deployments/ex`);
      assert.deepEqual([patched.status, patched.spec.replicas], [{ observedGeneration: 9, replicas: 7 }, 2]);
      // Through status, spec changes are dropped: nothing changed.
      assert.equal((await ok('-n', ns, 'patch', 'deployment', 'ex', '--subresource=status', '--type=merge', '-p', '{"spec":{"replicas":1}}')).stdout, 'deployment.apps/ex patched (no change)\n');
      assert.equal((await ok('-n', ns, 'patch', 'deployment', 'ex', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":4}}')).stdout, 'scale.autoscaling/ex patched\n');
      const scale = JSON.parse((await ok('-n', ns, 'get', 'deployment', 'ex', '--subresource=scale', '-o', 'json')).stdout);
      assert.deepEqual([scale.apiVersion, scale.kind, scale.spec, scale.status], ['autoscaling/v1', 'Scale', { replicas: 4 }, { replicas: 7, selector: 'app=ex' }]);
      assert.match((await ok('-n', ns, 'get', 'deployment', 'ex', '--subresource=scale')).stdout, /^NAME\s+DESIRED\s+AVAILABLE\nex\s+4\s+7\n$/);
      assert.match((await ok('-n', ns, 'get', 'deployment', 'ex', '--subresource=status')).stdout, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nex\s+0\/4\s+0\s+0\s+\S+\n$/);
      assert.equal((await ok('-n', ns, 'patch', 'sts', 'db', '--subresource=scale', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":3}]')).stdout, 'scale.autoscaling/db patched\n');
      // Only spec.replicas passes through a Scale.
      assert.equal((await ok('-n', ns, 'patch', 'sts', 'db', '--subresource=scale', '--type=merge', '-p', '{"metadata":{"labels":{"x":"y"}},"status":{"replicas":9}}')).stdout, 'scale.autoscaling/db patched (no change)\n');
      const sts = await get(`${apps()}/statefulsets/db`);
      assert.deepEqual([sts.spec.replicas, sts.metadata.labels, sts.status.replicas], [3, undefined, 0]);
      const negative = await run('-n', ns, 'patch', 'sts', 'db', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":-1}}');
      assert.deepEqual([negative.code, negative.stderr.trim()], [1, 'The Scale "db" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
      const status = await run('-n', ns, 'patch', 'sts', 'db', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":-1}}');
      assert.equal(status.code, 1);
      assert.equal(status.stderr.trim(), 'The StatefulSet "db" is invalid: \n* status.replicas: Invalid value: -1: must be greater than or equal to 0\n* status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas\n* status.currentReplicas: Invalid value: 0: cannot be greater than status.replicas\n* status.updatedReplicas: Invalid value: 0: cannot be greater than status.replicas\n* status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas');
      assert.match((await ok('get', 'node', node, '--subresource=status')).stdout, new RegExp(`^NAME\\s+STATUS\\s+ROLES\\s+AGE\\s+VERSION\\n${node}\\s+Ready\\s+<none>\\s+\\S+\\s+v1\\.36\\.2\\n$`));
      const none = await run('-n', ns, 'get', 'configmap', 'envcm', '--subresource=status');
      assert.deepEqual([none.code, none.stderr.trim()], [1, 'Error from server (NotFound): the server could not find the requested resource']);
      const bulk = await run('-n', ns, 'get', 'statefulsets', '--subresource=status');
      assert.deepEqual([bulk.code, bulk.stderr.trim()], [1, 'error: subresource cannot be used when bulk resources are specified']);
    });

    test('delete --cascade=foreground --wait=false while a dependent holds on, and delete --field-selector', async () => {
      const owner = await post(`${api()}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
      await post(`${api()}/configmaps`, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: 'dep', finalizers: ['example.com/hold'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true }] },
      });
      assert.equal((await ok('-n', ns, 'delete', 'configmap', 'owner', '--cascade=foreground', '--wait=false')).stdout, 'configmap "owner" deleted\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const held = await get(`${api()}/configmaps/owner`);
      assert.deepEqual([held.metadata.finalizers, held.metadata.deletionGracePeriodSeconds, typeof held.metadata.deletionTimestamp], [['foregroundDeletion'], 0, 'string']);
      const dep = await get(`${api()}/configmaps/dep`);
      assert.deepEqual([dep.metadata.finalizers, typeof dep.metadata.deletionTimestamp], [['example.com/hold'], 'string']);
      // A background delete drops the foregroundDeletion finalizer: the owner goes at once.
      assert.equal((await ok('-n', ns, 'delete', 'configmap', 'owner', '--timeout=5s')).stdout, 'configmap "owner" deleted\n');
      assert.ok(await absent(`${api()}/configmaps/owner`));
      await ok('-n', ns, 'patch', 'configmap', 'dep', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
      assert.ok(await absent(`${api()}/configmaps/dep`));

      for (const name of ['fs1', 'fs2']) await ok('-n', ns, 'create', 'configmap', name);
      assert.equal((await ok('-n', ns, 'delete', 'configmap', '--field-selector=metadata.name=fs1')).stdout, 'configmap "fs1" deleted\n');
      const nothing = await ok('-n', ns, 'delete', 'configmap', '--field-selector=metadata.name=nonesuch');
      assert.equal(nothing.stdout, 'No resources found\n');
      assert.ok(await absent(`${api()}/configmaps/fs1`));
      assert.ok(!(await absent(`${api()}/configmaps/fs2`)));
      const unknown = await run('-n', ns, 'delete', 'configmap', '--field-selector=data.x=1');
      assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, 'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "data.x=1": "data.x" is not a known field selector: only "metadata.name", "metadata.namespace"']);
    });

    test('get --chunk-size=1, --server-print=false, --show-managed-fields with custom columns, and --watch-only', async () => {
      const names = (await get(`${api()}/configmaps`)).items.map((c: Json) => c.metadata.name).sort();
      const chunked = await ok('-n', ns, 'get', 'configmaps', '--chunk-size=1', '-v=6');
      const lines = chunked.stdout.trim().split('\n');
      assert.match(lines[0]!, /^NAME\s+DATA\s+AGE$/);
      assert.deepEqual(lines.slice(1).map((l) => l.split(/\s+/)[0]), names);
      assert.equal(chunked.stderr.split('\n').filter((l) => / GET https:\S+\/configmaps\?(continue=\S+&)?limit=1 200 OK/.test(l)).length, names.length);
      const plain = await ok('-n', ns, 'get', 'deployments,statefulsets', '--server-print=false');
      assert.match(plain.stdout, /^NAME\s+AGE\ndeployment\.apps\/ex\s+\S+\n(deployment\.apps\/pd\s+\S+\n)?\nNAME\s+AGE\nstatefulset\.apps\/db\s+\S+\n$/);
      const columns = await ok('-n', ns, 'get', 'configmap', 'mig', '--show-managed-fields', '-o', 'custom-columns=NAME:.metadata.name,MANAGERS:.metadata.managedFields[*].manager');
      assert.equal(columns.stdout, 'NAME   MANAGERS\nmig    kubectl,kubectl-client-side-apply\n');
      const hidden = JSON.parse((await ok('-n', ns, 'get', 'configmap', 'mig', '-o', 'json')).stdout);
      assert.equal(hidden.metadata.managedFields, undefined);

      const watching = kubectl(['-n', ns, 'get', 'configmaps', '--watch-only', '--output-watch-events', '--request-timeout=3s'], {}, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await ok('-n', ns, 'create', 'configmap', 'wo');
      await ok('-n', ns, 'label', 'configmap', 'wo', 'a=b');
      await ok('-n', ns, 'delete', 'configmap', 'wo');
      const watched = await watching;
      assert.equal(watched.code, 0, watched.stderr);
      assert.deepEqual(watched.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 3).join(' ')), ['EVENT NAME DATA', 'ADDED wo 0', 'MODIFIED wo 0', 'DELETED wo 0']);
    });

    test('auth reconcile creates, extends and recreates roles and bindings', async () => {
      const manifest = (verbs: string, role: string) => file('rbac.yaml', `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rr, namespace: ${ns}}
rules:
- {apiGroups: [""], resources: [pods], verbs: [${verbs}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rr, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${role}}
subjects: [{kind: User, name: u2, apiGroup: rbac.authorization.k8s.io}]
`);
      const created = await ok('auth', 'reconcile', '-f', manifest('get', 'view'));
      assert.equal(created.stdout, 'role.rbac.authorization.k8s.io/rr reconciled\nrolebinding.rbac.authorization.k8s.io/rr reconciled\n');
      assert.match(created.stderr, /reconciliation required create\n\tmissing rules added:\n\t\t\{Verbs:\[get\] APIGroups:\[\] Resources:\[pods\] ResourceNames:\[\] NonResourceURLs:\[\]\}/);
      const binding = await get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/rr`);
      await ok('auth', 'reconcile', '-f', manifest('get, list', 'edit'));
      assert.deepEqual((await get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/rr`)).rules, [
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      ]);
      // A binding's roleRef cannot change: reconcile deletes and creates it again.
      const recreated = await get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/rr`);
      assert.deepEqual([recreated.roleRef.name, recreated.metadata.uid !== binding.metadata.uid], ['edit', true]);
      const patch = await run('-n', ns, 'patch', 'rolebinding', 'rr', '--type=merge', '-p', '{"roleRef":{"name":"admin"}}');
      assert.deepEqual([patch.code, patch.stderr.trim()], [1, 'The RoleBinding "rr" is invalid: roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"admin"}: cannot change roleRef']);
    });

    test('create token bound to a Secret (and a Node from 1.31), with a duration', async () => {
      const secret = await get(`${api()}/secrets/gen`);
      const token = (await ok('-n', ns, 'create', 'token', 'bot', '--duration=1h', '--bound-object-kind=Secret', '--bound-object-name=gen')).stdout.trim();
      const claims = jwtPayload(token);
      assert.equal(claims.exp - claims.iat, 3600);
      assert.deepEqual(claims['kubernetes.io'].secret, { name: 'gen', uid: secret.metadata.uid });
      assert.equal(claims['kubernetes.io'].pod, undefined);
      const uid = await run('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Secret', '--bound-object-name=gen', '--bound-object-uid=xx');
      assert.deepEqual([uid.code, uid.stderr.trim()], [1, 'error: failed to create token: Operation cannot be fulfilled on Secret "gen": the UID in the bound object reference (xx) does not match the UID in record. The object might have been deleted and then recreated']);
      if (version === '1.29') {
        const nodeKind = await run('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Node', `--bound-object-name=${node}`);
        assert.deepEqual([nodeKind.code, nodeKind.stderr.trim()], [1, 'error: supported --bound-object-kind values are Pod, Secret']);
        return;
      }
      const nodeObject = await get(`/api/v1/nodes/${node}`);
      const nodeClaims = jwtPayload((await ok('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Node', `--bound-object-name=${node}`)).stdout.trim());
      assert.deepEqual(nodeClaims['kubernetes.io'].node, { name: node, uid: nodeObject.metadata.uid });
      const missing = await run('-n', ns, 'create', 'token', 'bot', '--bound-object-kind=Node', '--bound-object-name=no-node');
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'error: failed to create token: nodes "no-node" not found']);
    });

    test('wait --for=jsonpath on a StatefulSet, --for=create (1.31), and edit that the server refuses', async () => {
      assert.equal((await ok('-n', ns, 'wait', '--for=jsonpath={.status.availableReplicas}=0', 'sts/db', '--timeout=5s')).stdout, 'statefulset.apps/db condition met\n');
      assert.equal((await ok('-n', ns, 'wait', '--for=jsonpath={.data}', 'configmap/envcm', '--timeout=5s')).stdout, 'configmap/envcm condition met\n');
      const available = await run('-n', ns, 'wait', '--for=condition=Available', 'deployment/ex', '--timeout=1s');
      assert.deepEqual([available.code, available.stderr.trim()], [1, 'error: timed out waiting for the condition on deployments/ex']);
      if (version === '1.29') {
        const create = await run('-n', ns, 'wait', '--for=create', 'configmap/envcm', '--timeout=1s');
        assert.deepEqual([create.code, create.stderr.trim()], [1, 'error: unrecognized condition: "create"']);
      } else {
        const waiting = run('-n', ns, 'wait', '--for=create', 'configmap/late', '--timeout=10s');
        await new Promise((resolve) => setTimeout(resolve, 500));
        await ok('-n', ns, 'create', 'configmap', 'late');
        assert.equal((await waiting).stdout, 'configmap/late condition met\n');
        const never = await run('-n', ns, 'wait', '--for=create', 'configmap/never', '--timeout=1s');
        assert.deepEqual([never.code, never.stderr.trim()], [1, 'error: timed out waiting for the condition']);
      }
      const editor = file('negative.sh', '#!/bin/sh\nsed -i \'s/^  replicas: 4$/  replicas: -2/\' "$1"\n');
      chmodSync(editor, 0o755);
      const edit = await kubectl(['-n', ns, 'edit', 'deployment', 'ex'], { EDITOR: editor, KUBE_EDITOR: editor, TMPDIR: dir });
      assert.equal(edit.code, 1);
      assert.match(edit.stderr, /^error: deployments\.apps "ex" is invalid\nA copy of your changes has been stored to "[^"]+"\nerror: Edit cancelled, no valid changes were saved\.\n/);
      assert.equal((await get(`${apps()}/deployments/ex`)).spec.replicas, 4);
    });
  });
});
