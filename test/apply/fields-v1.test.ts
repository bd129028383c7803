import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FieldSet, decodeFieldsV1, displayPath, encodeFieldsV1, fieldElement, keyElement, valueElement } from '../../src/apply/index.ts';

/** Re-encodes a set from its paths, so nothing of the decoded input is reused. */
function reencode(json: string): string {
  const decoded = decodeFieldsV1(JSON.parse(json));
  return JSON.stringify(encodeFieldsV1(FieldSet.of(...decoded.paths())));
}

// structured-merge-diff fieldpath/serialize_test.go TestSerializeV1GoldenData.
const golden = [
  '{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}',
  '{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\\"name\\":\\"first\\"}":{"k:{\\"name\\":\\"first\\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\\"name\\":\\"first\\"}":{"f:aad":{"f:aaf":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"f:aaa":{"f:aad":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"f:aac":{},"k:{\\"name\\":\\"first\\"}":{"i:3":{}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\\"name\\":\\"first\\"}":{},"i:2":{}},"v:\\"aa\\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\\"name\\":\\"first\\"}":{"f:aad":{}},"i:2":{}},"v:\\"ab\\"":{"f:aaf":{"i:4":{}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\\"name\\":\\"second\\"}":{"f:aaa":{}},"i:2":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\\"aa\\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\\"aa\\"":{"f:aab":{"k:{\\"name\\":\\"second\\"}":{}}}}}',
];

describe('FieldsV1', () => {
  golden.forEach((json, i) => {
    test(`structured-merge-diff golden data ${i} re-encodes byte for byte`, () => {
      assert.equal(reencode(json), json);
    });
  });

  test('"." marks a node that has children and is a member itself; it comes last', () => {
    const set = FieldSet.of(
      [fieldElement('metadata'), fieldElement('labels')],
      [fieldElement('metadata'), fieldElement('labels'), fieldElement('app')],
    );
    assert.equal(JSON.stringify(encodeFieldsV1(set)), '{"f:metadata":{"f:labels":{"f:app":{},".":{}}}}');
  });

  test('what is encoded is frozen to its leaves, and short and long levels sort alike', () => {
    const names = Array.from({ length: 20 }, (_, i) => `n${(i * 7) % 20}`);
    const set = FieldSet.of(...names.map((n) => [fieldElement('spec'), fieldElement(n)]), [fieldElement('metadata'), fieldElement('b')], [fieldElement('metadata'), fieldElement('a')]);
    const encoded = encodeFieldsV1(set) as Record<string, Record<string, unknown>>;
    const frozen = (value: unknown): boolean => Object.isFrozen(value) && Object.values(value as object).every(frozen);
    assert.ok(frozen(encoded));
    assert.deepEqual(Object.keys(encoded['f:metadata']!), ['f:a', 'f:b']);
    assert.deepEqual(Object.keys(encoded['f:spec']!), names.map((n) => `f:${n}`).sort());
  });

  const cases: { name: string; fieldsV1: unknown; paths: string[] }[] = [
    { name: 'a leaf is an empty object', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, paths: ['.spec.replicas'] },
    { name: '"." makes the parent a member too', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }, paths: ['.metadata.labels', '.metadata.labels.app'] },
    { name: 'a child holding only "." is a member', fieldsV1: { 'f:a': { '.': {} } }, paths: ['.a'] },
    { name: 'keys and values', fieldsV1: { 'f:c': { 'k:{"name":"n"}': { '.': {}, 'f:image': {} } }, 'f:f': { 'v:"x"': {} } }, paths: ['.c[name="n"]', '.c[name="n"].image', '.f[="x"]'] },
    { name: 'elements of unknown kinds are dropped', fieldsV1: { 'f:a': {}, 'r:b': {} }, paths: ['.a'] },
    { name: 'keys written unsorted or with other escapes read like canonical ones', fieldsV1: { 'k:{"protocol":"TCP","port":80}': {}, 'k:{"name":"\\u003cx\\u003e"}': {} }, paths: ['[name="<x>"]', '[port=80,protocol="TCP"]'] },
  ];
  for (const c of cases) {
    test(`decodes: ${c.name}`, () => {
      assert.deepEqual(decodeFieldsV1(c.fieldsV1).paths().map(displayPath).sort(), [...c.paths].sort());
    });
  }

  test('an unchanged decoded set encodes back to the same object', () => {
    const fieldsV1 = { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:x': {} } } } };
    const set = decodeFieldsV1(fieldsV1);
    assert.equal(encodeFieldsV1(set), fieldsV1);
    const smaller = set.difference(FieldSet.of([fieldElement('spec'), fieldElement('replicas')]));
    const encoded = encodeFieldsV1(smaller);
    assert.deepEqual(encoded, { 'f:spec': { 'f:template': { 'f:spec': { 'f:x': {} } } } });
    assert.equal((encoded['f:spec'] as Record<string, unknown>)['f:template'], fieldsV1['f:spec']['f:template'], 'untouched subtree reused');
  });

  test('a malformed element throws when its level is read, or at once with validate', () => {
    assert.throws(() => decodeFieldsV1({ 'f:a': { 'k:{bad': {} } }, { validate: true }));
    const lazy = decodeFieldsV1({ 'f:a': { 'k:{bad': {} } });
    assert.throws(() => lazy.child(fieldElement('a'))!.isEmpty());
  });

  test('Go\'s escaping of <, > and & in element keys', () => {
    assert.equal(keyElement(['name'], ['a<b>&c']), 'k:{"name":"a\\u003cb\\u003e\\u0026c"}');
    assert.equal(valueElement('<'), 'v:"\\u003c"');
    assert.equal(valueElement(3), 'v:3');
  });
});

