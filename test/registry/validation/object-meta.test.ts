import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ObjectMeta, StatusCause } from '../../../src/api/index.ts';
import { invalid as invalidError } from '../../../src/api/index.ts';
import { totalAnnotationSizeLimit, validateObjectMeta, validateObjectMetaUpdate } from '../../../src/registry/validation/index.ts';
import { objectMetaJson } from '../../../src/registry/validation/object-meta.ts';
import { goJson } from '../../../src/api/field-errors.ts';

function obj(metadata: ObjectMeta): KubeObject {
  return { metadata };
}

const subdomainRule =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const createCases: { name: string; meta: ObjectMeta; namespaced?: boolean; causes: StatusCause[] }[] = [
  { name: 'a valid object has no causes', meta: { name: 'web', namespace: 'default', labels: { app: 'web' } }, causes: [] },
  {
    name: 'a name breaking the rule is FieldValueInvalid on metadata.name',
    meta: { name: 'Foo_bar', namespace: 'default' },
    causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Foo_bar": ${subdomainRule}` }],
  },
  {
    name: 'a missing name is required',
    meta: { namespace: 'default' },
    causes: [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }],
  },
  {
    name: 'generateName may end in a dash',
    meta: { generateName: 'web-', name: 'web-x7k2p', namespace: 'default' },
    causes: [],
  },
  {
    name: 'a bad generateName is reported on metadata.generateName',
    meta: { generateName: 'Web-', name: 'Web-x7k2p', namespace: 'default' },
    causes: [
      { reason: 'FieldValueInvalid', field: 'metadata.generateName', message: `Invalid value: "Web-": ${subdomainRule}` },
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Web-x7k2p": ${subdomainRule}` },
    ],
  },
  {
    name: 'a namespaced object needs a namespace',
    meta: { name: 'web' },
    causes: [{ reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' }],
  },
  {
    name: 'a cluster-scoped object may not have one',
    meta: { name: 'web', namespace: 'default' },
    namespaced: false,
    causes: [{ reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' }],
  },
  {
    name: 'label keys and values are checked on metadata.labels',
    meta: { name: 'web', namespace: 'default', labels: { 'bad key': 'ok', good: 'bad value' } },
    causes: [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message:
          "Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      },
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message:
          "Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      },
    ],
  },
  {
    name: 'annotation keys are case-insensitive qualified names',
    meta: { name: 'web', namespace: 'default', annotations: { 'Example.COM/Key': 'x' } },
    causes: [],
  },
  {
    name: 'annotations over 256 KiB in all are too long',
    meta: { name: 'web', namespace: 'default', annotations: { a: 'x'.repeat(totalAnnotationSizeLimit) } },
    causes: [{ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }],
  },
  {
    name: 'owner references need apiVersion, kind, name and uid',
    meta: { name: 'web', namespace: 'default', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
    causes: [
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.apiVersion', message: 'Invalid value: "": version must not be empty' },
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.kind', message: 'Invalid value: "": must not be empty' },
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.name', message: 'Invalid value: "": must not be empty' },
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', message: 'Invalid value: "": must not be empty' },
    ],
  },
  {
    name: 'only one owner may be the controller',
    meta: {
      name: 'web',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
      ],
    },
    causes: [{
      reason: 'FieldValueInvalid',
      field: 'metadata.ownerReferences',
      message:
        'Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
    }],
  },
  {
    name: 'an Event may not be an owner',
    meta: { name: 'web', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1', blockOwnerDeletion: false }] },
    causes: [{
      reason: 'FieldValueInvalid',
      field: 'metadata.ownerReferences',
      message: 'Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"1","blockOwnerDeletion":false}: /v1, Kind=Event is disallowed from being an owner',
    }],
  },
  {
    name: 'orphan and foregroundDeletion finalizers exclude each other',
    meta: { name: 'web', namespace: 'default', finalizers: ['orphan', 'foregroundDeletion'] },
    causes: [{
      reason: 'FieldValueInvalid',
      field: 'metadata.finalizers',
      message: 'Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    }],
  },
  {
    name: 'a managed fields entry needs a known operation',
    meta: { name: 'web', namespace: 'default', managedFields: [{ manager: 'm', operation: 'Patch' as 'Apply', fieldsType: 'FieldsV2' }] },
    causes: [
      { reason: 'FieldValueInvalid', field: 'metadata.managedFields[0].operation', message: 'Invalid value: "Patch": must be `Apply` or `Update`' },
      { reason: 'FieldValueInvalid', field: 'metadata.managedFields[0].fieldsType', message: 'Invalid value: "FieldsV2": must be `FieldsV1`' },
    ],
  },
  {
    name: 'a negative generation is invalid',
    meta: { name: 'web', namespace: 'default', generation: -1 },
    causes: [{ reason: 'FieldValueInvalid', field: 'metadata.generation', message: 'Invalid value: -1: must be greater than or equal to 0' }],
  },
];

for (const c of createCases) {
  test(`validateObjectMeta: ${c.name}`, () => {
    assert.deepEqual(validateObjectMeta(obj(c.meta), 'dns1123-subdomain', c.namespaced ?? true), c.causes);
  });
}

test('the causes make upstream\'s 422 message', () => {
  const causes = validateObjectMeta(obj({ name: 'Foo_bar', namespace: 'default' }), 'dns1123-subdomain', true);
  const err = invalidError('ConfigMap', 'Foo_bar', causes);
  assert.equal(err.message, `ConfigMap "Foo_bar" is invalid: metadata.name: Invalid value: "Foo_bar": ${subdomainRule}`);
});

const stored: ObjectMeta = {
  name: 'web', namespace: 'default', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 3, resourceVersion: '5',
};

const updateCases: { name: string; meta: ObjectMeta; old?: ObjectMeta; causes: StatusCause[] }[] = [
  { name: 'an unchanged identity has no causes', meta: { ...stored, labels: { a: 'b' } }, causes: [] },
  {
    name: 'the uid is immutable',
    meta: { ...stored, uid: 'u2' },
    causes: [{ reason: 'FieldValueInvalid', field: 'metadata.uid', message: 'Invalid value: "u2": field is immutable' }],
  },
  {
    name: 'the generation may not go down',
    meta: { ...stored, generation: 2 },
    causes: [{ reason: 'FieldValueInvalid', field: 'metadata.generation', message: 'Invalid value: 2: must not be decremented' }],
  },
  {
    name: 'no finalizers may be added once deleting',
    old: { ...stored, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['a.io/x'] },
    meta: { ...stored, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['a.io/x', 'b.io/y'] },
    causes: [{
      reason: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
    }],
  },
];

for (const c of updateCases) {
  test(`validateObjectMetaUpdate: ${c.name}`, () => {
    assert.deepEqual(validateObjectMetaUpdate(obj(c.meta), obj(c.old ?? stored), true, 'dns1123-subdomain'), c.causes);
  });
}

test('validateObjectMetaUpdate: a generateName set by an update is checked by the path-segment rule, then by the type\'s', () => {
  const meta = { ...stored, generateName: 'a/B-' };
  assert.deepEqual(validateObjectMetaUpdate(obj(meta), obj(stored), true, 'dns1123-subdomain'), [
    { reason: 'FieldValueInvalid', field: 'metadata.generateName', message: 'Invalid value: "a/B-": may not contain \'/\'' },
    { reason: 'FieldValueInvalid', field: 'metadata.generateName', message: `Invalid value: "a/B-": ${subdomainRule}` },
  ]);
  // A custom resource's update checks it by the path-segment rule alone; so does a status write.
  assert.deepEqual(validateObjectMetaUpdate(obj({ ...stored, generateName: 'B-' }), obj(stored), true), []);
});

test('validateObjectMetaUpdate: the new metadata\'s checks come before the update\'s, as upstream\'s validateCommonFields runs them', () => {
  const causes = validateObjectMetaUpdate(obj({ ...stored, uid: 'u2', labels: { 'a b': 'c' } }), obj(stored), true, 'dns1123-subdomain');
  assert.deepEqual(causes.map((c) => c.field), ['metadata.labels', 'metadata.uid']);
  assert.match(invalidError('ConfigMap', 'web', causes).message, /^ConfigMap "web" is invalid: \[metadata\.labels: Invalid value: "a b": .*, metadata\.uid: Invalid value: "u2": field is immutable\]$/);
});

const metaJsonCases: { name: string; meta: ObjectMeta; json: object }[] = [
  { name: 'an empty ObjectMeta still has its creationTimestamp', meta: {}, json: { creationTimestamp: null } },
  {
    name: 'json names in declaration order, zero values left out, set pointers kept',
    meta: {
      managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: {} }], labels: { b: '2', a: '1' }, generation: 0,
      deletionGracePeriodSeconds: 0, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: false }], name: 'x', namespace: '',
      creationTimestamp: '2024-01-01T00:00:00Z', finalizers: [],
    },
    json: {
      name: 'x', creationTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 0, labels: { a: '1', b: '2' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: false }],
      managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: {} }],
    },
  },
];

