// status.declaredFeatures of a Node, checked as v1.36's validateNodeDeclaredFeatures checks
// it (pkg/apis/core/validation/validation.go): on create (ValidateNode), on nodes/status
// (ValidateNodeUpdate), and on a PUT, which runs both over the stored status it keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { defaultNodeFeatures } from '../../../src/api/node-declared-features.ts';
import { builtinType, storeCreate, storeUpdate } from '../../helpers/store.ts';

const nodes = builtinType('nodes');

const regexRule = "must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes";

function node(declaredFeatures: string[], extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {}, status: { declaredFeatures }, ...extra };
}

function badName(i: number, quoted: string, rule = regexRule): StatusCause {
  return { reason: 'FieldValueInvalid', field: `status.declaredFeatures[${i}]`, message: `Invalid value: ${quoted}: invalid feature name ${quoted}: ${rule}` };
}

function unsorted(i: number, quoted: string): StatusCause {
  return { reason: 'FieldValueInvalid', field: `status.declaredFeatures[${i}]`, message: `Invalid value: ${quoted}: list must be sorted alphabetically` };
}

function repeated(i: number, quoted: string): StatusCause {
  return { reason: 'FieldValueDuplicate', field: `status.declaredFeatures[${i}]`, message: `Duplicate value: ${quoted}` };
}

const longest = `A${'b'.repeat(252)}`;
const tooLong = `A${'b'.repeat(253)}`;
const tooManyBytes = `A${'é'.repeat(127)}`;

const cases: { name: string; features: string[]; causes: StatusCause[] }[] = [
  { name: 'no features are fine', features: [], causes: [] },
  { name: 'sorted UpperCamelCase names with sub-features of either case are fine', features: ['Alpha', 'Alpha/Sub', 'Alpha/sub9', 'Beta2/x/Y'], causes: [] },
  { name: 'a name of 253 bytes is fine', features: [longest], causes: [] },
  { name: 'a lowerCamelCase first segment is refused', features: ['myFeature'], causes: [badName(0, '"myFeature"')] },
  { name: 'a dash is refused', features: ['My-Feature'], causes: [badName(0, '"My-Feature"')] },
  { name: 'a trailing slash is refused', features: ['MyFeature/'], causes: [badName(0, '"MyFeature/"')] },
  { name: 'an empty segment is refused', features: ['My//Feature'], causes: [badName(0, '"My//Feature"')] },
  { name: 'a segment starting with a digit is refused', features: ['MyFeature/9lives'], causes: [badName(0, '"MyFeature/9lives"')] },
  { name: 'an empty name is refused', features: [''], causes: [badName(0, '""')] },
  { name: 'a quote in a name is escaped as Go %q does', features: ['My"Feature'], causes: [badName(0, '"My\\"Feature"')] },
  { name: 'a name over 253 bytes gets the length message only', features: [tooLong], causes: [badName(0, `"${tooLong}"`, 'must be no more than 253 characters')] },
  { name: 'the length is counted in UTF-8 bytes', features: [tooManyBytes], causes: [badName(0, `"${tooManyBytes}"`, 'must be no more than 253 characters')] },
  { name: 'an unsorted pair is reported at its second entry', features: ['Beta', 'Alpha'], causes: [unsorted(1, '"Alpha"')] },
  { name: 'order is by bytes: upper case before lower case', features: ['Alpha/b', 'Alpha/B'], causes: [unsorted(1, '"Alpha/B"')] },
  { name: 'a repeat is a duplicate at its second entry', features: ['Alpha', 'Alpha'], causes: [repeated(1, '"Alpha"')] },
  { name: 'each repeat of a run is a duplicate', features: ['Alpha', 'Alpha', 'Alpha'], causes: [repeated(1, '"Alpha"'), repeated(2, '"Alpha"')] },
  { name: 'only neighbours are compared: a repeat further on is reported as out of order', features: ['Alpha', 'Beta', 'Alpha'], causes: [unsorted(2, '"Alpha"')] },
  {
    name: "each entry's name comes before the check of it and the next",
    features: ['beta', 'Alpha', 'Alpha', 'x'],
    causes: [badName(0, '"beta"'), unsorted(1, '"Alpha"'), repeated(2, '"Alpha"'), badName(3, '"x"')],
  },
];

for (const c of cases) {
  test(`create: ${c.name}`, async () => {
    const { obj, causes } = await storeCreate(nodes, node(c.features));
    assert.deepEqual(causes, c.causes);
    if (c.causes.length === 0 && c.features.length > 0) assert.deepEqual((obj.status as { declaredFeatures: unknown }).declaredFeatures, c.features);
  });

  test(`nodes/status: ${c.name}`, async () => {
    const old = (await storeCreate(nodes, node(['Alpha']))).obj;
    const { obj, causes } = await storeUpdate(nodes, node(c.features, { metadata: old.metadata }), old, 'status');
    assert.deepEqual(causes, c.causes);
    if (c.causes.length === 0 && c.features.length > 0) assert.deepEqual((obj.status as { declaredFeatures: unknown }).declaredFeatures, c.features);
  });
}

test("simulated nodes' features are a valid list", async () => {
  const features = defaultNodeFeatures();
  assert.ok(features.length > 0);
  const created = await storeCreate(nodes, node(features));
  assert.deepEqual(created.causes, []);
  const reported = await storeUpdate(nodes, node(features, { metadata: created.obj.metadata }), node([], { metadata: created.obj.metadata }), 'status');
  assert.deepEqual(reported.causes, []);
  assert.deepEqual((reported.obj.status as { declaredFeatures: unknown }).declaredFeatures, features);
});

test('on create the declared features are checked after the taints', async () => {
  const n = node(['Beta', 'Alpha'], { spec: { taints: [{ key: 'a', effect: 'Sometimes' }] } });
  const { causes } = await storeCreate(nodes, n);
  assert.deepEqual(causes.map((c) => c.reason), ['FieldValueNotSupported', 'FieldValueInvalid']);
  assert.deepEqual(causes[1], unsorted(1, '"Alpha"'));
});

test('a PUT keeps the stored features, so a bad list it sends is not checked', async () => {
  const old = (await storeCreate(nodes, node(['Alpha']))).obj;
  const { obj, causes } = await storeUpdate(nodes, node(['Beta', 'Alpha'], { metadata: old.metadata }), old);
  assert.deepEqual(causes, []);
  assert.deepEqual((obj.status as { declaredFeatures: unknown }).declaredFeatures, ['Alpha']);
});

test('a PUT over a stored bad list reports it twice, from ValidateNode and ValidateNodeUpdate', async () => {
  const old = node(['Beta', 'Alpha'], { metadata: { name: 'n', uid: 'u' } });
  const { causes } = await storeUpdate(nodes, node(['Alpha'], { metadata: old.metadata }), old);
  assert.deepEqual(causes, [unsorted(1, '"Alpha"'), unsorted(1, '"Alpha"')]);
});
