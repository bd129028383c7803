// PodSecurity admission with plain attributes: namespace label validation, pods refused by
// the enforce level with upstream's message, warnings and audit annotations for the other
// modes, pod controllers' templates warned only, updates that change nothing relevant let
// through, and the warnings about existing pods when a namespace's enforce level is raised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { StatusError } from '../../src/api/index.ts';
import type { JsonObject } from '../../src/api/json.ts';
import { runInRequestContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { podSecurityAdmission } from '../../src/admission/pod-security/plugin.ts';

function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

const namespaces: Record<string, KubeObject> = {
  open: namespace('open'),
  strict: namespace('strict', { 'pod-security.kubernetes.io/enforce': 'restricted' }),
  mixed: namespace('mixed', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted', 'pod-security.kubernetes.io/audit-version': 'v1.24' }),
  broken: namespace('broken', { 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn': 'baseline' }),
};
let existingPods: KubeObject[] = [];
const plugin = podSecurityAdmission({
  namespace: async (name) => namespaces[name],
  pods: async () => existingPods,
});

function pod(name: string, spec: JsonObject, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec };
}

const privilegedPod = pod('p', { containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] });
const plainPod = pod('p', { containers: [{ name: 'c', image: 'i' }] });
const restrictedPod = pod('p', {
  containers: [{
    name: 'c', image: 'i',
    securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
  }],
});

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod', namespace: 'open', name: 'p',
    object: undefined, oldObject: undefined, dryRun: false, namespaced: true, ...over,
  };
}

interface Outcome {
  error?: string;
  code?: number;
  details?: unknown;
  warnings: string[];
  annotations: Record<string, string>;
}

/** Runs the plugin's validate as a request would, collecting what it answers, warns and audits. */
async function validate(a: AdmissionAttributes): Promise<Outcome> {
  const outcome: Outcome = { warnings: [], annotations: {} };
  const context = {
    user: { name: 'alice', uid: '', groups: [] },
    addWarning: (text: string) => outcome.warnings.push(text),
    addAuditAnnotation: (key: string, value: string) => { outcome.annotations[key] = value; },
  };
  await runInRequestContext(context, async () => {
    try {
      await plugin.validate!(a);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      Object.assign(outcome, { error: err.message, code: err.code, details: err.details });
    }
  });
  return outcome;
}

test('writes it does not concern are answered at once', () => {
  const skipped: Partial<AdmissionAttributes>[] = [
    { operation: 'DELETE', object: undefined },
    { subresource: 'status', object: privilegedPod },
    { subresource: 'exec', object: privilegedPod },
    { resource: 'configmaps', kind: 'ConfigMap', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } },
    { group: 'apps', resource: 'deployments', subresource: 'scale', object: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'd' } } },
    { resource: 'namespaces', kind: 'Namespace', namespace: '', subresource: 'finalize', object: namespace('x', { 'pod-security.kubernetes.io/enforce': 'bad' }) },
  ];
  for (const over of skipped) assert.equal(plugin.validate!(attrs(over)), undefined, JSON.stringify(over));
});

