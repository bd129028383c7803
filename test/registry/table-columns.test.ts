import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { builtinResourceTypes } from '../../src/registry/builtin/index.ts';
import {
  ageColumn, createdAtColumn, defaultTableColumns, humanDuration, nameColumn, tableColumnsOf, tableSourceOf, translateTimestampSince,
} from '../../src/registry/table-columns.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration (upstream duration.HumanDuration)', () => {
  const cases: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-1500, '0s'],
    [-500, '0s'],
    [0, '0s'],
    [59 * s + 999, '59s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [2 * m + 5 * s, '2m5s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 20 * m, '3h20m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [48 * h, '2d'],
    [51 * h, '2d3h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [775 * d, '2y45d'],
    [8 * 365 * d, '8y'],
    [10 * 365 * d + 100 * d, '10y'],
  ];
  for (const [ms, text] of cases) {
    test(`${ms} ms → ${text}`, () => assert.equal(humanDuration(ms), text));
  }
});

describe('translateTimestampSince', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  const cases: [unknown, string][] = [
    ['2024-05-01T11:55:00Z', '5m'],
    ['2024-04-29T09:00:00Z', '2d3h'],
    [undefined, '<unknown>'],
    ['', '<unknown>'],
    ['0001-01-01T00:00:00Z', '<unknown>'],
    ['not a time', '<unknown>'],
    [42, '<unknown>'],
  ];
  for (const [ts, text] of cases) {
    test(`${JSON.stringify(ts)} → ${text}`, () => assert.equal(translateTimestampSince(ts, now), text));
  }
});

describe('shared columns', () => {
  const now = Date.parse('2024-05-01T12:00:00Z');
  const obj: KubeObject = { metadata: { name: 'x', creationTimestamp: '2024-05-01T11:00:00Z' } };

  test('Name is a string column in format name', () => {
    assert.equal(nameColumn.cell(obj, now), 'x');
    assert.equal(nameColumn.format, 'name');
  });

  test('Age is the age of creationTimestamp', () => {
    assert.equal(ageColumn.cell(obj, now), '60m');
    assert.equal(ageColumn.cell({ metadata: {} }, now), '<unknown>');
  });

  test('Created At is the timestamp in RFC 3339, Go\'s zero time when unset', () => {
    assert.equal(createdAtColumn.cell(obj, now), '2024-05-01T11:00:00Z');
    assert.equal(createdAtColumn.cell({ metadata: {} }, now), '0001-01-01T00:00:00Z');
    assert.equal(createdAtColumn.type, 'date');
  });

  test('a type without columns of its own gets Name and Created At', () => {
    const type = { ...builtinResourceTypes().find((t) => t.resource === 'configmaps')!, tableColumns: undefined };
    assert.deepEqual(tableColumnsOf(type).map((c) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Created At', 'date', undefined]]);
    assert.equal(tableColumnsOf(type), defaultTableColumns);
  });

  test('tableSourceOf passes row conditions through', () => {
    const pods = builtinResourceTypes().find((t) => t.resource === 'pods')!;
    const source = tableSourceOf(pods);
    assert.deepEqual(source.rowConditions?.({ metadata: {}, status: { phase: 'Failed' } }), [
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    assert.equal(tableSourceOf(builtinResourceTypes().find((t) => t.resource === 'configmaps')!).rowConditions, undefined);
  });
});
