// PodSecurity admission end to end: a namespace's pod-security.kubernetes.io labels refuse,
// warn of and check pods, pod templates and existing pods, as kube-apiserver's default
// configuration does; an unlabelled namespace is privileged.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sample } from '../helpers/metrics.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ allowPrivileged: true });
});
after(() => server.stop());

const pod = (name: string, securityContext?: Record<string, unknown>) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', ...(securityContext === undefined ? {} : { securityContext }) }] },
});
const restrictedContext = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

async function namespace(name: string, labels: Record<string, string>): Promise<void> {
  const res = await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
  assert.equal(res.status, 201, res.text);
}

test('enforce refuses a pod with every violation named; a pod that meets the level is created; no labels is privileged', async () => {
  await namespace('psa-restricted', { 'pod-security.kubernetes.io/enforce': 'restricted' });
  const refused = await server.request('POST', '/api/v1/namespaces/psa-restricted/pods', { body: pod('plain') });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.message, 'pods "plain" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), '
    + 'unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), '
    + 'seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
  assert.deepEqual(refused.json.details, { name: 'plain', kind: 'pods' });
  const created = await server.request('POST', '/api/v1/namespaces/psa-restricted/pods', { body: pod('hardened', restrictedContext) });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.warning, undefined);
  // Unlabelled: privileged, anything goes.
  const ns = await server.newNamespace('psa-none');
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('root', { privileged: true }) })).status, 201);
});

test('warn adds a warning to a pod and to a Deployment\'s template; an invalid label is refused; a stricter enforce level warns of existing pods', async () => {
  await namespace('psa-warn', { 'pod-security.kubernetes.io/warn': 'baseline' });
  const warned = await server.request('POST', '/api/v1/namespaces/psa-warn/pods', { body: pod('priv', { privileged: true }) });
  assert.equal(warned.status, 201, warned.text);
  assert.equal(warned.headers.warning, '299 - "would violate PodSecurity \\"baseline:latest\\": privileged (container \\"app\\" must not set securityContext.privileged=true)"');
  const deployment = await server.request('POST', '/apis/apps/v1/namespaces/psa-warn/deployments', {
    body: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { hostNetwork: true, containers: [{ name: 'app', image: 'nginx' }] } } },
    },
  });
  assert.equal(deployment.status, 201, deployment.text);
  assert.equal(deployment.headers.warning, '299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostNetwork=true)"');

  const invalid = await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa-bad', labels: { 'pod-security.kubernetes.io/enforce': 'strict' } } } });
  assert.equal(invalid.status, 422);
  assert.match(invalid.json.message, /metadata\.labels\[pod-security\.kubernetes\.io\/enforce\]: Invalid value: "strict": must be one of privileged, baseline, restricted/);

  const raised = await server.request('PATCH', '/api/v1/namespaces/psa-warn', {
    body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } }, headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(raised.status, 200, raised.text);
  const warnings = [raised.headers.warning ?? []].flat().join('\n');
  assert.match(warnings, /existing pods in namespace \\"psa-warn\\" violate the new PodSecurity enforce level \\"baseline:latest\\"/);
  assert.match(warnings, /priv: privileged/);
  const now = await server.request('POST', '/api/v1/namespaces/psa-warn/pods', { body: pod('priv2', { privileged: true }) });
  assert.equal(now.status, 403);
});