for (const c of metaJsonCases) {
  test(`objectMetaJson: ${c.name}`, () => {
    // Key order matters: compare the JSON text.
    assert.equal(goJson(objectMetaJson(c.meta)).text, JSON.stringify(c.json));
  });
}

test('objectMetaJson: label and annotation keys sorted as Go sorts a map\'s, integer-like keys too', () => {
  assert.equal(goJson(objectMetaJson({ name: 'x', labels: { b: '1', 10: '2', 9: '3' } })).text, '{"name":"x","creationTimestamp":null,"labels":{"10":"2","9":"3","b":"1"}}');
});

test('a long list in the metadata is causes per entry (a quarter million finalizers, labels, owner references), not a stack overflow', () => {
  const n = 250_000;
  const causes = validateObjectMeta(obj({
    name: 'web', namespace: 'default', finalizers: Array.from({ length: n }, () => ''),
    labels: Object.fromEntries(Array.from({ length: n }, (_, i) => [`-${i}`, ''])),
    ownerReferences: Array.from({ length: n }, () => ({}) as never),
  }), 'dns1123-subdomain', true);
  const count = (field: string) => causes.filter((c) => c.field === field).length;
  assert.equal(count('metadata.finalizers'), 2 * n, 'empty, and not a qualified name');
  assert.equal(count('metadata.labels'), n);
  assert.equal(count('metadata.ownerReferences.uid'), n);
});
