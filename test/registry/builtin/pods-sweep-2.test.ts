// Pod updates and pods/ephemeralcontainers from a second bad-input sweep, against a real
// server: what upstream's ValidatePodUpdate and validateEphemeralContainers
// (pkg/apis/core/validation) answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

type Json = Record<string, unknown>;

async function createPod(ns: string, name: string, spec: Json): Promise<void> {
  const r = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec } });
  assert.equal(r.status, 201, r.text);
}

function mergePatch(ns: string, name: string, body: Json, subresource = '') {
  return server.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}${subresource}`, { body, headers: { 'content-type': 'application/merge-patch+json' } });
}

function jsonPatch(ns: string, name: string, ops: Json[]) {
  return server.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, { body: ops, headers: { 'content-type': 'application/json-patch+json' } });
}

/** A 422's causes as "field: message". */
function causes(r: { status: number; text: string; json: any }): string[] {
  assert.equal(r.status, 422, r.text);
  return r.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
}

const gated = { containers: [{ name: 'app', image: 'nginx' }], schedulingGates: [{ name: 'example.com/wait' }] };
const required = (terms: Json[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
const zoneA = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] };

test('a scheduling gate may not be added: one cause at the new gate, not the spec diff', async () => {
  const ns = await server.newNamespace('gates');
  await createPod(ns, 'p', gated);
  assert.deepEqual(causes(await mergePatch(ns, 'p', { spec: { schedulingGates: [{ name: 'example.com/wait' }, { name: 'example.com/more' }] } })), [
    "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/more'",
  ]);
});

test('a gated pod may gain node selector entries and required node affinity requirements, nothing else', async () => {
  const ns = await server.newNamespace('gated');
  await createPod(ns, 'sel', { ...gated, nodeSelector: { disk: 'ssd' } });
  assert.equal((await mergePatch(ns, 'sel', { spec: { nodeSelector: { zone: 'a' } } })).status, 200);
  assert.deepEqual(causes(await mergePatch(ns, 'sel', { spec: { nodeSelector: { disk: 'hdd' } } })), [
    'spec.nodeSelector: Invalid value: {"disk":"hdd","zone":"a"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)',
  ]);

  await createPod(ns, 'aff', gated);
  assert.equal((await mergePatch(ns, 'aff', { spec: required([zoneA]) })).status, 200);
  const more = { matchExpressions: [...zoneA.matchExpressions, { key: 'disk', operator: 'Exists' }] };
  assert.equal((await mergePatch(ns, 'aff', { spec: required([more]) })).status, 200);
  assert.deepEqual(causes(await mergePatch(ns, 'aff', { spec: required([zoneA]) })), [
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value: '
    + '{"MatchExpressions":[{"Key":"zone","Operator":"In","Values":["a"]}],"MatchFields":null}: only additions are allowed (no mutations or deletions)',
  ]);
  assert.deepEqual(causes(await mergePatch(ns, 'aff', { spec: { affinity: null } })), [
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: null: no additions/deletions to non-empty NodeSelectorTerms list are allowed',
  ]);

  // Once ungated, the node selector is fixed again.
  await createPod(ns, 'free', { containers: [{ name: 'app', image: 'nginx' }] });
  const [cause] = causes(await mergePatch(ns, 'free', { spec: { nodeSelector: { zone: 'a' } } }));
  assert.match(cause!, /^spec: Forbidden: pod updates may not change fields other than/);
});

test("an update's new tolerations and images are checked twice, as ValidatePodUpdate checks them after the spec's own rules", async () => {
  const ns = await server.newNamespace('twice');
  await createPod(ns, 'p', { containers: [{ name: 'app', image: 'nginx' }], tolerations: [{ key: 'k', operator: 'Exists' }] });
  const badKey = 'spec.tolerations[1].key: Invalid value: "bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', '
    + "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  assert.deepEqual(causes(await mergePatch(ns, 'p', { spec: { tolerations: [{ key: 'k', operator: 'Exists' }, { key: 'bad key', operator: 'Exists' }] } })), [badKey, badKey]);
  assert.deepEqual(causes(await jsonPatch(ns, 'p', [{ op: 'replace', path: '/spec/containers/0/image', value: '' }])), [
    'spec.containers[0].image: Required value', 'spec.containers[0].image: Required value',
  ]);
  assert.deepEqual(causes(await jsonPatch(ns, 'p', [{ op: 'replace', path: '/spec/containers/0/image', value: 'nginx ' }])), [
    'spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing whitespace',
    'spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing whitespace',
  ]);
});

test('an ephemeral container is checked as any container, then for what it may not set, in the Go struct\'s field order', async () => {
  const ns = await server.newNamespace('debug');
  await createPod(ns, 'p', { containers: [{ name: 'app', image: 'nginx' }] });
  const debug = (container: Json) => mergePatch(ns, 'p', { spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox', ...container }] } }, '/ephemeralcontainers');
  assert.deepEqual(causes(await debug({ imagePullPolicy: 'Sometimes', securityContext: { runAsUser: -1 } })), [
    'spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    'spec.ephemeralContainers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
  ]);
  assert.deepEqual(causes(await debug({
    lifecycle: {}, startupProbe: { exec: { command: ['true'] } }, restartPolicy: 'Always', resources: { limits: { cpu: '1' } },
    ports: [{ containerPort: 80 }], volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }],
  })), [
    'spec.ephemeralContainers[0].volumeMounts[0].name: Not found: "v"',
    'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].restartPolicy: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].startupProbe: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
    'spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container',
  ]);
  assert.equal((await debug({ targetContainerName: 'app' })).status, 200);
});
