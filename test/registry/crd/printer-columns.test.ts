// additionalPrinterColumns as Table columns, and the JSONPath subset they use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { compileJsonPath } from '../../../src/registry/crd/jsonpath.ts';
import { printerColumnsOf } from '../../../src/registry/crd/printer-columns.ts';

const obj = {
  metadata: { name: 'w', creationTimestamp: '2024-01-01T00:00:00Z', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: { replicas: 3, ratio: 0.5, big: 1e22, tiny: 0.00001, enabled: true, tags: ['a', 'b'], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] },
  status: { conditions: [{ type: 'Progressing', status: 'True' }, { type: 'Ready', status: 'False', reason: 'Waiting' }] },
};

const paths: [string, unknown[]][] = [
  ['.spec.replicas', [3]],
  ['{.spec.replicas}', [3]],
  ['.spec.missing.deeper', []],
  ['.spec.tags[0]', ['a']],
  ['.spec.tags[-1]', ['b']],
  ['.spec.tags[*]', ['a', 'b']],
  ['.spec.ports[*].port', [80, 443]],
  ['.spec.ports[0:1].name', ['http']],
  ['.status.conditions[?(@.type=="Ready")].status', ['False']],
  ['.status.conditions[?(@.type!="Ready")].type', ['Progressing']],
  ['.spec.ports[?(@.port>100)].name', ['https']],
  ['.status.conditions[?(@.reason)].reason', ['Waiting']],
  [".metadata.labels['app.kubernetes.io/name']", ['web']],
  ['..port', [80, 443]],
];

for (const [path, expected] of paths) {
  test(`JSONPath ${path}`, () => {
    assert.deepEqual(compileJsonPath(path)(obj), expected);
  });
}

test('a version without printer columns shows Name and Age', () => {
  const columns = printerColumnsOf(undefined);
  assert.deepEqual(columns.map((c) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Age', 'date', '']]);
  const now = Date.parse('2024-01-01T00:05:00Z');
  assert.deepEqual(columns.map((c) => c.cell(obj as KubeObject, now)), ['w', '5m']);
});

test('cells are typed by their column, as upstream\'s table convertor types them', () => {
  const columns = printerColumnsOf([
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ratio', type: 'integer', jsonPath: '.spec.ratio' },
    { name: 'RatioN', type: 'number', jsonPath: '.spec.ratio' },
    { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
    { name: 'AsText', type: 'string', jsonPath: '.spec.replicas' },
    { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
    { name: 'Big', type: 'string', jsonPath: '.spec.big' },
    { name: 'Tiny', type: 'string', jsonPath: '.spec.tiny' },
    { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
    { name: 'Mismatch', type: 'integer', jsonPath: '.spec.tags' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1, description: 'Whether it is ready.' },
    { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  const now = Date.parse('2024-01-03T00:00:00Z');
  assert.deepEqual(columns.map((c) => c.cell(obj as KubeObject, now)), [
    'w', 3, 0, 0.5, true, '3', '["a","b"]', '1e+22', '1e-05', null, null, 'False', '2d',
  ]);
  const ready = columns.find((c) => c.name === 'Ready')!;
  assert.deepEqual([ready.priority, ready.description], [1, 'Whether it is ready.']);
  assert.equal(columns[1]!.description, 'Custom resource definition column (in JSONPath format): .spec.replicas');
});
