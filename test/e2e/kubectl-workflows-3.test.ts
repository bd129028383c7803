// A third set of kubectl workflows, with kubectl 1.28, 1.30 and 1.32 against one server:
// discovery as api-resources and api-versions filter it, explain of a custom resource
// (recursive, OpenAPI v3 and v2), output formats of custom resources, label and annotate
// over many objects, replace of immutable and recreated objects, server-side diff and its
// exit codes, dry runs that print what the server would store, field validation, rollout
// errors of a Deployment, node maintenance of a Node no kubelet serves, CSRs with a custom
// signer, deletion as raw Status and through a terminating namespace, events written
// through events.k8s.io, whoami as JSON and patches of subresources. Each asserts what
// kubectl prints and its exit code against kube-apiserver 1.36 (no controllers beyond
// Plinth's own run: nothing reacts to a Node without a kubelet).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectls = [
  { version: '1.28', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.28' },
  { version: '1.30', bin: '/usr/lib/google-cloud-sdk/bin/kubectl.1.30' },
  { version: '1.32', bin: '/usr/bin/kubectl' },
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

/** A namespaced custom resource with a scale subresource, printer columns (one only wide) and a selectable field. */
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gd'], categories: ['all'] },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      additionalPrinterColumns: [
        { name: 'Size', type: 'string', jsonPath: '.spec.size' },
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
      selectableFields: [{ jsonPath: '.spec.size' }],
      schema: {
        openAPIV3Schema: {
          type: 'object', description: 'A gadget.', required: ['spec'],
          properties: {
            spec: {
              type: 'object', description: 'The gadget\'s desired state.', required: ['size'],
              properties: {
                size: { type: 'string', description: 'How big.', enum: ['S', 'M', 'L'], default: 'M' },
                replicas: { type: 'integer', minimum: 0, format: 'int32' },
                tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                parts: {
                  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer' } } },
                },
              },
            },
            status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
          },
        },
      },
    }],
  },
};

