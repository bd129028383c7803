// PodSecurity's configuration (PodSecurityConfiguration of --admission-control-config-file):
// reading it as kube-apiserver does (strict decoding, defaults, ToPolicy, validation and
// their error texts), the configured defaults under a namespace's labels, the exempt
// namespaces, users and runtime classes with their audit annotation, and the warning when
// an exempt namespace is given a policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { StatusError } from '../../src/api/index.ts';
import type { JsonObject } from '../../src/api/json.ts';
import { runInRequestContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import {
  defaultPodSecurityConfiguration, parsePodSecurityConfiguration, podSecurityAdmission, type PodSecurityConfiguration,
} from '../../src/admission/pod-security/plugin.ts';
import { defaultPolicy, levelVersionString, policyToEvaluate, type Policy } from '../../src/admission/pod-security/levels.ts';

const apiVersion = 'pod-security.admission.config.k8s.io/v1';
const kind = 'PodSecurityConfiguration';

/** A configuration as mode → "level:version" strings, for comparing at a glance. */
function summary(configuration: PodSecurityConfiguration) {
  const { enforce, audit, warn } = configuration.defaults;
  return { enforce: levelVersionString(enforce), audit: levelVersionString(audit), warn: levelVersionString(warn), exemptions: configuration.exemptions };
}

const noExemptions = { usernames: [], namespaces: [], runtimeClasses: [] };

test('a configuration is read with the defaults of each version for what it leaves out', () => {
  const cases: { name: string; value: unknown; expected: ReturnType<typeof summary> }[] = [
    { name: 'no configuration', value: undefined, expected: { enforce: 'privileged:latest', audit: 'privileged:latest', warn: 'privileged:latest', exemptions: noExemptions } },
    { name: 'type only', value: { apiVersion, kind }, expected: { enforce: 'privileged:latest', audit: 'privileged:latest', warn: 'privileged:latest', exemptions: noExemptions } },
    {
      name: 'v1, every field',
      value: {
        apiVersion, kind,
        defaults: { enforce: 'baseline', 'enforce-version': 'v1.30', audit: 'restricted', 'audit-version': 'latest', warn: 'restricted', 'warn-version': 'v1.0' },
        exemptions: { usernames: ['admin'], namespaces: ['kube-system'], runtimeClasses: ['kata.io'] },
      },
      expected: { enforce: 'baseline:v1.30', audit: 'restricted:latest', warn: 'restricted:v1.0', exemptions: { usernames: ['admin'], namespaces: ['kube-system'], runtimeClasses: ['kata.io'] } },
    },
    {
      name: 'v1beta1, empty and null fields defaulted',
      value: { apiVersion: 'pod-security.admission.config.k8s.io/v1beta1', kind, defaults: { enforce: '', 'enforce-version': 'v1.25', warn: null }, exemptions: { usernames: null } },
      expected: { enforce: 'privileged:v1.25', audit: 'privileged:latest', warn: 'privileged:latest', exemptions: noExemptions },
    },
    {
      name: 'v1alpha1',
      value: { apiVersion: 'pod-security.admission.config.k8s.io/v1alpha1', kind, defaults: { audit: 'baseline' } },
      expected: { enforce: 'privileged:latest', audit: 'baseline:latest', warn: 'privileged:latest', exemptions: noExemptions },
    },
  ];
  for (const c of cases) assert.deepEqual(summary(parsePodSecurityConfiguration(c.value)), c.expected, c.name);
  assert.equal(parsePodSecurityConfiguration(undefined), defaultPodSecurityConfiguration);
});

const initFailed = 'failed to initialize admission plugin "PodSecurity": ';
const decodeFailed = 'couldn\'t init admission plugin "PodSecurity": ';
const labelRegexError = 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character '
  + '(e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')';

