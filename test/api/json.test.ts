import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clone, deepEqual, deepEqualNullAsAbsent, goFieldTypeError, goJsonKind, isGoInt64, isObject, setMember } from '../../src/api/json.ts';

/** `levels` objects nested in one another under `key`, with `leaf` innermost. */
function nested(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { key: value };
  return value;
}

const isObjectCases: { name: string; value: unknown; expected: boolean }[] = [
  { name: 'an empty object', value: {}, expected: true },
  { name: 'an object with members', value: { a: 1, b: [2] }, expected: true },
  { name: 'an object without prototype', value: Object.create(null), expected: true },
  { name: 'null', value: null, expected: false },
  { name: 'undefined', value: undefined, expected: false },
  { name: 'an empty array', value: [], expected: false },
  { name: 'an array of objects', value: [{}], expected: false },
  { name: 'a string', value: '{}', expected: false },
  { name: 'a number', value: 0, expected: false },
  { name: 'a boolean', value: true, expected: false },
];

for (const c of isObjectCases) {
  test(`isObject: ${c.name} is ${c.expected ? '' : 'not '}an object`, () => assert.equal(isObject(c.value), c.expected));
}

const cloneCases: { name: string; value: unknown }[] = [
  { name: 'null', value: null },
  { name: 'a string', value: 'text' },
  { name: 'a number', value: 1.5 },
  { name: 'a boolean', value: false },
  { name: 'an empty object', value: {} },
  { name: 'an empty array', value: [] },
  { name: 'an array of mixed items', value: [1, 'a', null, true, [2], { b: 3 }] },
  {
    name: 'a Deployment',
    value: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' }, managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }] },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] }] } } },
    },
  },
  { name: 'an object nested 1,000 levels deep', value: nested(1_000, [1, { a: null }]) },
];

for (const c of cloneCases) {
  test(`clone: a copy of ${c.name} is equal to it`, () => {
    const copy = clone(c.value);
    // As JSON text (members in the same order): node:assert recurses too deep for the deepest case.
    assert.equal(JSON.stringify(copy), JSON.stringify(c.value));
  });
}

/** Every object and array inside `value`, with the path to it. */
function containers(value: unknown, path = '$'): [string, object][] {
  if (typeof value !== 'object' || value === null) return [];
  const inside = Object.entries(value).flatMap(([k, v]) => containers(v, `${path}.${k}`));
  return [[path, value], ...inside];
}

for (const c of cloneCases) {
  test(`clone: a copy of ${c.name} shares no object or array with it`, () => {
    const originals = new Set(containers(c.value).map(([, v]) => v));
    for (const [path, v] of containers(clone(c.value))) assert.ok(!originals.has(v), `${path} is shared`);
  });
}

test('clone: changing the copy leaves the original as it was', () => {
  const original = { metadata: { labels: { app: 'web' } }, spec: { ports: [{ port: 80 }] } };
  const copy = clone(original);
  copy.metadata.labels.app = 'db';
  copy.spec.ports[0]!.port = 81;
  copy.spec.ports.push({ port: 443 });
  assert.deepStrictEqual(original, { metadata: { labels: { app: 'web' } }, spec: { ports: [{ port: 80 }] } });
});

test('clone: a member holding undefined is dropped, as by JSON', () => {
  assert.deepStrictEqual(clone({ a: undefined, b: { c: undefined, d: 1 } }), { b: { d: 1 } });
});

test('clone: a member named __proto__ stays a member and leaves the prototype alone', () => {
  const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
  const copy = clone(value);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.ok(Object.hasOwn(copy, '__proto__'));
  assert.deepStrictEqual(Object.keys(copy), ['__proto__', 'a']);
  assert.equal(JSON.stringify(copy), JSON.stringify(value));
});

test('clone: data nested 100,000 levels deep is copied, past what the stack allows, with the same rules', () => {
  const depth = 100_000;
  const leaf = JSON.parse('{"__proto__":{"x":1},"v":[1]}') as Record<string, unknown>;
  leaf.u = undefined;
  const original = nested(depth, leaf);
  const copy = clone(original);
  let level = 0;
  let from = original;
  let node = copy;
  for (; level < depth; level++, from = (from as { key: unknown }).key, node = (node as { key: unknown }).key) {
    assert.ok(isObject(node) && node !== from, `level ${level} is a copy`);
  }
  assert.notEqual(node, from);
  assert.equal(Object.getPrototypeOf(node), Object.prototype);
  assert.deepStrictEqual(Object.keys(node as object), ['__proto__', 'v']);
  assert.equal(JSON.stringify(node), '{"__proto__":{"x":1},"v":[1]}');
});

