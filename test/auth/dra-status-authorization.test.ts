// The parts of a claim status write that decide which DRA permissions it takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocatedNode, modifiedDrivers } from '../../src/auth/dra-status-authorization.ts';

const device = (driver: string, name: string, extra: Record<string, unknown> = {}) => ({ driver, pool: 'p', device: name, ...extra });

test('the drivers whose device entries were added, changed or removed, each once and sorted', () => {
  const old = { devices: [device('b.example.com', 'd1'), device('a.example.com', 'd0'), device('c.example.com', 'd2')] };
  assert.deepEqual(modifiedDrivers(old, old), []);
  assert.deepEqual(modifiedDrivers({ devices: [...old.devices, device('d.example.com', 'd3')] }, old), ['d.example.com']);
  assert.deepEqual(modifiedDrivers({ devices: [device('b.example.com', 'd1', { data: { x: 1 } }), device('a.example.com', 'd0')] }, old), ['b.example.com', 'c.example.com']);
  // A share of a device is an entry of its own.
  assert.deepEqual(modifiedDrivers({ devices: [...old.devices, device('a.example.com', 'd0', { shareID: 's' })] }, old), ['a.example.com']);
  assert.deepEqual(modifiedDrivers({}, old), ['a.example.com', 'b.example.com', 'c.example.com']);
});

test('the node an allocation is limited to: one term of one metadata.name field with one value', () => {
  const term = (fields: unknown[], expressions: unknown[] = []) => ({ allocation: { nodeSelector: { nodeSelectorTerms: [{ matchFields: fields, matchExpressions: expressions }] } } });
  const field = (values: string[], key = 'metadata.name', operator = 'In') => ({ key, operator, values });
  assert.equal(allocatedNode(term([field(['node-1'])])), 'node-1');
  assert.equal(allocatedNode(term([field(['node-1', 'node-2'])])), '');
  assert.equal(allocatedNode(term([field(['node-1'], 'metadata.uid')])), '');
  assert.equal(allocatedNode(term([field(['node-1'], 'metadata.name', 'NotIn')])), '');
  assert.equal(allocatedNode(term([field(['node-1'])], [{ key: 'zone', operator: 'Exists' }])), '');
  assert.equal(allocatedNode({}), '');
});
