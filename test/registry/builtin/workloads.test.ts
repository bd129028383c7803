import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const podTemplates = builtinType('podtemplates');
const controllerRevisions = builtinType('controllerrevisions');

function podTemplate(template: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'base', namespace: 'default' }, template: structuredClone(template) } as KubeObject;
}

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };

test('a PodTemplate gets pod template defaults and generation 1', async () => {
  const { obj, causes } = await storeCreate(podTemplates, podTemplate(template));
  assert.deepEqual(causes, []);
  assert.equal(obj.metadata.generation, 1);
  assert.deepEqual((obj as unknown as { template: { spec: Record<string, unknown> } }).template.spec, {
    containers: [{ name: 'web', image: 'nginx', imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }],
    restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler',
  });
});

const invalidTemplates: { name: string; template: Record<string, unknown>; causes: string[] }[] = [
  { name: 'containers are required', template: { spec: {} }, causes: ['template.spec.containers: Required value'] },
  {
    name: 'template labels are checked',
    template: { metadata: { labels: { 'a b': 'x' } }, spec: template.spec },
    causes: ["template.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
  },
];

for (const c of invalidTemplates) {
  test(`PodTemplate validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(podTemplates, podTemplate(c.template))).causes), c.causes);
  });
}

test('a PodTemplate counts generations when its template changes', async () => {
  const { obj: old } = await storeCreate(podTemplates, podTemplate(template));
  const relabelled = podTemplate(template);
  relabelled.metadata.labels = { tier: 'fe' };
  assert.equal((await storeUpdate(podTemplates, relabelled, old)).obj.metadata.generation, 1);
  const changed = podTemplate({ ...template, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } });
  assert.equal((await storeUpdate(podTemplates, changed, old)).obj.metadata.generation, 2);
});

function revision(data: unknown, revisionNumber: unknown): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-1', namespace: 'default' }, data, revision: revisionNumber } as KubeObject;
}

const revisionCases: { name: string; data: unknown; revision: unknown; causes: string[] }[] = [
  { name: 'data is kept as given', data: { spec: { template: { anything: [1, 'two'] } } }, revision: 1, causes: [] },
  { name: 'data is mandatory', data: undefined, revision: 1, causes: ['data: Required value: data is mandatory'] },
  { name: 'the revision may not be negative', data: {}, revision: -1, causes: ['revision: Invalid value: -1: must be greater than or equal to 0'] },
  // Not a pointer: a missing revision decodes as Go's 0, which is valid.
  { name: 'a missing revision is 0', data: {}, revision: undefined, causes: [] },
];

for (const c of revisionCases) {
  test(`ControllerRevision: ${c.name}`, async () => {
    const { obj, causes } = await storeCreate(controllerRevisions, revision(c.data, c.revision));
    assert.deepEqual(fields(causes), c.causes);
    if (c.causes.length === 0) assert.deepEqual((obj as unknown as { data: unknown }).data, c.data);
  });
}

test('a ControllerRevision\'s data is immutable, its revision may change', async () => {
  const { obj: old } = await storeCreate(controllerRevisions, revision({ a: 1 }, 1));
  assert.deepEqual((await storeUpdate(controllerRevisions, revision({ a: 1 }, 2), old)).causes, []);
  assert.deepEqual(fields((await storeUpdate(controllerRevisions, revision({ a: 2 }, 1), old)).causes), [
    'data: Invalid value: {"a":2}: field is immutable',
  ]);
});

test('changed ControllerRevision data is reported as the JSON it holds, keys in their order', async () => {
  const { obj: old } = await storeCreate(controllerRevisions, revision({ a: 1 }, 1));
  assert.deepEqual(fields((await storeUpdate(controllerRevisions, revision({ z: '<b>', a: [1, null] }, 1), old)).causes), [
    'data: Invalid value: {"z":"\\u003cb\\u003e","a":[1,null]}: field is immutable',
  ]);
});