describe('FieldSet', () => {
  const p = (...names: string[]) => names.map(fieldElement);
  const s = (...paths: string[][]) => FieldSet.of(...paths);
  const show = (set: FieldSet) => set.paths().map(displayPath).sort();

  const ops: { name: string; got: FieldSet; want: string[] }[] = [
    { name: 'union', got: s(p('a', 'b')).union(s(p('a', 'c'), p('d'))), want: ['.a.b', '.a.c', '.d'] },
    { name: 'difference removes only the same member: parent - child = parent', got: s(p('a'), p('a', 'b')).difference(s(p('a', 'b'))), want: ['.a'] },
    { name: 'difference: child - parent = child', got: s(p('a', 'b')).difference(s(p('a'))), want: ['.a.b'] },
    { name: 'recursiveDifference removes a member with all below it', got: s(p('a', 'b'), p('c')).recursiveDifference(s(p('a'))), want: ['.c'] },
    { name: 'intersection', got: s(p('a', 'b'), p('a', 'c'), p('d')).intersection(s(p('a', 'c'), p('d'), p('e'))), want: ['.a.c', '.d'] },
    { name: 'leaves', got: s(p('a'), p('a', 'b'), p('c')).leaves(), want: ['.a.b', '.c'] },
  ];
  for (const op of ops) {
    test(op.name, () => assert.deepEqual(show(op.got), op.want));
  }

  test('membership: a parent of a member is not a member', () => {
    const set = s(p('a', 'b'));
    assert.equal(set.has(p('a', 'b')), true);
    assert.equal(set.has(p('a')), false);
    assert.equal(set.has([]), false);
  });

  test('isSubsetOf and equals', () => {
    assert.equal(s(p('a', 'b')).isSubsetOf(s(p('a', 'b'), p('c'))), true);
    assert.equal(s(p('a')).isSubsetOf(s(p('a', 'b'))), false);
    assert.equal(s(p('a', 'b'), p('c')).equals(s(p('c'), p('a', 'b'))), true);
  });

  test('operations on decoded sets read only the levels they need and agree with built sets', () => {
    const raw = { 'f:a': { 'f:b': {}, 'f:c': { '.': {}, 'f:d': {} } }, 'f:e': {} };
    const built = s(p('a', 'b'), p('a', 'c'), p('a', 'c', 'd'), p('e'));
    const other = s(p('a', 'c', 'd'), p('x'));
    assert.deepEqual(show(decodeFieldsV1(raw).union(other)), show(built.union(other)));
    assert.deepEqual(show(decodeFieldsV1(raw).difference(other)), show(built.difference(other)));
    assert.deepEqual(show(decodeFieldsV1(raw).intersection(other)), show(built.intersection(other)));
    assert.equal(decodeFieldsV1(raw).equals(built), true);
  });
});
