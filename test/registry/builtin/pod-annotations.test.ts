// The annotations only pods and pod templates have rules for, as upstream's
// ValidatePodSpecificAnnotations (create, and every pod template) and
// ValidatePodSpecificAnnotationUpdates (pod updates) check them: causes compared exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { builtinType, storeCreate, storeUpdate } from '../../helpers/store.ts';

const pods = builtinType('pods');
const deployments = builtinType('deployments');

function pod(annotations: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', annotations }, spec: { containers: [{ name: 'app', image: 'nginx:1' }], ...spec } };
}

const show = (c: StatusCause) => `${c.reason} ${c.field}: ${c.message}`;
const created = async (obj: KubeObject) => (await storeCreate(pods, obj)).causes.map(show);

test('a new pod: the deletion cost must be a canonical 32-bit integer', async () => {
  assert.deepEqual(await created(pod({ 'controller.kubernetes.io/pod-deletion-cost': '-2147483648' })), []);
  for (const cost of ['abc', '+1', '007', '2147483648', '1.5']) {
    assert.deepEqual(await created(pod({ 'controller.kubernetes.io/pod-deletion-cost': cost })), [
      `FieldValueInvalid metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "${cost}": must be a 32bit integer`,
    ], cost);
  }
});

test('a new pod: seccomp annotations name a profile, the container ones too', async () => {
  assert.deepEqual(await created(pod({ 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/app': 'localhost/profiles/a.json' })), []);
  assert.deepEqual(await created(pod({
    'seccomp.security.alpha.kubernetes.io/pod': 'strict',
    'container.seccomp.security.alpha.kubernetes.io/app': 'localhost//etc/x',
    'container.seccomp.security.alpha.kubernetes.io/b': 'localhost/../x',
  })), [
    'FieldValueInvalid metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "strict": must be a valid seccomp profile',
    'FieldValueInvalid metadata.annotations.container.seccomp.security.alpha.kubernetes.io/app: Invalid value: "/etc/x": must be a relative path',
    'FieldValueInvalid metadata.annotations.container.seccomp.security.alpha.kubernetes.io/b: Invalid value: "../x": must not contain \'..\'',
  ]);
});

test('a new pod: AppArmor annotations name a container of the pod and a profile', async () => {
  assert.deepEqual(await created(pod({ 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' })), []);
  assert.deepEqual(await created(pod({ 'container.apparmor.security.beta.kubernetes.io/other': 'runtime/default', 'container.apparmor.security.beta.kubernetes.io/app': 'strict' })), [
    'FieldValueInvalid metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: Invalid value: "strict": invalid AppArmor profile name: "strict"',
    'FieldValueInvalid metadata.annotations[container.apparmor.security.beta.kubernetes.io/other]: Invalid value: "other": container not found',
  ]);
});

test('a new pod: tolerations in the alpha annotation are decoded and validated as Go decodes them', async () => {
  const tolerations = (value: string) => created(pod({ 'scheduler.alpha.kubernetes.io/tolerations': value }));
  assert.deepEqual(await tolerations('[{"key":"k","operator":"Exists","effect":"NoSchedule"}]'), []);
  assert.deepEqual(await tolerations('[{"key":"k","operator":"Maybe"}]'), [
    'FieldValueNotSupported metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
  ]);
  assert.deepEqual(await tolerations('[{"key":'), [
    'FieldValueInvalid metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": unexpected end of JSON input',
  ]);
  assert.deepEqual(await tolerations('{"key":"k"}'), [
    'FieldValueInvalid metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal object into Go value of type []core.Toleration',
  ]);
  assert.deepEqual(await tolerations('[{"key":1}]'), [
    'FieldValueInvalid metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal number into Go struct field Toleration.key of type string',
  ]);
});

test('a new pod: the mirror pod annotation needs a node', async () => {
  assert.deepEqual(await created(pod({ 'kubernetes.io/config.mirror': 'x' })), [
    'FieldValueInvalid metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
  ]);
});

test('a pod update may not add AppArmor annotations; an invalid deletion cost it had may stay, a valid one may not turn invalid', async () => {
  // As stored: defaulted by a create, then given the annotations (an older server's write).
  const stored = (await storeCreate(pods, pod({}))).obj;
  const annotated = (annotations: Record<string, string>): KubeObject => ({ ...stored, metadata: { ...stored.metadata, annotations } });
  const update = async (next: Record<string, string>, prev: Record<string, string>) => (await storeUpdate(pods, annotated(next), annotated(prev))).causes.map(show);
  assert.deepEqual(await update({ 'controller.kubernetes.io/pod-deletion-cost': 'abc', 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' }, { 'controller.kubernetes.io/pod-deletion-cost': 'abc' }), [
    'FieldValueForbidden metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]: Forbidden: may not add AppArmor annotations',
  ]);
  assert.deepEqual(await update({ 'controller.kubernetes.io/pod-deletion-cost': 'x' }, { 'controller.kubernetes.io/pod-deletion-cost': '1' }), [
    'FieldValueInvalid metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "x": must be a 32bit integer',
  ]);
  assert.deepEqual(await update({ 'controller.kubernetes.io/pod-deletion-cost': 'abc', other: 'y' }, { 'controller.kubernetes.io/pod-deletion-cost': 'abc' }), []);
});

test("a pod template's annotations are held to the same rules, at the template's path", async () => {
  const deployment: KubeObject = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' }, annotations: { 'controller.kubernetes.io/pod-deletion-cost': 'many', 'container.apparmor.security.beta.kubernetes.io/nope': 'unconfined' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
      },
    },
  };
  assert.deepEqual((await storeCreate(deployments, deployment)).causes.map(show), [
    'FieldValueInvalid spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "many": must be a 32bit integer',
    'FieldValueInvalid spec.template.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "nope": container not found',
  ]);
});

test('a new pod or template: seccomp and AppArmor annotations must agree with the profile fields they stand beside', async () => {
  assert.deepEqual(await created(pod(
    { 'seccomp.security.alpha.kubernetes.io/pod': 'docker/default', 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/a' },
    { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'app', image: 'nginx:1', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'a' } } }] },
  )), []);
  assert.deepEqual(await created(pod(
    { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/app': 'localhost/x', 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' },
    {
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      // A container field (a lone annotation would become one on create, as upstream's version skew handling does).
      containers: [{ name: 'app', image: 'nginx:1', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'y' }, appArmorProfile: { type: 'Unconfined' } } }],
    },
  )), [
    'FieldValueForbidden spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match',
    'FieldValueForbidden spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match',
    'FieldValueForbidden spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match',
  ]);
  const deployment: KubeObject = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' }, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1', securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }] },
      },
    },
  };
  assert.deepEqual((await storeCreate(deployments, deployment)).causes.map(show), [
    'FieldValueForbidden spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match',
  ]);
});