test('--disable-admission-plugins PodSecurity,DefaultTolerationSeconds: the labels are not enforced and pods keep their tolerations', async () => {
  const bare = await startServer({ allowPrivileged: true, disableAdmissionPlugins: ['PodSecurity', 'DefaultTolerationSeconds'] });
  try {
    const ns = await bare.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa-off', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } });
    assert.equal(ns.status, 201, ns.text);
    const created = await bare.request('POST', '/api/v1/namespaces/psa-off/pods', { body: pod('root', { privileged: true }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.tolerations, undefined);
  } finally {
    await bare.stop();
  }
});

test('--admission-control-config-file: PodSecurity\'s defaults apply to unlabelled namespaces, its exemptions skip the checks', async () => {
  const dir = tempDir('plinth-admission-config-');
  // The plugin's configuration by path, relative to the AdmissionConfiguration, as kubeadm writes it.
  writeFileSync(path.join(dir, 'pod-security.yaml'), [
    'apiVersion: pod-security.admission.config.k8s.io/v1', 'kind: PodSecurityConfiguration',
    'defaults:', '  enforce: baseline', '  enforce-version: latest',
    'exemptions:', '  namespaces: [psa-exempt]', '  usernames: []', '  runtimeClasses: []', '',
  ].join('\n'));
  const file = path.join(dir, 'admission.yaml');
  writeFileSync(file, ['apiVersion: apiserver.config.k8s.io/v1', 'kind: AdmissionConfiguration', 'plugins:', '- name: PodSecurity', '  path: pod-security.yaml', ''].join('\n'));
  const configured = await startServer({ allowPrivileged: true, admissionControlConfigFile: file });
  try {
    const plain = await configured.newNamespace('psa-default');
    const refused = await configured.request('POST', `/api/v1/namespaces/${plain}/pods`, { body: pod('root', { privileged: true }) });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'pods "root" is forbidden: violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)');
    assert.equal((await configured.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa-exempt' } } })).status, 201);
    assert.equal((await configured.request('POST', '/api/v1/namespaces/psa-exempt/pods', { body: pod('root', { privileged: true }) })).status, 201);
    const scrape = (await configured.request('GET', '/metrics')).text;
    assert.equal(sample(scrape, 'pod_security_exemptions_total', { request_operation: 'create', resource: 'pod', subresource: '' }), 1, 'the exempt namespace\'s pod counted as exempt');
    assert.equal(sample(scrape, 'pod_security_evaluations_total', { decision: 'deny', mode: 'enforce', policy_level: 'baseline', policy_version: 'latest', resource: 'pod' }), 1);
  } finally {
    await configured.stop();
  }
  writeFileSync(file, ['apiVersion: apiserver.config.k8s.io/v1', 'kind: AdmissionConfiguration', 'plugins:', '- name: PodSecurity', '  configuration:',
    '    apiVersion: pod-security.admission.config.k8s.io/v1', '    kind: PodSecurityConfiguration', '    defaults:', '      enforce: strict', ''].join('\n'));
  await assert.rejects(startServer({ admissionControlConfigFile: file }), /PodSecurity/);
  await assert.rejects(startServer({ admissionControlConfigFile: path.join(dir, 'missing.yaml') }), /unable to read admission control configuration/);
  writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\n');
  await assert.rejects(startServer({ admissionControlConfigFile: file }), /is not an AdmissionConfiguration/);
});

test('upstream\'s pod_security_* counters: enforce allowing and denying, audit and warn denying, by level, version, operation and resource', async () => {
  const metrics = async () => (await server.request('GET', '/metrics')).text;
  const count = (text: string, name: string, labels: Record<string, string>) => sample(text, name, labels);
  await namespace('psa-metrics', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30', 'pod-security.kubernetes.io/audit': 'restricted', 'pod-security.kubernetes.io/warn-version': 'v1.99' });
  const before = await metrics();
  const evaluation = (labels: Record<string, string>) => ({ request_operation: 'create', resource: 'pod', subresource: '', ...labels });
  const enforceAllow = evaluation({ decision: 'allow', mode: 'enforce', policy_level: 'baseline', policy_version: 'v1.30' });
  const enforceDeny = evaluation({ decision: 'deny', mode: 'enforce', policy_level: 'baseline', policy_version: 'v1.30' });
  const auditDeny = evaluation({ decision: 'deny', mode: 'audit', policy_level: 'restricted', policy_version: 'latest' });
  assert.equal((await server.request('POST', '/api/v1/namespaces/psa-metrics/pods', { body: pod('plain') })).status, 201);
  assert.equal((await server.request('POST', '/api/v1/namespaces/psa-metrics/pods', { body: pod('root', { privileged: true }) })).status, 403);
  // A template: audit and warn only (the warn level was raised to enforce's, at the version its label names).
  const deployment = await server.request('POST', '/apis/apps/v1/namespaces/psa-metrics/deployments', {
    body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { hostNetwork: true, containers: [{ name: 'app', image: 'nginx' }] } } } },
  });
  assert.equal(deployment.status, 201, deployment.text);
  const after = await metrics();
  const delta = (name: string, labels: Record<string, string>) => count(after, name, labels) - count(before, name, labels);
  assert.equal(delta('pod_security_evaluations_total', enforceAllow), 1);
  assert.equal(delta('pod_security_evaluations_total', enforceDeny), 1);
  assert.equal(delta('pod_security_evaluations_total', auditDeny), 2, 'both pods violate restricted');
  assert.equal(delta('pod_security_evaluations_total', { ...auditDeny, resource: 'controller' }), 1);
  assert.equal(delta('pod_security_evaluations_total', { decision: 'deny', mode: 'warn', policy_level: 'baseline', policy_version: 'future', request_operation: 'create', resource: 'controller', subresource: '' }), 1, 'a version past the server\'s is "future"');
  assert.match(after, /pod_security_evaluations_total\{decision="deny",mode="enforce",policy_level="baseline",policy_version="v1\.30",request_operation="create",resource="pod",subresource=""\} 1/, 'labels sorted by name, as upstream writes them');
});