let server: TestServer;
let kubeconfig: string;
before(async () => {
  server = await startServer({ simulatedNodes: 0 });
  kubeconfig = path.join(server.dataDir, 'kubeconfig');
  const crd = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: gadgetCrd });
  assert.equal(crd.status, 201, crd.text);
  // The CRD's resource is served once it is Established.
  for (let i = 0; i < 100; i++) {
    if ((await server.request('GET', '/apis/example.com/v1')).status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

/** A table's rows with their cells joined by one space. */
function rows(out: string): string[] {
  return out.trim().split('\n').map((line) => line.split(/\s{2,}|\t/).map((cell) => cell.trim()).filter((cell) => cell !== '').join(' '));
}

kubectls.forEach(({ version, bin }) => {
  const skip = existsSync(bin) ? false : `kubectl ${version} is not installed at ${bin}`;
  describe(`kubectl ${version} workflows (3)`, { skip }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-workflows-3-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const tag = version.replace('.', '-');
    const kubectl = (args: string[], timeout = 30_000) => new Promise<Run>((resolve) => {
      execFile(bin, ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args], { timeout }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        // Every one of these kubectls is more than one minor version from 1.36.
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
      writeFileSync(p, text);
      return p;
    };
    let ns = '';
    before(async () => {
      ns = await server.newNamespace(`wf3-${tag}`);
    });
    const api = () => `/api/v1/namespaces/${ns}`;

    test('api-versions, and api-resources filtered by group, scope, verbs and category', async () => {
      assert.equal((await ok('api-versions')).stdout, [
        'admissionregistration.k8s.io/v1', 'apiextensions.k8s.io/v1', 'apiregistration.k8s.io/v1', 'apps/v1',
        'authentication.k8s.io/v1', 'authorization.k8s.io/v1', 'autoscaling/v1', 'autoscaling/v2', 'batch/v1',
        'certificates.k8s.io/v1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1', 'example.com/v1',
        'flowcontrol.apiserver.k8s.io/v1', 'networking.k8s.io/v1', 'node.k8s.io/v1', 'policy/v1', 'rbac.authorization.k8s.io/v1',
        'resource.k8s.io/v1', 'scheduling.k8s.io/v1', 'storage.k8s.io/v1', 'v1', '',
      ].join('\n'));
      assert.equal((await ok('api-resources', '--api-group=apps', '-o', 'name')).stdout, 'controllerrevisions.apps\ndaemonsets.apps\ndeployments.apps\nreplicasets.apps\nstatefulsets.apps\n');
      assert.deepEqual(rows((await ok('api-resources', '--namespaced=false', '--api-group=rbac.authorization.k8s.io', '--no-headers')).stdout), [
        'clusterrolebindings rbac.authorization.k8s.io/v1 false ClusterRoleBinding',
        'clusterroles rbac.authorization.k8s.io/v1 false ClusterRole',
      ]);
      assert.deepEqual(rows((await ok('api-resources', '--api-group=example.com', '-o', 'wide')).stdout), [
        'NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES',
        'gadgets gd example.com/v1 true Gadget create,delete,deletecollection,get,list,patch,update,watch all',
      ]);
      // TokenReviews can be created but not read.
      assert.deepEqual(rows((await ok('api-resources', '--api-group=authentication.k8s.io', '--verbs=create,get')).stdout), ['NAME SHORTNAMES APIVERSION NAMESPACED KIND']);
      assert.deepEqual(rows((await ok('api-resources', '--api-group=batch', '--sort-by=kind')).stdout), [
        'NAME SHORTNAMES APIVERSION NAMESPACED KIND', 'cronjobs cj batch/v1 true CronJob', 'jobs batch/v1 true Job',
      ]);
      if (version !== '1.28') {
        assert.deepEqual(rows((await ok('api-resources', '--categories=all', '-o', 'name')).stdout), [
          'pods', 'replicationcontrollers', 'services', 'daemonsets.apps', 'deployments.apps', 'replicasets.apps', 'statefulsets.apps',
          'horizontalpodautoscalers.autoscaling', 'cronjobs.batch', 'jobs.batch', 'gadgets.example.com',
        ]);
      }
    });

    test('explain a custom resource: its top level, --recursive, an enum, a list of objects, and OpenAPI v2', async () => {
      const top = await ok('explain', 'gadgets');
      assert.match(top.stdout, /^GROUP:\s+example\.com\nKIND:\s+Gadget\nVERSION:\s+v1\n\nDESCRIPTION:\n {4}A gadget\.\n/);
      assert.match(top.stdout, /^ {2}metadata\t<ObjectMeta>\n {4}Standard object's metadata\. More info:\n/m);
      assert.match(top.stdout, /^ {2}spec\t<Object> -required-\n {4}The gadget's desired state\.\n/m);
      assert.match(top.stdout, /^ {2}status\t<Object>\n {4}<no description>\n/m);
      const recursive = await ok('explain', 'gadgets.spec', '--recursive');
      assert.equal(recursive.stdout.slice(recursive.stdout.indexOf('FIELDS:')), [
        'FIELDS:', '  parts\t<[]Object>', '    count\t<integer>', '    name\t<string> -required-', '  replicas\t<integer>',
        // kubectl 1.30 and later print the schema's enum here too.
        '  size\t<string> -required-', ...(version === '1.28' ? [] : ['  enum: S, M, L']), '  tags\t<[]string>', '', '',
      ].join('\n'));
      const parts = await ok('explain', 'gadget.spec.parts');
      // kubectl 1.28's template has one blank line fewer after the field.
      assert.equal(parts.stdout, `GROUP:      example.com\nKIND:       Gadget\nVERSION:    v1\n\nFIELD: parts <[]Object>\n${version === '1.28' ? '' : '\n'}\nDESCRIPTION:\n    <empty>\nFIELDS:\n  count\t<integer>\n    <no description>\n\n  name\t<string> -required-\n    <no description>\n\n\n`);
      const v2 = await ok('explain', 'gd.spec', '--output=plaintext-openapiv2');
      assert.equal(v2.stdout, 'KIND:     Gadget\nVERSION:  example.com/v1\n\nRESOURCE: spec <Object>\n\nDESCRIPTION:\n     The gadget\'s desired state.\n\nFIELDS:\n   parts\t<[]Object>\n\n   replicas\t<integer>\n\n   size\t<string> -required-\n     How big.\n\n   tags\t<[]string>\n\n');
      const missing = await run('explain', 'gadgets.spec.nope');
      assert.deepEqual([missing.code, missing.stderr.trim()], [1, 'error: field "nope" does not exist']);
      const older = await run('explain', 'gadgets', '--api-version=example.com/v2');
      assert.equal(older.code, 1);
    });

    test('custom resources in tables, custom columns, sorted, by label and by a selectable field', async () => {
      await ok('apply', '-f', file('gadgets.yaml', `apiVersion: example.com/v1
kind: Gadget
metadata: {name: g1, namespace: ${ns}, labels: {app: g, tier: a}}
spec: {size: L, replicas: 3, tags: [a, b], parts: [{name: p, count: 1}]}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g2, namespace: ${ns}, labels: {app: g}}
spec: {replicas: 1}
`));
      assert.deepEqual(rows((await ok('-n', ns, 'get', 'gadgets')).stdout).map((r) => r.replace(/ \S+$/, '')), ['NAME SIZE', 'g1 L', 'g2 M']);
      assert.deepEqual(rows((await ok('-n', ns, 'get', 'gd', '-o', 'wide', '--sort-by=.spec.replicas')).stdout).map((r) => r.replace(/ \S+$/, '')), ['NAME SIZE REPLICAS', 'g2 M 1', 'g1 L 3']);
      assert.deepEqual(rows((await ok('-n', ns, 'get', 'gd', '--show-labels', '-L', 'tier')).stdout).map((r) => r.split(' ').filter((_, i) => i !== 2).join(' ')), [
        'NAME SIZE TIER LABELS', 'g1 L a app=g,tier=a', 'g2 M app=g',
      ]);
      assert.equal((await ok('-n', ns, 'get', 'gd', '-o', 'custom-columns=NAME:.metadata.name,TAGS:.spec.tags,PARTS:.spec.parts[*].name')).stdout, 'NAME   TAGS     PARTS\ng1     [a b]    p\ng2     <none>   <none>\n');
      assert.equal((await ok('-n', ns, 'get', 'gd', '-o', 'jsonpath={range .items[?(@.spec.size=="M")]}{.metadata.name}{end}')).stdout, 'g2');
      assert.equal((await ok('-n', ns, 'get', 'gd', '-o', 'go-template={{range .items}}{{.metadata.name}}:{{.spec.size}} {{end}}')).stdout, 'g1:L g2:M ');
      assert.equal((await ok('-n', ns, 'get', 'gd', '--field-selector=spec.size=L', '-o', 'name')).stdout, 'gadget.example.com/g1\n');
      const unsupported = await run('-n', ns, 'get', 'gd', '--field-selector=spec.replicas=1');
      assert.deepEqual([unsupported.code, unsupported.stderr.trim()], [1, 'Error from server (BadRequest): Unable to find "example.com/v1, Resource=gadgets" that match label selector "", field selector "spec.replicas=1": field label not supported: spec.replicas']);
      const all = await ok('-n', ns, 'get', 'all', '-o', 'name');
      assert.equal(all.stdout, 'gadget.example.com/g1\ngadget.example.com/g2\n');
      const partial = await run('-n', ns, 'get', 'gd', 'g1', 'nosuch', 'g2', '-o', 'name');
      assert.deepEqual([partial.code, partial.stdout, partial.stderr.trim()], [1, 'gadget.example.com/g1\ngadget.example.com/g2\n', 'Error from server (NotFound): gadgets.example.com "nosuch" not found']);
    });

    test('patch a custom resource\'s status and scale with JSON patches, and scale it by its label selector', async () => {
      assert.equal((await ok('-n', ns, 'patch', 'gd', 'g1', '--subresource=status', '--type=json', '-p', '[{"op":"add","path":"/status","value":{"replicas":3,"selector":"app=g"}}]')).stdout, 'gadget.example.com/g1 patched\n');
      const scale = JSON.parse((await ok('-n', ns, 'get', 'gd', 'g1', '--subresource=scale', '-o', 'json')).stdout);
      assert.deepEqual([scale.apiVersion, scale.kind, scale.spec, scale.status], ['autoscaling/v1', 'Scale', { replicas: 3 }, { replicas: 3, selector: 'app=g' }]);
      assert.equal((await ok('-n', ns, 'patch', 'gd', 'g1', '--subresource=scale', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":5}]')).stdout, 'scale.autoscaling/g1 patched\n');
      assert.equal((await get(`/apis/example.com/v1/namespaces/${ns}/gadgets/g1`)).spec.replicas, 5);
      const test = await run('-n', ns, 'patch', 'gd', 'g1', '--subresource=scale', '--type=json', '-p', '[{"op":"test","path":"/spec/replicas","value":4}]');
      assert.deepEqual([test.code, test.stderr.trim()], [1, 'The request is invalid: the server rejected our request due to an error in our request']);
      const negative = await run('-n', ns, 'patch', 'gd', 'g2', '--type=merge', '-p', '{"spec":{"size":"XL","replicas":-1}}');
      assert.equal(negative.code, 1);
      assert.equal(negative.stderr.trim(), 'The Gadget "g2" is invalid: \n* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0\n* spec.size: Unsupported value: "XL": supported values: "S", "M", "L"\n* .spec.replicas: Invalid value: -1: should be a non-negative integer');
      // kubectl stops at the first object whose precondition fails: g1 is first and has 5.
      const scaled = await run('-n', ns, 'scale', 'gd', '-l', 'app=g', '--current-replicas=1', '--replicas=2');
      assert.deepEqual([scaled.code, scaled.stdout, scaled.stderr.trim()], [1, '', 'error: Expected replicas to be 1, was 5']);
      assert.equal((await ok('-n', ns, 'scale', 'gd', 'g2', '--current-replicas=1', '--replicas=2')).stdout, 'gadget.example.com/g2 scaled\n');
    });

    test('server-side apply of list-type map and set fields that break their keys, and apply --subresource=status', async () => {
      const gadget = (name: string, spec: string) => file(`${name}.yaml`, `apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: ${name}, namespace: ${ns}}\nspec: ${spec}\n`);
      const keyless = gadget('g3', '{size: S, parts: [{count: 1}]}');
      const ssa = await run('apply', '--server-side', '-f', keyless);
      assert.deepEqual([ssa.code, ssa.stderr.trim()], [1, `Error from server: failed to create typed patch object (${ns}/g3; example.com/v1, Kind=Gadget): .spec.parts: element 0: associative list with keys has an element that omits key field "name" (and doesn't have default value)`]);
      const csa = await run('apply', '-f', keyless);
      assert.deepEqual([csa.code, csa.stderr.trim()], [1, 'The Gadget "g3" is invalid: spec.parts[0].name: Required value']);
      const twice = gadget('g4', '{size: S, parts: [{name: x}, {name: x, count: 2}]}');
      const duplicate = await run('apply', '--server-side', '-f', twice);
      assert.deepEqual([duplicate.code, duplicate.stderr.trim()], [1, `Error from server: failed to create typed patch object (${ns}/g4; example.com/v1, Kind=Gadget): .spec.parts: duplicate entries for key [name="x"]`]);
      const created = await run('create', '-f', twice);
      assert.deepEqual([created.code, created.stderr.trim()], [1, 'The Gadget "g4" is invalid: spec.parts[1]: Duplicate value: {"name":"x"}']);
      const tags = await run('create', '-f', gadget('g5', '{size: S, tags: [a, b, a]}'));
      assert.deepEqual([tags.code, tags.stderr.trim()], [1, 'The Gadget "g5" is invalid: spec.tags[2]: Duplicate value: "a"']);

      // g1's status belongs to kubectl-patch (the status subresource): an apply of it conflicts, naming the subresource.
      const status = file('g1-status.yaml', `apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: ${ns}}\nstatus: {replicas: 9}\n`);
      // apply --subresource came after kubectl 1.30.
      if (version !== '1.32') return;
      const conflict = await run('apply', '--server-side', '--subresource=status', '--field-manager=ctl', '-f', status);
      assert.equal(conflict.code, 1);
      assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl-patch" with subresource "status" using example\.com\/v1: \.status\.replicas\n/);
      assert.equal((await ok('apply', '--server-side', '--subresource=status', '--field-manager=ctl', '--force-conflicts', '-f', status)).stdout, 'gadget.example.com/g1 serverside-applied\n');
      const live = await get(`/apis/example.com/v1/namespaces/${ns}/gadgets/g1`);
      assert.deepEqual([live.status, live.spec.replicas], [{ replicas: 9, selector: 'app=g' }, 5]);
      assert.deepEqual(live.metadata.managedFields.filter((m: Json) => m.manager === 'ctl').map((m: Json) => [m.operation, m.subresource, m.fieldsV1]), [['Apply', 'status', { 'f:status': { 'f:replicas': {} } }]]);
    });

    test('kubectl scale takes spec.replicas from a server-side applier: a later apply of another count conflicts with the scale subresource', async () => {
      const manifest = (replicas: number) => file('applied-scale.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: sd, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: sd}}
  template:
    metadata: {labels: {app: sd}}
    spec: {containers: [{name: c, image: nginx}]}
`);
      await ok('apply', '--server-side', '-f', manifest(2));
      assert.equal((await ok('-n', ns, 'scale', 'deploy', 'sd', '--replicas=3')).stdout, 'deployment.apps/sd scaled\n');
      // kubectl scale names no field manager: the server takes its user agent's program name.
      const scaler = path.basename(bin);
      const managed = async () => (await get(`/apis/apps/v1/namespaces/${ns}/deployments/sd`)).metadata.managedFields.map((m: Json) => [m.manager, m.operation, m.subresource, m.apiVersion, 'f:replicas' in (m.fieldsV1['f:spec'] ?? {})]);
      assert.deepEqual(await managed(), [['kubectl', 'Apply', undefined, 'apps/v1', false], [scaler, 'Update', 'scale', 'apps/v1', true]]);
      const conflict = await run('apply', '--server-side', '-f', manifest(4));
      assert.equal(conflict.code, 1);
      assert.match(conflict.stderr, new RegExp(`^error: Apply failed with 1 conflict: conflict with "${scaler.replace(/\./g, '\\.')}" with subresource "scale" using apps/v1: \\.spec\\.replicas\\n`));
      // Applying the count the scaler set shares the field.
      assert.equal((await ok('apply', '--server-side', '-f', manifest(3))).stdout, 'deployment.apps/sd serverside-applied\n');
      assert.deepEqual(await managed(), [['kubectl', 'Apply', undefined, 'apps/v1', true], [scaler, 'Update', 'scale', 'apps/v1', true]]);
    });

    test('quota and limit ranges: kubectl create quota, admission refusals in the server\'s words, defaults the LimitRanger sets', async () => {
      const qns = `quota-${tag}`;
      await ok('create', 'namespace', qns);
      assert.equal((await ok('-n', qns, 'create', 'quota', 'qq', '--hard=configmaps=1,pods=1,count/gadgets.example.com=0')).stdout, 'resourcequota/qq created\n');
      // The quota controller fills in the usage; until then admission refuses what the quota counts.
      for (let i = 0; i < 100 && (await get(`/api/v1/namespaces/${qns}/resourcequotas/qq`)).status?.used === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      await ok('-n', qns, 'create', 'configmap', 'c1');
      const second = await run('-n', qns, 'create', 'configmap', 'c2');
      assert.deepEqual([second.code, second.stderr.trim()], [1, 'error: failed to create configmap: configmaps "c2" is forbidden: exceeded quota: qq, requested: configmaps=1, used: configmaps=1, limited: configmaps=1']);
      const gadget = file('quota-gadget.yaml', `apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: ${qns}}\nspec: {size: S}\n`);
      const custom = await run('create', '-f', gadget);
      assert.deepEqual([custom.code, custom.stderr.trim()], [1, `Error from server (Forbidden): error when creating "${gadget}": gadgets.example.com "g" is forbidden: exceeded quota: qq, requested: count/gadgets.example.com=1, used: count/gadgets.example.com=0, limited: count/gadgets.example.com=0`]);
      assert.match((await ok('-n', qns, 'get', 'quota', 'qq')).stdout, /^NAME\s+AGE\s+REQUEST\s+LIMIT\nqq\s+\S+\s+configmaps: 1\/1, count\/gadgets\.example\.com: 0\/0, pods: 0\/1\s+\n$/);

      await ok('apply', '-f', file('limits.yaml', `apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: ${qns}}
spec:
  limits:
  - type: Container
    default: {cpu: 500m}
    defaultRequest: {cpu: 100m}
    max: {memory: 1Gi}
`));
      // The API defaults the missing memory default (and default request) to the max.
      assert.deepEqual((await get(`/api/v1/namespaces/${qns}/limitranges/lr`)).spec.limits[0], {
        type: 'Container', default: { cpu: '500m', memory: '1Gi' }, defaultRequest: { cpu: '100m', memory: '1Gi' }, max: { memory: '1Gi' },
      });
      const big = await run('-n', qns, 'run', 'big', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"memory":"2Gi"}}}]}}');
      assert.deepEqual([big.code, big.stderr.trim()], [1, 'Error from server (Forbidden): pods "big" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi']);
      assert.equal((await ok('-n', qns, 'run', 'p1', '--image=nginx')).stdout, 'pod/p1 created\n');
      const pod = await get(`/api/v1/namespaces/${qns}/pods/p1`);
      assert.deepEqual([pod.metadata.annotations, pod.spec.containers[0].resources], [
        { 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container p1; cpu, memory limit for container p1' },
        { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } },
      ]);
      const another = await run('-n', qns, 'run', 'p2', '--image=nginx');
      assert.deepEqual([another.code, another.stderr.trim()], [1, 'Error from server (Forbidden): pods "p2" is forbidden: exceeded quota: qq, requested: pods=1, used: pods=1, limited: pods=1']);
    });

    test('label and annotate many objects: --all, a selector, removal, --overwrite, dry runs, and --resource-version', async () => {
      for (const name of ['la', 'lb', 'lc']) await ok('-n', ns, 'create', 'configmap', name);
      assert.equal((await ok('-n', ns, 'label', 'cm', '--all', 'team=x')).stdout, 'configmap/la labeled\nconfigmap/lb labeled\nconfigmap/lc labeled\n');
      assert.equal((await ok('-n', ns, 'label', 'cm', 'la', 'lb', 'team=y', '--overwrite', '--dry-run=server')).stdout, 'configmap/la labeled (server dry run)\nconfigmap/lb labeled (server dry run)\n');
      assert.equal((await get(`${api()}/configmaps/la`)).metadata.labels.team, 'x');
      assert.equal((await ok('-n', ns, 'label', 'cm', '-l', 'team=x', 'team=z', '--overwrite')).stdout, 'configmap/la labeled\nconfigmap/lb labeled\nconfigmap/lc labeled\n');
      assert.equal((await ok('-n', ns, 'label', 'cm', 'la', 'nope-')).stdout, 'label "nope" not found.\nconfigmap/la not labeled\n');
      assert.equal((await ok('-n', ns, 'annotate', 'cm', '--all', 'note=one')).stdout, 'configmap/la annotated\nconfigmap/lb annotated\nconfigmap/lc annotated\n');
      const again = await run('-n', ns, 'annotate', 'cm', 'la', 'note=two');
      assert.deepEqual([again.code, again.stderr.trim()], [1, "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (one)"]);
      assert.equal((await ok('-n', ns, 'annotate', 'cm', 'la', 'note-', 'other-')).stdout, 'configmap/la annotated\n');
      assert.deepEqual((await get(`${api()}/configmaps/la`)).metadata.annotations, undefined);
      const many = await run('-n', ns, 'label', 'cm', 'la', 'lb', 'q=1', '--resource-version=1');
      assert.deepEqual([many.code, many.stderr.trim()], [1, 'error: --resource-version may only be used with a single resource']);
      const rv = (await get(`${api()}/configmaps/lc`)).metadata.resourceVersion;
      assert.equal((await ok('-n', ns, 'annotate', 'cm', 'lc', 'v=1', `--resource-version=${rv}`)).stdout, 'configmap/lc annotated\n');
      const stale = await run('-n', ns, 'label', 'cm', 'lc', 'v=1', `--resource-version=${rv}`);
      assert.deepEqual([stale.code, stale.stderr.trim()], [1, 'Error from server (Conflict): Operation cannot be fulfilled on configmaps "lc": the object has been modified; please apply your changes to the latest version and try again']);
    });

    test('replace: a missing object, an immutable ConfigMap, --force, and a body whose uid is not the live one', async () => {
      const cm = (name: string, extra: string, as = name) => file(`${as}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\n${extra}`);
      const missing = cm('rmiss', 'data: {a: "1"}\n');
      const notFound = await run('replace', '-f', missing);
      assert.deepEqual([notFound.code, notFound.stderr.trim()], [1, `Error from server (NotFound): error when replacing "${missing}": configmaps "rmiss" not found`]);
      await ok('create', '-f', cm('imm', 'immutable: true\ndata: {a: "1"}\n'));
      const changed = cm('imm', 'immutable: true\ndata: {a: "2"}\n', 'imm-changed');
      const refused = await run('replace', '-f', changed);
      assert.deepEqual([refused.code, refused.stderr.trim()], [1, `The ConfigMap "imm" is invalid: data: Forbidden: field is immutable when \`immutable\` is set`]);
      const mutable = await run('replace', '-f', cm('imm', 'data: {a: "1"}\n', 'imm-mutable'));
      assert.deepEqual([mutable.code, mutable.stderr.trim()], [1, `The ConfigMap "imm" is invalid: immutable: Forbidden: field is immutable when \`immutable\` is set`]);
      const before = await get(`${api()}/configmaps/imm`);
      assert.equal((await ok('replace', '--force', '-f', changed)).stdout, 'configmap "imm" deleted\nconfigmap/imm replaced\n');
      const after = await get(`${api()}/configmaps/imm`);
      assert.deepEqual([after.data, after.metadata.uid !== before.metadata.uid], [{ a: '2' }, true]);
      const foreign = file('foreign.json', JSON.stringify({ ...after, metadata: { name: 'imm', namespace: ns, uid: before.metadata.uid }, immutable: true }));
      const uid = await run('replace', '-f', foreign);
      assert.deepEqual([uid.code, uid.stderr.trim()], [1, `Error from server (Conflict): error when replacing "${foreign}": Operation cannot be fulfilled on configmaps "imm": Precondition failed: UID in precondition: ${before.metadata.uid}, UID in object meta: ${after.metadata.uid}`]);
    });

    test('diff --server-side: exit 1 for a new or changed object, 0 for an unchanged one, above 1 for an invalid one or a conflict', async () => {
      const manifest = (x: string, name = 'sdiff') => file(`${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}, labels: {a: "1"}}\ndata: {x: "${x}"}\n`);
      const created = await run('diff', '--server-side', '-f', manifest('1'));
      assert.equal(created.code, 1, created.stderr);
      assert.deepEqual(created.stdout.split('\n').filter((l) => /^\+[^+]/.test(l)).map((l) => l.replace(/"\d{4}-.*"$/, 'T').replace(/uid: .*$/, 'uid: U')), [
        '+apiVersion: v1', '+data:', '+  x: "1"', '+kind: ConfigMap', '+metadata:', '+  creationTimestamp: T', '+  labels:', '+    a: "1"', '+  name: sdiff', `+  namespace: ${ns}`, '+  uid: U',
      ]);
      assert.ok(await absent(`${api()}/configmaps/sdiff`));
      await ok('apply', '--server-side', '-f', manifest('1'));
      const same = await run('diff', '--server-side', '-f', manifest('1'));
      assert.deepEqual([same.code, same.stdout], [0, '']);
      const changed = await run('diff', '--server-side', '-f', manifest('2'));
      assert.deepEqual([changed.code, changed.stdout.split('\n').filter((l) => /^[-+] /.test(l))], [1, ['-  x: "1"', '+  x: "2"']]);
      const conflict = await run('diff', '--server-side', '--field-manager=other', '-f', manifest('2'));
      assert.ok(conflict.code > 1, `exit ${conflict.code}`);
      assert.match(conflict.stderr, /^Error from server \(Conflict\): Apply failed with 1 conflict: conflict with "kubectl": \.data\.x$/m);
      const forced = await run('diff', '--server-side', '--field-manager=other', '--force-conflicts', '-f', manifest('2'));
      assert.equal(forced.code, 1, forced.stderr);
      const invalid = await run('diff', '--server-side', '-f', manifest('1', 'Bad_Name'));
      assert.ok(invalid.code > 1, `exit ${invalid.code}`);
      assert.match(invalid.stderr, /^The ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/m);
      assert.equal((await get(`${api()}/configmaps/sdiff`)).data.x, '1');
    });

    test('create with --dry-run=server -o yaml prints what would be stored, and a Job from a CronJob', async () => {
      const deployment = await ok('-n', ns, 'create', 'deployment', 'dry', '--image=nginx:1', '--dry-run=server', '-o', 'json');
      const d = JSON.parse(deployment.stdout);
      assert.equal(d.metadata.resourceVersion, undefined, 'a dry run stores nothing, so no resource version');
      assert.match(d.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual([d.metadata.generation, d.spec.revisionHistoryLimit, d.spec.progressDeadlineSeconds, d.spec.strategy, d.status], [1, 10, 600, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, {}]);
      assert.ok(await absent(`/apis/apps/v1/namespaces/${ns}/deployments/dry`));
      const named = await ok('create', '-f', file('gen.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: gen-, namespace: ${ns}}\n`), '--dry-run=server', '-o', 'name');
      assert.match(named.stdout, /^configmap\/gen-[a-z0-9]{5}\n$/);
      const apply = await run('apply', '-f', path.join(dir, 'gen.yaml'));
      assert.deepEqual([apply.code, apply.stderr.trim()], [1, 'error: from gen-: cannot use generate name with apply']);
      await ok('-n', ns, 'create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *');
      const cronjob = await get(`/apis/batch/v1/namespaces/${ns}/cronjobs/cj`);
      const job = JSON.parse((await ok('-n', ns, 'create', 'job', 'j1', '--from=cronjob/cj', '--dry-run=server', '-o', 'json')).stdout);
      // kubectl 1.28 still asks for blockOwnerDeletion (kubectl's choice, not the server's).
      assert.deepEqual(job.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'cj', uid: cronjob.metadata.uid, controller: true, ...(version === '1.28' ? { blockOwnerDeletion: true } : {}) }]);
      assert.deepEqual(job.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': job.metadata.uid } });
      assert.deepEqual(job.spec.template.metadata.labels, {
        'batch.kubernetes.io/controller-uid': job.metadata.uid, 'batch.kubernetes.io/job-name': 'j1', 'controller-uid': job.metadata.uid, 'job-name': 'j1',
      });
      assert.deepEqual([job.spec.backoffLimit, job.spec.completionMode, job.spec.podReplacementPolicy, job.spec.suspend, job.spec.manualSelector], [6, 'NonIndexed', 'TerminatingOrFailed', false, false]);
      assert.ok(await absent(`/apis/batch/v1/namespaces/${ns}/jobs/j1`));
    });

    test('field validation: --validate=strict refuses an unknown field, warn warns, ignore is silent', async () => {
      const manifest = file('unknown.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: fv, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: fv}}
  template:
    metadata: {labels: {app: fv}}
    spec: {containers: [{name: c, image: nginx, imagePolicy: Always}]}
  bogus: 1
`);
      const strict = await run('create', '--validate=strict', '-f', manifest);
      assert.deepEqual([strict.code, strict.stderr.trim()], [1, `Error from server (BadRequest): error when creating "${manifest}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus", unknown field "spec.template.spec.containers[0].imagePolicy"`]);
      const warn = await run('create', '--validate=warn', '-f', manifest, '--dry-run=server');
      assert.deepEqual([warn.code, warn.stdout, warn.stderr.trim()], [0, 'deployment.apps/fv created (server dry run)\n', 'Warning: unknown field "spec.bogus"\nWarning: unknown field "spec.template.spec.containers[0].imagePolicy"']);
      const ignore = await run('create', '--validate=false', '-f', manifest, '--dry-run=server');
      assert.deepEqual([ignore.code, ignore.stderr.trim()], [0, '']);
      const applied = await run('apply', '--server-side', '--validate=strict', '-f', manifest);
      assert.equal(applied.code, 1);
      assert.match(applied.stderr, /\.spec\.bogus: field not declared in schema/);
    });

    test('rollout of a Deployment: history of a revision, undo to a missing revision, resume when not paused, restart and undo while paused', async () => {
      await ok('-n', ns, 'create', 'deployment', 'ro', '--image=nginx:1');
      const none = await run('-n', ns, 'rollout', 'undo', 'deploy/ro');
      assert.deepEqual([none.code, none.stderr.trim()], [1, 'error: no rollout history found for deployment "ro"']);
      const deployment = await get(`/apis/apps/v1/namespaces/${ns}/deployments/ro`);
      for (const revision of [1, 2]) {
        await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
          apiVersion: 'apps/v1', kind: 'ReplicaSet',
          metadata: {
            name: `ro-${revision}`, labels: { app: 'ro', 'pod-template-hash': `h${revision}` },
            annotations: { 'deployment.kubernetes.io/revision': String(revision) },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'ro', uid: deployment.metadata.uid, controller: true, blockOwnerDeletion: true }],
          },
          spec: {
            replicas: 0, selector: { matchLabels: { app: 'ro', 'pod-template-hash': `h${revision}` } },
            template: { metadata: { labels: { app: 'ro', 'pod-template-hash': `h${revision}` } }, spec: { containers: [{ name: 'nginx', image: `nginx:${revision}` }] } },
          },
        });
      }
      const history = await ok('-n', ns, 'rollout', 'history', 'deploy/ro', '--revision=2');
      assert.match(history.stdout, /^deployment\.apps\/ro with revision #2\nPod Template:\n {2}Labels:\tapp=ro\n\tpod-template-hash=h2\n {2}Containers:\n {3}nginx:\n {4}Image:\tnginx:2\n/);
      const far = await run('-n', ns, 'rollout', 'undo', 'deploy/ro', '--to-revision=7');
      assert.deepEqual([far.code, far.stderr.trim()], [1, 'error: unable to find specified revision 7 in history']);
      const resume = await run('-n', ns, 'rollout', 'resume', 'deploy/ro');
      assert.deepEqual([resume.code, resume.stderr.trim()], [1, 'error: deployments.apps "ro" is not paused']);
      assert.equal((await ok('-n', ns, 'rollout', 'pause', 'deploy/ro')).stdout, 'deployment.apps/ro paused\n');
      const restart = await run('-n', ns, 'rollout', 'restart', 'deploy/ro');
      assert.deepEqual([restart.code, restart.stderr.trim()], [1, 'error: deployments.apps "ro" can\'t restart paused deployment (run rollout resume first)']);
      const undo = await run('-n', ns, 'rollout', 'undo', 'deploy/ro', '--to-revision=2');
      assert.deepEqual([undo.code, undo.stderr.trim()], [1, 'error: you cannot rollback a paused deployment; resume it first with \'kubectl rollout resume\' and try again']);
      assert.equal((await ok('-n', ns, 'rollout', 'resume', 'deploy/ro')).stdout, 'deployment.apps/ro resumed\n');
      assert.equal((await ok('-n', ns, 'rollout', 'undo', 'deploy/ro', '--to-revision=2', '--dry-run=server')).stdout, 'deployment.apps/ro rolled back (server dry run)\n');
      assert.equal((await get(`/apis/apps/v1/namespaces/${ns}/deployments/ro`)).spec.template.spec.containers[0].image, 'nginx:1');
      // Without a deployment controller nothing observes the new generation.
      const status = await run('-n', ns, 'rollout', 'status', 'deploy/ro', '--watch=false');
      assert.deepEqual([status.code, status.stdout], [0, 'Waiting for deployment spec update to be observed...\n']);
    });

    test('cordon, drain and uncordon a Node without a kubelet: empty, with a completed pod, with an unmanaged pod', async () => {
      const node = `fake-${tag}`;
      await post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { pool: tag } } });
      assert.match((await ok('get', 'node', node)).stdout, new RegExp(`^NAME\\s+STATUS\\s+ROLES\\s+AGE\\s+VERSION\\n${node}\\s+Unknown\\s+<none>\\s+\\S+\\s+\\n$`));
      assert.equal((await ok('cordon', '-l', `pool=${tag}`, '--dry-run=server')).stdout, `node/${node} cordoned (server dry run)\n`);
      assert.equal((await get(`/api/v1/nodes/${node}`)).spec.unschedulable, undefined);
      assert.equal((await ok('drain', node)).stdout, `node/${node} cordoned\nnode/${node} drained\n`);
      assert.match((await ok('get', 'node', node)).stdout, new RegExp(`^${node}\\s+Unknown,SchedulingDisabled\\s+`, 'm'));
      assert.equal((await ok('uncordon', node)).stdout, `node/${node} uncordoned\n`);

      const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: node, restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] } });
      await post(`${api()}/pods`, pod('done'));
      await ok('-n', ns, 'patch', 'pod', 'done', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Succeeded"}}');
      // A finished pod needs no --force, and goes at once: its grace period is 0.
      assert.equal((await ok('drain', node, '--timeout=10s')).stdout, `node/${node} cordoned\nevicting pod ${ns}/done\npod/done evicted\nnode/${node} drained\n`);
      assert.ok(await absent(`${api()}/pods/done`));
      await ok('uncordon', node);

      await post(`${api()}/pods`, pod('lone'));
      const refused = await run('drain', node, '--timeout=3s');
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, `node/${node} cordoned\n`);
      // Each kubectl words this a little differently (its own text).
      assert.match(refused.stderr, new RegExp(`^error: unable to drain node "${node}" due to error: ?cannot delete (cannot delete )?Pods (that )?declare no controller \\(use --force to override\\): ${ns}/lone, continuing command\\.\\.\\.$`, 'm'));
      // With --force the pod is evicted, but with no kubelet to stop it, it stays Terminating.
      const forced = await run('drain', node, '--force', '--timeout=2s');
      assert.equal(forced.code, 1);
      assert.equal(forced.stdout, `node/${node} already cordoned\nevicting pod ${ns}/lone\n`);
      assert.match(forced.stderr, new RegExp(`^Warning: deleting Pods that declare no controller: ${ns}/lone$`, 'm'));
      assert.match(forced.stderr, new RegExp(`error when waiting for pod "lone" in namespace "${ns}" to terminate`));
      const lone = await get(`${api()}/pods/lone`);
      assert.deepEqual([typeof lone.metadata.deletionTimestamp, lone.metadata.deletionGracePeriodSeconds, lone.status.phase], ['string', 30, 'Pending']);
      const gone = await ok('-n', ns, 'delete', 'pod', 'lone', '--grace-period=0', '--force');
      assert.deepEqual([gone.stdout, gone.stderr.trim()], ['pod "lone" force deleted\n', 'Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.']);
      assert.equal((await ok('uncordon', node)).stdout, `node/${node} uncordoned\n`);
    });

    test('certificate approve and deny with a custom signer: twice, several at once, --force, and an approval both Approved and Denied', async () => {
      const request = Buffer.from(csrPem).toString('base64');
      const names = ['a', 'b', 'c'].map((n) => `csr3-${tag}-${n}`);
      for (const name of names) {
        await post('/apis/certificates.k8s.io/v1/certificatesigningrequests', {
          apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
          spec: { request, signerName: 'example.com/custom', usages: ['client auth'] },
        });
      }
      const [a, b, c] = names as [string, string, string];
      const prefix = 'certificatesigningrequest.certificates.k8s.io/';
      assert.equal((await ok('certificate', 'approve', a)).stdout, `${prefix}${a} approved\n`);
      const at = (await get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${a}`)).metadata.resourceVersion;
      assert.equal((await ok('certificate', 'approve', a)).stdout, `${prefix}${a} approved\n`);
      assert.equal((await get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${a}`)).metadata.resourceVersion, at, 'approving twice changes nothing');
      assert.equal((await ok('certificate', 'deny', b)).stdout, `${prefix}${b} denied\n`);
      const several = await run('certificate', 'approve', c, a, b);
      assert.deepEqual([several.code, several.stdout, several.stderr.trim()], [1, `${prefix}${c} approved\n${prefix}${a} approved\n`, `error: certificate signing request "${b}" is already Denied`]);
      const force = await run('certificate', 'deny', a, '--force');
      assert.deepEqual([force.code, force.stderr.trim()], [1, `error: certificate signing request "${a}" is already Approved`]);
      assert.match((await ok('get', 'csr', a, b)).stdout, new RegExp(`^NAME\\s+AGE\\s+SIGNERNAME\\s+REQUESTOR\\s+REQUESTEDDURATION\\s+CONDITION\\n${a}\\s+\\S+\\s+example\\.com/custom\\s+admin\\s+<none>\\s+Approved\\n${b}\\s+\\S+\\s+example\\.com/custom\\s+admin\\s+<none>\\s+Denied\\n$`));
      const live = await get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${b}`);
      live.status.conditions.push({ type: 'Approved', status: 'True', reason: 'R', message: 'm' });
      const both = await run('replace', '--raw', `/apis/certificates.k8s.io/v1/certificatesigningrequests/${b}/approval`, '-f', file('both.json', JSON.stringify(live)));
      // validateConditions reports this on the list, not the item (the declarative zeroOrOneOf origin).
      assert.deepEqual([both.code, both.stderr.trim()], [1, `The CertificateSigningRequest "${b}" is invalid: status.conditions: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive`]);
    });

    test('delete --raw answers a Status, --cascade=orphan --wait keeps the dependents, and a terminating namespace refuses content', async () => {
      await ok('-n', ns, 'create', 'configmap', 'raw');
      const uid = (await get(`${api()}/configmaps/raw`)).metadata.uid;
      const raw = await ok('delete', '--raw', `${api()}/configmaps/raw`);
      assert.deepEqual(JSON.parse(raw.stdout), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'raw', kind: 'configmaps', uid } });
      const again = await run('delete', '--raw', `${api()}/configmaps/raw`);
      assert.deepEqual([again.code, again.stderr.trim()], [1, 'Error from server (NotFound): configmaps "raw" not found']);

      await ok('-n', ns, 'create', 'deployment', 'od', '--image=nginx');
      const owner = await get(`/apis/apps/v1/namespaces/${ns}/deployments/od`);
      await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: { name: 'od-1', labels: { app: 'od' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'od', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }] },
        spec: { replicas: 0, selector: { matchLabels: { app: 'od' } }, template: { metadata: { labels: { app: 'od' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      assert.equal((await ok('-n', ns, 'delete', 'deploy', 'od', '--cascade=orphan', '--wait', '--timeout=10s')).stdout, 'deployment.apps "od" deleted\n');
      assert.ok(await absent(`/apis/apps/v1/namespaces/${ns}/deployments/od`));
      const orphan = await get(`/apis/apps/v1/namespaces/${ns}/replicasets/od-1`);
      assert.deepEqual([orphan.metadata.ownerReferences, orphan.metadata.finalizers], [undefined, undefined]);

      const doomed = `doomed-${tag}`;
      await ok('create', 'namespace', doomed);
      await post(`/api/v1/namespaces/${doomed}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      assert.equal((await ok('delete', 'namespace', doomed, '--wait=false')).stdout, `namespace "${doomed}" deleted\n`);
      const refused = await run('-n', doomed, 'create', 'configmap', 'late');
      assert.deepEqual([refused.code, refused.stderr.trim()], [1, `error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`]);
      assert.match((await ok('get', 'namespace', doomed)).stdout, new RegExp(`^${doomed}\\s+Terminating\\s+\\S+\\n`, 'm'));
      await ok('-n', doomed, 'patch', 'configmap', 'held', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
      // kubectl says nothing when the namespace is already gone as it starts waiting, which the
      // namespace controller may have finished by then.
      assert.ok(['', `namespace/${doomed} condition met\n`].includes((await ok('wait', '--for=delete', `namespace/${doomed}`, '--timeout=20s')).stdout));
      assert.ok(await absent(`/api/v1/namespaces/${doomed}`));
    });

    test('events written through events.k8s.io, seen by kubectl events and get events -o wide', async () => {
      await ok('-n', ns, 'create', 'deployment', 'evd', '--image=nginx');
      const now = new Date().toISOString().replace('Z', '000Z');
      await post(`/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
        apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev1' },
        eventTime: now, reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Poke', reason: 'Poked', note: 'poked twice', type: 'Normal',
        regarding: { kind: 'Deployment', name: 'evd', namespace: ns, apiVersion: 'apps/v1' }, series: { count: 2, lastObservedTime: now },
      });
      const core = await get(`${api()}/events/ev1`);
      assert.deepEqual([core.message, core.reportingComponent, core.involvedObject.name, core.count, core.firstTimestamp, core.source], ['poked twice', 'example.com/ctl', 'evd', undefined, null, {}]);
      assert.match((await ok('-n', ns, 'events', '--for', 'deployment/evd', '--types=Normal')).stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\S+ \(x2 over \S+\)\s+Normal\s+Poked\s+Deployment\/evd\s+poked twice\n$/);
      const noWarnings = await ok('-n', ns, 'events', '--types=Warning');
      assert.deepEqual([noWarnings.stdout, noWarnings.stderr.trim()], ['', `No events found in ${ns} namespace.`]);
      const wide = await ok('-n', ns, 'get', 'events', '-o', 'wide');
      assert.match(wide.stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME\n\S+\s+Normal\s+Poked\s+deployment\/evd\s+example\.com\/ctl, ctl-1\s+poked twice\s+\S+\s+2\s+ev1\n$/);
      const v1 = JSON.parse((await ok('-n', ns, 'get', 'events.v1.events.k8s.io', 'ev1', '-o', 'json')).stdout);
      assert.deepEqual([v1.deprecatedFirstTimestamp, v1.deprecatedLastTimestamp, v1.deprecatedSource, v1.deprecatedCount], [null, null, {}, undefined]);
    });

    test('auth whoami -o json, and a token longer than 2^32 seconds', async () => {
      const review = JSON.parse((await ok('auth', 'whoami', '-o', 'json')).stdout);
      assert.deepEqual([review.kind, review.apiVersion, review.status.userInfo.username], ['SelfSubjectReview', 'authentication.k8s.io/v1', 'admin']);
      assert.match(review.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      await ok('-n', ns, 'create', 'serviceaccount', 'bot');
      const long = await run('-n', ns, 'create', 'token', 'bot', '--duration=1200000h');
      assert.deepEqual([long.code, long.stderr.trim()], [1, 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4320000000: may not specify a duration larger than 2^32 seconds']);
    });
  });
});