test('an invalid configuration fails with kube-apiserver\'s message', () => {
  const cases: { name: string; value: unknown; message: string }[] = [
    {
      name: 'an unknown level',
      value: { apiVersion, kind, defaults: { enforce: 'strict' } },
      message: `${initFailed}PodSecurity configuration error: enforce: must be one of privileged, baseline, restricted`,
    },
    {
      name: 'several bad levels and versions, in ToPolicy\'s order',
      value: { apiVersion, kind, defaults: { warn: 'loud', 'enforce-version': 'v2.0', audit: 'strict' } },
      message: `${initFailed}PodSecurity configuration error: [enforce-version: must be "latest" or "v1.x", audit: must be one of privileged, baseline, restricted, warn: must be one of privileged, baseline, restricted]`,
    },
    {
      name: 'invalid and duplicate exemptions',
      value: { apiVersion, kind, exemptions: { usernames: ['', 'bob', 'bob'], namespaces: ['Bad_NS', 'a', 'a'], runtimeClasses: ['x', 'x'] } },
      message: `${initFailed}PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": ${labelRegexError}, exemptions.namespaces[2]: Duplicate value: "a", `
        + 'exemptions.runtimeClasses[1]: Duplicate value: "x", exemptions.usernames[0]: Invalid value: "": username must not be empty, exemptions.usernames[2]: Duplicate value: "bob"]',
    },
    {
      name: 'a namespace with dots',
      value: { apiVersion, kind, exemptions: { namespaces: ['a.b'] } },
      message: `${initFailed}PodSecurity invalid: exemptions.namespaces[0]: Invalid value: "a.b": must not contain dots`,
    },
    { name: 'an unknown field', value: { apiVersion, kind, defaults: { enforced: 'baseline' }, extra: 1 }, message: `${decodeFailed}strict decoding error: unknown field "defaults.enforced", unknown field "extra"` },
    { name: 'a field of the wrong type', value: { apiVersion, kind, defaults: { enforce: 1 } }, message: `${decodeFailed}json: cannot unmarshal number into Go struct field PodSecurityDefaults.defaults.enforce of type string` },
    { name: 'a list that is not one', value: { apiVersion, kind, exemptions: { usernames: 'bob' } }, message: `${decodeFailed}json: cannot unmarshal string into Go struct field PodSecurityExemptions.exemptions.usernames of type []string` },
    {
      name: 'another group\'s version',
      value: { apiVersion: 'pod-security.admission.config.k8s.io/v2', kind },
      message: `${decodeFailed}no kind "PodSecurityConfiguration" is registered for version "pod-security.admission.config.k8s.io/v2" in scheme "k8s.io/pod-security-admission/admission/api/scheme/scheme.go:31"`,
    },
    { name: 'no kind', value: { apiVersion }, message: `${decodeFailed}Object 'Kind' is missing in '{"apiVersion":"pod-security.admission.config.k8s.io/v1"}'` },
  ];
  for (const c of cases) assert.throws(() => parsePodSecurityConfiguration(c.value), { message: c.message }, c.name);
});

function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

const namespaces: Record<string, KubeObject> = {
  plain: namespace('plain'),
  'warn-only': namespace('warn-only', { 'pod-security.kubernetes.io/warn': 'baseline' }),
  open: namespace('open', { 'pod-security.kubernetes.io/enforce': 'privileged' }),
  locked: namespace('locked', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.30' }),
  'kube-system': namespace('kube-system'),
};
let existingPods: KubeObject[] = [];
const configuration = parsePodSecurityConfiguration({
  apiVersion, kind,
  defaults: { enforce: 'baseline', audit: 'restricted', 'audit-version': 'v1.24', warn: 'restricted' },
  exemptions: { usernames: ['admin'], namespaces: ['kube-system'], runtimeClasses: ['kata'] },
});
const plugin = podSecurityAdmission({ namespace: async (name) => namespaces[name], pods: async () => existingPods }, configuration);

function pod(spec: JsonObject): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec };
}
const privilegedPod = pod({ containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] });
const plainPod = pod({ containers: [{ name: 'c', image: 'i' }] });

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod', namespace: 'plain', name: 'p',
    object: plainPod, oldObject: undefined, dryRun: false, namespaced: true, ...over,
  };
}

