// Field paths as validation names them in causes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { child, index, key } from '../../src/api/field-errors.ts';

test('child joins a path and names with dots, leaving empty parts out', () => {
  assert.equal(child('spec', 'template', 'spec'), 'spec.template.spec');
  assert.equal(child('', 'metadata'), 'metadata');
  assert.equal(child('metadata', ''), 'metadata');
  assert.equal(child('', '', 'a', '', 'b'), 'a.b');
  assert.equal(child(''), '');
  assert.equal(child('spec'), 'spec');
  assert.equal(key(child(index('spec.containers', 0), 'resources', 'limits'), 'cpu'), 'spec.containers[0].resources.limits[cpu]');
});
