import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../src/api/index.ts';
import {
  checkFieldSelectorKeys, escapeFieldValue, fieldRequiresExactMatch, fieldSelectorFromSet, fieldSelectorString, matchFields,
  parseFieldSelector,
} from '../../src/api/fields.ts';

const parseCases: { name: string; input: string; canonical: string }[] = [
  { name: 'empty selects everything', input: '', canonical: '' },
  { name: 'equality', input: 'metadata.name=web', canonical: 'metadata.name=web' },
  { name: 'double equals is equality', input: 'metadata.name==web', canonical: 'metadata.name=web' },
  { name: 'inequality', input: 'status.phase!=Running', canonical: 'status.phase!=Running' },
  { name: 'terms sorted', input: 'b=1,a=2', canonical: 'a=2,b=1' },
  { name: 'empty value', input: 'spec.nodeName=', canonical: 'spec.nodeName=' },
  { name: 'escaped comma and equals in a value', input: 'a=x\\,y\\=z', canonical: 'a=x\\,y\\=z' },
  { name: 'empty terms skipped', input: 'a=1,,b=2', canonical: 'a=1,b=2' },
];

for (const c of parseCases) {
  test(`field selector parses: ${c.name}`, () => {
    assert.equal(fieldSelectorString(parseFieldSelector(c.input)), c.canonical);
  });
}

const errorCases: { name: string; input: string; message: string }[] = [
  { name: 'no operator', input: 'metadata.name', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" },
  { name: 'unescaped equals in a value', input: 'a=b=c', message: 'invalid field selector: unescaped character in value: 61' },
  { name: 'unknown escape', input: 'a=b\\x', message: 'invalid field selector: invalid escape sequence: \\x' },
  { name: 'trailing backslash', input: 'a=b\\', message: 'invalid field selector: invalid escape sequence: \\' },
];

for (const c of errorCases) {
  test(`an unparsable field selector is a 400 BadRequest: ${c.name}`, () => {
    assert.throws(() => parseFieldSelector(c.input), (err: unknown) => {
      assert.ok(isStatusError(err));
      assert.equal(err.code, 400);
      assert.equal(err.message, c.message);
      return true;
    });
  });
}

const matchCases: { selector: string; fields: Record<string, string>; matches: boolean }[] = [
  { selector: 'metadata.name=a', fields: { 'metadata.name': 'a' }, matches: true },
  { selector: 'metadata.name=a', fields: { 'metadata.name': 'b' }, matches: false },
  { selector: 'metadata.name!=a', fields: { 'metadata.name': 'b' }, matches: true },
  { selector: 'spec.nodeName=', fields: {}, matches: true },
  { selector: 'spec.nodeName!=', fields: { 'spec.nodeName': 'n1' }, matches: true },
  { selector: 'a=x\\,y', fields: { a: 'x,y' }, matches: true },
  { selector: 'a=1,b=2', fields: { a: '1', b: '3' }, matches: false },
];

for (const c of matchCases) {
  test(`field selector "${c.selector}" ${c.matches ? 'matches' : 'does not match'} ${JSON.stringify(c.fields)}`, () => {
    assert.equal(matchFields(parseFieldSelector(c.selector), c.fields), c.matches);
  });
}

test('types without field labels of their own accept metadata.name and metadata.namespace only, worded like upstream', () => {
  checkFieldSelectorKeys(parseFieldSelector('metadata.name=a,metadata.namespace=b'));
  assert.throws(() => checkFieldSelectorKeys(parseFieldSelector('spec.foo=a')), {
    message: '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
  });
});

test('types with field labels answer "field label not supported"', () => {
  const supported = ['metadata.name', 'spec.unschedulable'];
  checkFieldSelectorKeys(parseFieldSelector('spec.unschedulable=false'), supported);
  assert.throws(() => checkFieldSelectorKeys(parseFieldSelector('metadata.namespace=x'), supported), (err: unknown) => {
    assert.ok(isStatusError(err));
    assert.equal(err.code, 400);
    assert.equal(err.message, 'field label not supported: metadata.namespace');
    return true;
  });
});

test('a selector from a set pins each field', () => {
  const sel = fieldSelectorFromSet({ 'metadata.name': 'a,b' });
  assert.equal(fieldSelectorString(sel), 'metadata.name=a\\,b');
  assert.equal(fieldRequiresExactMatch(sel, 'metadata.name'), 'a,b');
  assert.equal(escapeFieldValue('a\\b'), 'a\\\\b');
});