interface Outcome {
  error?: string;
  warnings: string[];
  annotations: Record<string, string>;
}

/** Runs the plugin's validate as `user` would (no request at all when undefined). */
async function validate(a: AdmissionAttributes, user: string | undefined = 'alice'): Promise<Outcome> {
  const outcome: Outcome = { warnings: [], annotations: {} };
  const run = async () => {
    try {
      await plugin.validate!(a);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      outcome.error = err.message;
    }
  };
  if (user === undefined) await run();
  else {
    await runInRequestContext({
      user: { name: user, uid: '', groups: [] },
      addWarning: (text: string) => outcome.warnings.push(text),
      addAuditAnnotation: (key: string, value: string) => { outcome.annotations[key] = value; },
    }, run);
  }
  return outcome;
}

const baselineRefusal = 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)';

test('a namespace\'s labels override the configured defaults mode by mode', async () => {
  const cases: { name: string; namespace: string; pod: KubeObject; error?: string; warning?: RegExp; enforced: string; audited?: RegExp }[] = [
    { name: 'no labels: the defaults refuse', namespace: 'plain', pod: privilegedPod, error: baselineRefusal, enforced: 'baseline:latest', audited: /^would violate PodSecurity "restricted:v1.24": privileged/ },
    { name: 'no labels: the default warn level warns', namespace: 'plain', pod: plainPod, warning: /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/, enforced: 'baseline:latest', audited: /^would violate PodSecurity "restricted:v1.24": allowPrivilegeEscalation/ },
    { name: 'a warn label leaves the default enforce level', namespace: 'warn-only', pod: privilegedPod, error: baselineRefusal, enforced: 'baseline:latest', audited: /restricted:v1.24/ },
    { name: 'a warn label replaces the default warn level', namespace: 'warn-only', pod: plainPod, enforced: 'baseline:latest', audited: /restricted:v1.24/ },
    { name: 'an enforce label replaces the default enforce level', namespace: 'open', pod: privilegedPod, warning: /^would violate PodSecurity "restricted:latest": privileged/, enforced: 'privileged:latest', audited: /restricted:v1.24/ },
    { name: 'an enforce level and version label replace both defaults', namespace: 'locked', pod: privilegedPod, error: 'pods "p" is forbidden: violates PodSecurity "restricted:v1.30": privileged', enforced: 'restricted:v1.30', audited: /restricted:v1.24/ },
  ];
  for (const c of cases) {
    const out = await validate(attrs({ namespace: c.namespace, object: c.pod }));
    if (c.error === undefined) assert.equal(out.error, undefined, c.name);
    else assert.ok(out.error?.startsWith(c.error), `${c.name}: ${out.error}`);
    if (c.warning === undefined) assert.deepEqual(out.warnings, [], c.name);
    else assert.match(out.warnings.join('\n'), c.warning, c.name);
    assert.equal(out.annotations['pod-security.kubernetes.io/enforce-policy'], c.enforced, c.name);
    if (c.audited !== undefined) assert.match(out.annotations['pod-security.kubernetes.io/audit-violations'] ?? '', c.audited, c.name);
  }
  // Templates are warned by the default warn level.
  const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: privilegedPod.spec } } };
  const templated = await validate(attrs({ group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd', object: deployment }));
  assert.match(templated.warnings[0] ?? '', /^would violate PodSecurity "restricted:latest": privileged/);
  // An enforce label raises warn only above the default warn level: restricted is not above restricted.
  const locked = await validate(attrs({ group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd', namespace: 'locked', object: deployment }));
  assert.match(locked.warnings[0] ?? '', /^would violate PodSecurity "restricted:latest": privileged/);
});

test('exempt namespaces, users and runtime classes are let through unevaluated, audited with the reason', async () => {
  const deployment = (spec: JsonObject): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec } } });
  const kata = { ...privilegedPod.spec as JsonObject, runtimeClassName: 'kata' };
  const cases: { name: string; attrs: Partial<AdmissionAttributes>; user?: string; exempt: string }[] = [
    { name: 'a pod in an exempt namespace', attrs: { namespace: 'kube-system', object: privilegedPod }, exempt: 'namespace' },
    { name: 'a pod by an exempt user', attrs: { object: privilegedPod }, user: 'admin', exempt: 'user' },
    { name: 'the namespace is checked before the user', attrs: { namespace: 'kube-system', object: privilegedPod }, user: 'admin', exempt: 'namespace' },
    { name: 'an exempt user needs no namespace', attrs: { namespace: 'gone', object: privilegedPod }, user: 'admin', exempt: 'user' },
    { name: 'a pod of an exempt runtime class', attrs: { object: pod(kata) }, exempt: 'runtimeClass' },
    { name: 'a template in an exempt namespace', attrs: { group: 'apps', resource: 'deployments', kind: 'Deployment', namespace: 'kube-system', object: deployment(privilegedPod.spec as JsonObject) }, exempt: 'namespace' },
    { name: 'a template by an exempt user', attrs: { group: 'apps', resource: 'deployments', kind: 'Deployment', object: deployment(privilegedPod.spec as JsonObject) }, user: 'admin', exempt: 'user' },
    { name: 'a template of an exempt runtime class', attrs: { group: 'apps', resource: 'deployments', kind: 'Deployment', object: deployment(kata) }, exempt: 'runtimeClass' },
  ];
  for (const c of cases) {
    assert.deepEqual(await validate(attrs(c.attrs), c.user), { warnings: [], annotations: { 'pod-security.kubernetes.io/exempt': c.exempt } }, c.name);
  }
  // Another runtime class, and in-process writes (no request, so no user), are evaluated.
  assert.equal((await validate(attrs({ object: pod({ ...kata, runtimeClassName: 'gvisor' }) }))).error?.startsWith(baselineRefusal), true);
  await assert.rejects(async () => plugin.validate!(attrs({ object: privilegedPod })), /violates PodSecurity "baseline:latest"/);
});

