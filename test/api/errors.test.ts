import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, methodNotAllowed, notFound, staleObject, StatusError } from '../../src/api/index.ts';

test('notFound names the group-qualified resource like upstream', () => {
  const status = notFound({ group: 'apps', resource: 'deployments' }, 'web').toStatus();
  assert.equal(status.code, 404);
  assert.equal(status.reason, 'NotFound');
  assert.equal(status.message, 'deployments.apps "web" not found');
  assert.deepEqual(status.details, { name: 'web', group: 'apps', kind: 'deployments' });
});

test('a stale write is a 409 Conflict with upstream wording', () => {
  const err = staleObject({ group: '', resource: 'configmaps' }, 'c');
  assert.equal(err.code, 409);
  assert.match(err.message, /^Operation cannot be fulfilled on configmaps "c": the object has been modified/);
});

test('invalid lists every cause in the message', () => {
  const err = invalid('Pod', 'p', [
    { reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' },
    { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'bad' },
  ]);
  assert.equal(err.code, 422);
  assert.equal(err.message, 'Pod "p" is invalid: [spec.containers: Required value, metadata.name: bad]');
  assert.equal(err.details?.causes?.length, 2);
});

test('a Status without a reason leaves the field out, as upstream', () => {
  const status = new StatusError(500, '', 'boom').toStatus();
  assert.equal('reason' in status, false);
  assert.equal(status.code, 500);
});

test('a Status\'s fields come in metav1.Status\'s order: reason and details before code', () => {
  assert.deepEqual(Object.keys(notFound({ group: '', resource: 'pods' }, 'p').toStatus()), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
  assert.deepEqual(Object.keys(new StatusError(500, '', 'boom').toStatus()), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'code']);
});

test('methodNotAllowed is go-restful\'s 405 as kube-apiserver writes it: its message, empty details', () => {
  assert.equal(JSON.stringify(methodNotAllowed().toStatus()),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}');
});

test('details and their causes are written in metav1\'s field order, whatever order they were made in', () => {
  assert.equal(JSON.stringify(notFound({ group: 'apps', resource: 'deployments' }, 'web').toStatus().details), '{"name":"web","group":"apps","kind":"deployments"}');
  const status = invalid('Deployment', 'web', [{ field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'Invalid value: -1' }], 'apps').toStatus();
  assert.equal(JSON.stringify(status.details), '{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1","field":"spec.replicas"}]}');
  assert.equal(JSON.stringify(new StatusError(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 1, kind: 'pods', name: 'p' }).toStatus().details), '{"name":"p","kind":"pods","retryAfterSeconds":1}');
  assert.equal(JSON.stringify(new StatusError(405, 'MethodNotAllowed', 'no', {}).toStatus().details), '{}');
});