const equalCases: { name: string; a: unknown; b: unknown; equal: boolean; nullAsAbsent?: boolean }[] = [
  { name: 'equal strings', a: 'x', b: 'x', equal: true },
  { name: 'different strings', a: 'x', b: 'y', equal: false },
  { name: '1 and 1.0 (one number)', a: JSON.parse('1'), b: JSON.parse('1.0'), equal: true },
  { name: '1 and "1"', a: 1, b: '1', equal: false },
  { name: '0 and false', a: 0, b: false, equal: false },
  { name: 'null and null', a: null, b: null, equal: true },
  { name: 'null and an empty object', a: null, b: {}, equal: false },
  { name: 'an empty object and an empty array', a: {}, b: [], equal: false },
  { name: 'an array and an object with index keys', a: ['x'], b: { 0: 'x' }, equal: false },
  { name: 'objects with the same members in another order', a: { a: 1, b: 2 }, b: { b: 2, a: 1 }, equal: true },
  { name: 'objects with a member more', a: { a: 1 }, b: { a: 1, b: 2 }, equal: false },
  { name: 'objects with a member fewer', a: { a: 1, b: 2 }, b: { a: 1 }, equal: false },
  { name: 'objects with the same values under other keys', a: { a: 1, b: 2 }, b: { a: 1, c: 2 }, equal: false },
  { name: 'arrays with the same items', a: [1, 'a', null], b: [1, 'a', null], equal: true },
  { name: 'arrays with the same items in another order', a: [1, 2], b: [2, 1], equal: false },
  { name: 'arrays of different lengths', a: [1], b: [1, 1], equal: false },
  { name: 'nested objects with members in another order', a: { s: { c: [{ x: 1, y: 2 }] } }, b: { s: { c: [{ y: 2, x: 1 }] } }, equal: true },
  { name: 'nested objects differing deep inside', a: { s: { c: [{ x: 1 }] } }, b: { s: { c: [{ x: 2 }] } }, equal: false },
  { name: 'a member holding null and an absent one', a: { a: 1, b: null }, b: { a: 1 }, equal: false },
  { name: 'an absent member and one holding null', a: { a: 1 }, b: { a: 1, b: null }, equal: false },
  { name: 'a member holding null and one holding an empty object', a: { b: null }, b: { b: {} }, equal: false },
  { name: 'a member holding undefined and an absent one', a: { a: 1, b: undefined }, b: { a: 1 }, equal: true },
  { name: 'a __proto__ member and an object without it', a: JSON.parse('{"__proto__":{},"a":1}'), b: { a: 1, b: 2 }, equal: false },
  { name: 'equal data nested 100,000 levels deep', a: nested(100_000, { a: 1, b: [2] }), b: nested(100_000, { b: [2], a: 1 }), equal: true },
  { name: 'data nested 100,000 levels deep differing at the bottom', a: nested(100_000, { a: 1 }), b: nested(100_000, { a: 2 }), equal: false },
  { name: 'data nested 100,000 levels deep, a __proto__ member against none', a: nested(100_000, JSON.parse('{"__proto__":{},"a":1}')), b: nested(100_000, { a: 1, b: 2 }), equal: false },
  { name: 'data nested 100,000 levels deep, a member holding undefined against none', a: nested(100_000, { a: 1, b: undefined }), b: nested(100_000, { a: 1 }), equal: true },
  { name: 'null members ignored: a member holding null and an absent one', a: { a: 1, b: null }, b: { a: 1 }, equal: true, nullAsAbsent: true },
  { name: 'null members ignored: nested', a: { s: { x: null, y: 1 } }, b: { s: { y: 1 } }, equal: true, nullAsAbsent: true },
  { name: 'null members ignored: a null array item still counts', a: [null], b: [], equal: false, nullAsAbsent: true },
  { name: 'null members ignored: a member holding null and one holding a value', a: { b: null }, b: { b: 0 }, equal: false, nullAsAbsent: true },
  { name: 'null members ignored: nested 100,000 levels deep', a: nested(100_000, { a: null, b: 1 }), b: nested(100_000, { b: 1 }), equal: true, nullAsAbsent: true },
];

for (const c of equalCases) {
  const equal = c.nullAsAbsent === true ? deepEqualNullAsAbsent : deepEqual;
  test(`${equal.name}: ${c.name} are ${c.equal ? '' : 'not '}equal`, () => {
    assert.equal(equal(c.a, c.b), c.equal);
    assert.equal(equal(c.b, c.a), c.equal, 'in the other order');
  });
}

test('setMember: a member named __proto__ becomes an own member, not the prototype', () => {
  const object: Record<string, unknown> = {};
  setMember(object, '__proto__', { polluted: true });
  setMember(object, 'a', 1);
  assert.equal(Object.getPrototypeOf(object), Object.prototype);
  assert.deepStrictEqual(Object.keys(object), ['__proto__', 'a']);
});

test('goJsonKind names a value as Go\'s encoding/json does in its errors', () => {
  const cases: [unknown, string][] = [[[1], 'array'], [{}, 'object'], ['x', 'string'], [1.5, 'number'], [true, 'bool'], [null, 'null']];
  for (const [value, kind] of cases) assert.equal(goJsonKind(value), kind, JSON.stringify(value));
});

const fieldTypeErrorCases: { name: string; value: unknown; goType: string; expected: string }[] = [
  { name: 'a string for an int64', value: 'x', goType: 'int64', expected: 'string' },
  { name: 'a fraction for an int64 is named with its text', value: 1.5, goType: 'int64', expected: 'number 1.5' },
  { name: 'an integer past int64 with all its digits', value: 1e19, goType: 'int64', expected: 'number 10000000000000000000' },
  { name: 'an integer from 1e21 in JSON\'s exponent form', value: 1e21, goType: 'int64', expected: 'number 1e21' },
  { name: 'a number past a double (Infinity) without its lost text', value: Infinity, goType: 'int64', expected: 'number' },
  { name: 'a number for a string without its text', value: 1.5, goType: 'string', expected: 'number' },
  { name: 'a list for a struct', value: [], goType: 'v1.Preconditions', expected: 'array' },
];
for (const c of fieldTypeErrorCases) {
  test(`goFieldTypeError: ${c.name}`, () => {
    assert.equal(goFieldTypeError(c.value, 'S', 'a.b', c.goType), `json: cannot unmarshal ${c.expected} into Go struct field S.a.b of type ${c.goType}`);
  });
}

test('isGoInt64 holds for the integers an int64 holds', () => {
  const cases: [unknown, boolean][] = [[0, true], [-(2 ** 63), true], [2 ** 63, false], [-(2 ** 63) - 4096, false], [1.5, false], [Infinity, false], ['1', false], [null, false]];
  for (const [value, expected] of cases) assert.equal(isGoInt64(value), expected, String(value));
});