test('labelling an exempt namespace with a policy warns that it will be ignored', async () => {
  const create = (labels: Record<string, string>) =>
    validate(attrs({ resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'kube-system', namespaced: false, object: namespace('kube-system', labels) }));
  const ignored = (policy: string) => [`namespace "kube-system" is exempt from Pod Security, and the policy (${policy}) will be ignored`];
  const cases: { name: string; labels: Record<string, string>; warnings: string[] }[] = [
    { name: 'no labels', labels: {}, warnings: [] },
    { name: 'the defaults again', labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted' }, warnings: [] },
    { name: 'fully privileged', labels: { 'pod-security.kubernetes.io/enforce': 'privileged', 'pod-security.kubernetes.io/audit': 'privileged', 'pod-security.kubernetes.io/warn': 'privileged' }, warnings: [] },
    { name: 'a stricter enforce level', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' }, warnings: ignored('enforce=restricted:latest') },
    {
      name: 'every mode labelled',
      labels: { 'pod-security.kubernetes.io/enforce-version': 'v1.29', 'pod-security.kubernetes.io/audit': 'baseline', 'pod-security.kubernetes.io/warn': 'baseline' },
      warnings: ignored('enforce=baseline:v1.29, audit=baseline:v1.24, warn=baseline:latest'),
    },
    { name: 'only privileged modes labelled', labels: { 'pod-security.kubernetes.io/enforce': 'privileged' }, warnings: ignored('') },
  ];
  for (const c of cases) assert.deepEqual((await create(c.labels)).warnings, c.warnings, c.name);
  // Invalid labels are refused all the same.
  assert.match((await create({ 'pod-security.kubernetes.io/enforce': 'strict' })).error ?? '', /is invalid/);

  // On update the warning replaces the check of existing pods, and only when enforce is raised.
  existingPods = [pod(privilegedPod.spec as JsonObject)];
  const update = (name: string, old: Record<string, string>, labels: Record<string, string>) =>
    validate(attrs({ operation: 'UPDATE', resource: 'namespaces', kind: 'Namespace', namespace: '', name, namespaced: false, object: namespace(name, labels), oldObject: namespace(name, old) }));
  assert.deepEqual((await update('kube-system', {}, { 'pod-security.kubernetes.io/enforce': 'restricted' })).warnings, ignored('enforce=restricted:latest'));
  assert.deepEqual((await update('kube-system', {}, { 'pod-security.kubernetes.io/warn': 'baseline' })).warnings, [], 'enforce unchanged');
  assert.deepEqual((await update('plain', {}, { 'pod-security.kubernetes.io/enforce': 'restricted' })).warnings.slice(0, 2), [
    'existing pods in namespace "plain" violate the new PodSecurity enforce level "restricted:latest"',
    'p: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
  ]);
  // Existing pods of an exempt runtime class are not checked.
  existingPods = [pod({ ...privilegedPod.spec as JsonObject, runtimeClassName: 'kata' })];
  assert.deepEqual((await update('plain', {}, { 'pod-security.kubernetes.io/enforce': 'restricted' })).warnings, []);
  existingPods = [];
});

test('an enforce label stricter than the warn level raises warn to it, unless warn is labelled', () => {
  const p = 'pod-security.kubernetes.io/';
  const shown = (policy: Policy) => [policy.enforce, policy.audit, policy.warn].map(levelVersionString).join(' ');
  const cases: { name: string; labels: Record<string, string>; defaults?: Policy; expected: string }[] = [
    { name: 'simple enforce', labels: { [`${p}enforce`]: 'baseline' }, expected: 'baseline:latest privileged:latest baseline:latest' },
    { name: 'enforce version', labels: { [`${p}enforce`]: 'baseline', [`${p}enforce-version`]: 'v1.22' }, expected: 'baseline:v1.22 privileged:latest baseline:v1.22' },
    { name: 'enforce and warn-version', labels: { [`${p}enforce`]: 'baseline', [`${p}warn-version`]: 'v1.23' }, expected: 'baseline:latest privileged:latest baseline:v1.23' },
    { name: 'enforce-version alone', labels: { [`${p}enforce-version`]: 'v1.22' }, expected: 'privileged:v1.22 privileged:latest privileged:latest' },
    { name: 'warn labelled privileged', labels: { [`${p}enforce`]: 'baseline', [`${p}warn`]: 'privileged' }, expected: 'baseline:latest privileged:latest privileged:latest' },
    { name: 'warn label invalid', labels: { [`${p}enforce`]: 'baseline', [`${p}warn`]: 'foo' }, expected: 'baseline:latest privileged:latest privileged:latest' },
    { name: 'enforce label invalid', labels: { [`${p}enforce`]: 'foo' }, expected: 'restricted:latest privileged:latest privileged:latest' },
    { name: 'configured warn already stricter', labels: { [`${p}enforce`]: 'baseline' }, defaults: configuration.defaults, expected: 'baseline:latest restricted:v1.24 restricted:latest' },
    {
      name: 'configured warn less strict',
      labels: { [`${p}enforce`]: 'restricted' },
      defaults: { ...defaultPolicy, warn: { level: 'baseline', version: { text: 'v1.20', minor: 20 } } },
      expected: 'restricted:latest privileged:latest restricted:latest',
    },
  ];
  for (const c of cases) assert.equal(shown(policyToEvaluate(c.labels, c.defaults).policy), c.expected, c.name);
});