test('namespace labels must name a level and a version', async () => {
  const create = (labels: Record<string, string>) => validate(attrs({ resource: 'namespaces', kind: 'Namespace', namespaced: false, namespace: '', name: 'x', object: namespace('x', labels) }));
  assert.deepEqual(await create({}), { warnings: [], annotations: {} });
  assert.equal((await create({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.24' })).error, undefined);
  const one = await create({ 'pod-security.kubernetes.io/enforce': 'strict' });
  assert.equal(one.code, 422);
  assert.equal(one.error, 'Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
  const two = await create({ 'pod-security.kubernetes.io/warn-version': 'v2.0', 'pod-security.kubernetes.io/audit': '' });
  assert.equal(two.error, 'Namespace "x" is invalid: [metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "": must be one of privileged, baseline, restricted, ' +
    'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]');
  for (const version of ['v1.01', '1.24', 'v1.', 'v1.99999999999999999999']) {
    assert.match((await create({ 'pod-security.kubernetes.io/enforce-version': version })).error ?? '', /must be "latest" or "v1.x"$/, version);
  }
});

test('a namespace update may keep labels that were already invalid, not add new ones', async () => {
  const update = (old: Record<string, string>, labels: Record<string, string>) =>
    validate(attrs({ operation: 'UPDATE', resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'x', object: namespace('x', labels), oldObject: namespace('x', old) }));
  const bad = { 'pod-security.kubernetes.io/warn': 'nope' };
  assert.equal((await update(bad, { ...bad, team: 'a' })).error, undefined);
  assert.match((await update({}, bad)).error ?? '', /is invalid/);
  assert.match((await update(bad, { 'pod-security.kubernetes.io/warn': 'other' })).error ?? '', /Invalid value: "other"/);
});

test('a pod violating the enforce level is refused with upstream\'s message and audited', async () => {
  const out = await validate(attrs({ namespace: 'strict', object: plainPod }));
  assert.equal(out.code, 403);
  assert.equal(out.error, 'pods "p" is forbidden: violates PodSecurity "restricted:latest": ' +
    'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
    'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
  assert.deepEqual(out.details, { kind: 'pods', name: 'p' });
  assert.deepEqual(out.warnings, [], 'no warnings on a refused request');
  assert.equal(out.annotations['pod-security.kubernetes.io/enforce-policy'], 'restricted:latest');
  assert.equal(out.annotations['pod-security.kubernetes.io/audit-violations'], undefined, 'audit is privileged');
  assert.deepEqual(await validate(attrs({ namespace: 'strict', object: restrictedPod })), { warnings: [], annotations: { 'pod-security.kubernetes.io/enforce-policy': 'restricted:latest' } });
});

test('warn and audit report what enforce lets through', async () => {
  const out = await validate(attrs({ namespace: 'mixed', object: plainPod }));
  assert.equal(out.error, undefined);
  assert.deepEqual(out.warnings, ['would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")']);
  assert.equal(out.annotations['pod-security.kubernetes.io/enforce-policy'], 'baseline:latest');
  assert.match(out.annotations['pod-security.kubernetes.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:v1.24": allowPrivilegeEscalation != false/);
  const refused = await validate(attrs({ namespace: 'mixed', object: privilegedPod }));
  assert.equal(refused.error, 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
});

test('a namespace without labels is privileged; unparsable labels are audited and enforce fails closed', async () => {
  assert.deepEqual(await validate(attrs({ object: privilegedPod })), { warnings: [], annotations: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' } });
  const out = await validate(attrs({ namespace: 'broken', object: privilegedPod }));
  assert.match(out.error ?? '', /^pods "p" is forbidden: violates PodSecurity "restricted:latest": /);
  assert.equal(out.annotations['pod-security.kubernetes.io/error'],
    'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
});

test('a pod in a namespace that cannot be found is an internal error', async () => {
  const out = await validate(attrs({ namespace: 'gone', object: plainPod }));
  assert.equal(out.code, 500);
  assert.equal(out.error, 'Internal error occurred: failed to lookup namespace "gone"');
});

test('in-process writes, with no request, are evaluated alike', async () => {
  await assert.rejects(async () => plugin.validate!(attrs({ namespace: 'strict', object: plainPod })), /violates PodSecurity "restricted:latest"/);
});

test('pod updates are evaluated only when an image, a container or a seccomp annotation changes', async () => {
  const withImage = (image: string, extra: JsonObject = {}) => pod('p', { containers: [{ name: 'c', image }], ...extra });
  const update = (object: KubeObject, oldObject: KubeObject, subresource = '') => validate(attrs({ operation: 'UPDATE', namespace: 'strict', subresource, object, oldObject }));
  assert.equal((await update({ ...withImage('a'), metadata: { ...plainPod.metadata, labels: { x: 'y' } } }, withImage('a'))).error, undefined);
  assert.match((await update(withImage('b'), withImage('a'))).error ?? '', /violates PodSecurity/);
  const annotated = { ...withImage('a'), metadata: { ...plainPod.metadata, annotations: { 'container.seccomp.security.alpha.kubernetes.io/c': 'unconfined' } } };
  assert.match((await update(annotated, withImage('a'))).error ?? '', /violates PodSecurity/);
  const ephemeral = withImage('a', { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] });
  assert.match((await update(ephemeral, withImage('a'), 'ephemeralcontainers')).error ?? '', /containers "c", "debug" must set/);
  assert.equal((await update(ephemeral, ephemeral, 'resize')).error, undefined);
});

test('pod controllers\' templates are warned and audited, never refused', async () => {
  const deployment: KubeObject = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'strict' },
    spec: { template: { metadata: { labels: { app: 'd' } }, spec: privilegedPod.spec } },
  };
  assert.deepEqual(await validate(attrs({ group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd', namespace: 'open', object: deployment })), { warnings: [], annotations: {} });
  // An enforce label alone raises warn to its level (upstream since v1.26), so templates are warned.
  const enforcedOnly = await validate(attrs({ group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd', namespace: 'strict', object: deployment }));
  assert.equal(enforcedOnly.error, undefined);
  assert.match(enforcedOnly.warnings[0] ?? '', /^would violate PodSecurity "restricted:latest": privileged/);
  assert.deepEqual(enforcedOnly.annotations, {});
  const out = await validate(attrs({ group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd', namespace: 'mixed', object: deployment }));
  assert.equal(out.error, undefined);
  assert.equal(out.warnings.length, 1);
  assert.match(out.warnings[0]!, /^would violate PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/);
  assert.match(out.annotations['pod-security.kubernetes.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:v1.24": privileged/);
  assert.equal(out.annotations['pod-security.kubernetes.io/enforce-policy'], undefined);
  const cronJob: KubeObject = {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj', namespace: 'mixed' },
    spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { hostNetwork: true, containers: [] } } } } },
  };
  const cron = await validate(attrs({ group: 'batch', resource: 'cronjobs', kind: 'CronJob', name: 'cj', namespace: 'mixed', object: cronJob }));
  assert.match(cron.warnings[0] ?? '', /host namespaces \(hostNetwork=true\)/);
});

test('a pod controller\'s object is not read in a namespace that warns and audits nothing', async () => {
  // Upstream's ValidatePodController returns before it decodes the object; an apply decodes
  // what it wrote only when a plugin reads it, so reading it here cost every apply a decode.
  const deployment: KubeObject = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'open' },
    spec: { template: { spec: privilegedPod.spec } },
  };
  let reads = 0;
  const lazy = (namespace: string): AdmissionAttributes => {
    const a = attrs({ group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd', namespace, operation: 'UPDATE' });
    Object.defineProperty(a, 'object', { get: () => { reads++; return { ...deployment, metadata: { ...deployment.metadata, namespace } }; }, enumerable: true });
    return a;
  };
  assert.deepEqual(await validate(lazy('open')), { warnings: [], annotations: {} });
  assert.equal(reads, 0);
  assert.match((await validate(lazy('strict'))).warnings[0] ?? '', /^would violate PodSecurity "restricted:latest": privileged/);
  assert.equal(reads, 1);
});

test('raising a namespace\'s enforce level warns of the existing pods it would refuse', async () => {
  const owned = (name: string, uid: string, spec: JsonObject): KubeObject => ({
    ...pod(name, spec), metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }] },
  });
  existingPods = [
    pod('zeta', privilegedPod.spec as JsonObject),
    pod('alpha', privilegedPod.spec as JsonObject),
    owned('rs-1', 'u1', { hostPID: true, containers: [] }),
    owned('rs-2', 'u1', { hostPID: true, containers: [] }),
    owned('rs-3', 'u1', { hostPID: true, containers: [] }),
    pod('fine', { containers: [{ name: 'c', image: 'i' }] }),
  ];
  const relabel = (old: Record<string, string>, labels: Record<string, string>) =>
    validate(attrs({ operation: 'UPDATE', resource: 'namespaces', kind: 'Namespace', namespace: 'ns', name: 'ns', object: namespace('ns', labels), oldObject: namespace('ns', old) }));
  const out = await relabel({}, { 'pod-security.kubernetes.io/enforce': 'baseline' });
  assert.deepEqual(out.warnings, [
    'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
    'alpha (and 1 other pod): privileged',
    'rs-1 (and 2 other pods): host namespaces',
  ]);
  // Unchanged, privileged, or relaxed at the same version: nothing is checked.
  assert.deepEqual((await relabel({ 'pod-security.kubernetes.io/enforce': 'baseline' }, { 'pod-security.kubernetes.io/enforce': 'baseline', a: 'b' })).warnings, []);
  assert.deepEqual((await relabel({ 'pod-security.kubernetes.io/enforce': 'restricted' }, { 'pod-security.kubernetes.io/enforce': 'baseline' })).warnings, []);
  // A relaxed level at another version is checked again.
  const pinned = await relabel({ 'pod-security.kubernetes.io/enforce': 'restricted' }, { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30' });
  assert.equal(pinned.warnings[0], 'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:v1.30"');
  existingPods = [];
});

test('the counters as upstream\'s recorder keeps them: a label that does not parse is a non-fatal error, a missing namespace a fatal one, exempt runtime classes an exemption', async () => {
  const recorded: string[] = [];
  const record = (kind: string) => (labels: Record<string, string>) => recorded.push(`${kind} ${Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  const counted = podSecurityAdmission({ namespace: async (name) => namespaces[name], pods: async () => [] }, {
    defaults: { enforce: { level: 'privileged', version: { text: 'latest', minor: Number.POSITIVE_INFINITY } }, audit: { level: 'privileged', version: { text: 'latest', minor: Number.POSITIVE_INFINITY } }, warn: { level: 'privileged', version: { text: 'latest', minor: Number.POSITIVE_INFINITY } } },
    exemptions: { namespaces: [], usernames: [], runtimeClasses: ['kata'] },
  }, { evaluation: record('evaluation'), exemption: record('exemption'), error: record('error') });
  const run = (a: AdmissionAttributes) => runInRequestContext({ user: { name: 'alice', uid: '', groups: [] }, addWarning: () => {} }, async () => {
    try {
      await counted.validate!(a);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
    }
  });
  // "broken": enforce fails closed to restricted, the error counted as not fatal.
  await run(attrs({ namespace: 'broken', object: plainPod }));
  assert.deepEqual(recorded.splice(0), [
    'error fatal=false request_operation=create resource=pod subresource=',
    'evaluation decision=deny policy_level=restricted policy_version=latest mode=enforce request_operation=create resource=pod subresource=',
  ]);
  await run(attrs({ namespace: 'nowhere', object: plainPod }));
  assert.deepEqual(recorded.splice(0), ['error fatal=true request_operation=create resource=pod subresource=']);
  await run(attrs({ namespace: 'strict', object: pod('p', { runtimeClassName: 'kata', containers: [{ name: 'c', image: 'i' }] }) }));
  assert.deepEqual(recorded.splice(0), ['exemption request_operation=create resource=pod subresource=']);
  // A pod controller's template: audit and warn only, counted as upstream labels anything but a pod, `controller`.
  await run(attrs({ namespace: 'mixed', resource: 'deployments', group: 'apps', kind: 'Deployment', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'mixed' }, spec: { template: { spec: privilegedPod.spec } } } }));
  assert.deepEqual(recorded.splice(0), [
    'evaluation decision=deny policy_level=restricted policy_version=v1.24 mode=audit request_operation=create resource=controller subresource=',
    'evaluation decision=deny policy_level=restricted policy_version=latest mode=warn request_operation=create resource=controller subresource=',
  ]);
});
