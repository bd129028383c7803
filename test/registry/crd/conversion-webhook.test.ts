// A conversion webhook's answer checked as upstream's webhook converter checks it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conversionWebhookOf, convertedObjectsOf, restoreConverted } from '../../../src/registry/crd/conversion-webhook.ts';

const v1Review = (response: unknown) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response });

test('a v1 answer: its kind, uid and result', () => {
  const ok = { uid: 'u', result: { status: 'Success' }, convertedObjects: [{ a: 1 }] };
  assert.deepEqual(convertedObjectsOf('v1', 'u', v1Review(ok)), [{ a: 1 }]);
  // Without apiVersion and kind the body decodes as the kind asked for.
  assert.deepEqual(convertedObjectsOf('v1', 'u', { response: ok }), [{ a: 1 }]);
  const refusals: Array<[unknown, string]> = [
    [{ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview', response: ok }, 'expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview'],
    [v1Review(undefined), 'no response provided'],
    [v1Review({ ...ok, uid: 'other' }), 'expected response.uid="u", got "other"'],
    [v1Review({ uid: 'u', result: { status: 'Failure', message: 'no' } }), 'no'],
    [v1Review({ uid: 'u', result: { status: 'Failure' } }), "response.result.status was 'Failure', not 'Success'"],
    [v1Review({ uid: 'u' }), "response.result.status was '', not 'Success'"],
  ];
  for (const [body, message] of refusals) assert.throws(() => convertedObjectsOf('v1', 'u', body), { message });
});

test('a v1beta1 answer is not checked for its uid', () => {
  assert.deepEqual(convertedObjectsOf('v1beta1', 'u', { response: { result: { status: 'Success' }, convertedObjects: [] } }), []);
});

test('a converted object keeps the original metadata but its labels and annotations', () => {
  const original = { apiVersion: 'g/v1', kind: 'W', metadata: { name: 'a', namespace: 'ns', uid: '1', generation: 2, labels: { old: 'x' }, annotations: { keep: 'y' } } };
  const converted: Record<string, any> = { apiVersion: 'g/v2', kind: 'W', metadata: { name: 'a', namespace: 'ns', uid: '1', generation: 9, labels: { new: 'z' } } };
  assert.equal(restoreConverted(original, converted), undefined);
  assert.deepEqual(converted.metadata, { name: 'a', namespace: 'ns', uid: '1', generation: 2, labels: { new: 'z' } });
  const cases: Array<[Record<string, unknown>, unknown]> = [
    [{ kind: 'X', metadata: { name: 'a', namespace: 'ns', uid: '1' } }, { invalid: 'must have the same kind: W != X' }],
    [{ kind: 'W', metadata: { name: 'a', namespace: 'other', uid: '1' } }, { invalid: 'must have the same namespace: ns != other' }],
    [{ kind: 'W', metadata: { name: 'a', namespace: 'ns', uid: '2' } }, { invalid: 'must have the same UID: 1 != 2' }],
    [{ kind: 'W', metadata: { name: 'a', namespace: 'ns', uid: '1', labels: { a: 1 } } }, { metadata: 'metadata.labels[a] must be a string, but is int64 in converted object' }],
    [{ kind: 'W', metadata: { name: 'a', namespace: 'ns', uid: '1', annotations: ['x'] } }, { metadata: 'invalid metadata.annotations of type []interface {} in converted object' }],
  ];
  for (const [obj, refusal] of cases) assert.deepEqual(restoreConverted(original, obj), refusal);
  // Metadata is checked once the names matched: without the original's name it is refused above.
  assert.deepEqual(restoreConverted({ apiVersion: 'g/v1', kind: 'W', metadata: {} }, { kind: 'W' }), { metadata: 'missing metadata in converted object' });
});

test('a CRD\'s conversion as a webhook configuration', () => {
  assert.equal(conversionWebhookOf('w.g', { strategy: 'None' }), undefined);
  assert.deepEqual(conversionWebhookOf('w.g', {
    strategy: 'Webhook',
    webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv' }, caBundle: Buffer.from('PEM').toString('base64') }, conversionReviewVersions: ['v1'] },
  }), { crdName: 'w.g', reviewVersions: ['v1'], service: { namespace: 'ns', name: 'conv', port: 443 }, caPem: 'PEM' });
});
