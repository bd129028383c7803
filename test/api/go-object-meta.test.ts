// Metadata as decoding it into metav1.ObjectMeta checks it: Go's error for the first member
// of the wrong type, naming the struct that holds it and the JSON path to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectMetaDecodeError } from '../../src/api/go-object-meta.ts';

test('well-typed metadata, nulls included, decodes', () => {
  assert.equal(objectMetaDecodeError({
    name: 'a', uid: 'u', generation: 3, labels: { a: 'b', c: null }, finalizers: ['f', null], creationTimestamp: null,
    ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: true }],
    managedFields: [{ manager: 'm', operation: 'Update', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }],
  }), undefined);
});

test('each member of the wrong type is Go\'s UnmarshalTypeError', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ generation: 'x' }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64'],
    [{ generation: 1.5 }, 'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64'],
    [{ uid: 5 }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID'],
    [{ deletionGracePeriodSeconds: true }, 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type int64'],
    [{ labels: ['a'] }, 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
    [{ annotations: { a: 1 } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string'],
    [{ finalizers: 'f' }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'],
    [{ finalizers: [true] }, 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.finalizers of type string'],
    [{ ownerReferences: [5] }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference'],
    [{ ownerReferences: [{ apiVersion: 5 }] }, 'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.apiVersion of type string'],
    [{ ownerReferences: [{ uid: 7 }] }, 'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID'],
    [{ ownerReferences: [{ controller: 'yes' }] }, 'json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool'],
    [{ managedFields: 'x' }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry'],
    [{ managedFields: [{ manager: ['x'] }] }, 'json: cannot unmarshal array into Go struct field ManagedFieldsEntry.metadata.managedFields.manager of type string'],
    [{ managedFields: [{ operation: {} }] }, 'json: cannot unmarshal object into Go struct field ManagedFieldsEntry.metadata.managedFields.operation of type v1.ManagedFieldsOperationType'],
    // A time decodes itself, out of context, and stops the decoder: it is met before the rest.
    [{ generation: 'x', creationTimestamp: 0 }, 'json: cannot unmarshal number into Go value of type string'],
    [{ managedFields: [{ time: true }] }, 'json: cannot unmarshal bool into Go value of type string'],
  ];
  for (const [meta, error] of cases) assert.equal(objectMetaDecodeError(meta), error, JSON.stringify(meta));
});
