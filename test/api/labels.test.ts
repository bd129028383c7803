import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../src/api/index.ts';
import {
  isLabelKey, isLabelValue, labelRequiresExactMatch, labelSelectorFromObject, labelSelectorFromSet, labelSelectorJson, labelSelectorString,
  matchLabels, parseLabelSelector,
} from '../../src/api/labels.ts';

const labelValueRule =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const labelKeyNameRule =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const parseCases: { name: string; input: string; canonical: string }[] = [
  { name: 'empty selects everything', input: '', canonical: '' },
  { name: 'equality', input: 'app=web', canonical: 'app=web' },
  { name: 'double equals', input: 'app==web', canonical: 'app==web' },
  { name: 'inequality', input: 'app!=web', canonical: 'app!=web' },
  { name: 'set membership, values sorted and deduplicated', input: 'env in (prod,dev,prod)', canonical: 'env in (dev,prod)' },
  { name: 'set exclusion', input: 'env notin (qa)', canonical: 'env notin (qa)' },
  { name: 'exists', input: 'tier', canonical: 'tier' },
  { name: 'does not exist', input: '!tier', canonical: '!tier' },
  { name: 'greater and less than', input: 'n>1,m<5', canonical: 'm<5,n>1' },
  { name: 'requirements sorted by key', input: 'b=1,a=2', canonical: 'a=2,b=1' },
  { name: 'whitespace tolerated around tokens', input: '  a = b ,  c in ( d , e ) , ! f ', canonical: 'a=b,c in (d,e),!f' },
  { name: 'empty value', input: 'a=', canonical: 'a=' },
  { name: 'keywords are values inside parentheses', input: 'x in (in,notin)', canonical: 'x in (in,notin)' },
  { name: 'empty members of a set', input: 'x in (foo,,baz),y,z notin ()', canonical: 'x in (,baz,foo),y,z notin ()' },
  { name: 'prefixed key', input: 'example.com/app=web', canonical: 'example.com/app=web' },
];

for (const c of parseCases) {
  test(`label selector parses: ${c.name}`, () => {
    assert.equal(labelSelectorString(parseLabelSelector(c.input)), c.canonical);
  });
}

const errorCases: { name: string; input: string; message: string }[] = [
  { name: 'two identifiers', input: 'a b', message: "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt" },
  { name: 'junk after a requirement', input: 'a=b c', message: "found 'c', expected: ',' or 'end of string'" },
  { name: 'unclosed set', input: 'a in (b', message: "unable to parse requirement: found '', expected: ',' or ')'" },
  { name: 'set without parentheses', input: 'a in b', message: "unable to parse requirement: found 'b' expected: '('" },
  { name: 'trailing comma', input: 'a=b,', message: "found '', expected: identifier after ','" },
  { name: 'starting with an operator', input: '=a', message: "found '=', expected: !, identifier, or 'end of string'" },
  { name: 'an operator where the value goes', input: 'a=>b', message: "unable to parse requirement: found '>', expected: identifier" },
  { name: 'invalid value', input: 'a=b%', message: `unable to parse requirement: values[0][a]: Invalid value: "b%": ${labelValueRule}` },
  { name: 'invalid key', input: '-a=b', message: `unable to parse requirement: <nil>: Invalid value: "-a": ${labelKeyNameRule}` },
  { name: 'non-integer bound', input: 'a>b', message: `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer` },
];

for (const c of errorCases) {
  test(`an unparsable label selector is a 400 BadRequest: ${c.name}`, () => {
    assert.throws(() => parseLabelSelector(c.input), (err: unknown) => {
      assert.ok(isStatusError(err));
      assert.equal(err.code, 400);
      assert.equal(err.reason, 'BadRequest');
      assert.equal(err.message, c.message);
      return true;
    });
  });
}

const matchCases: { selector: string; labels: Record<string, string>; matches: boolean }[] = [
  { selector: '', labels: {}, matches: true },
  { selector: 'app=web', labels: { app: 'web' }, matches: true },
  { selector: 'app=web', labels: { app: 'db' }, matches: false },
  { selector: 'app=web', labels: {}, matches: false },
  { selector: 'app!=web', labels: {}, matches: true },
  { selector: 'app!=web', labels: { app: 'web' }, matches: false },
  { selector: 'env in (prod,dev)', labels: { env: 'dev' }, matches: true },
  { selector: 'env in (prod,dev)', labels: { env: 'qa' }, matches: false },
  { selector: 'env notin (prod)', labels: {}, matches: true },
  { selector: 'env notin (prod)', labels: { env: 'prod' }, matches: false },
  { selector: 'tier', labels: { tier: '' }, matches: true },
  { selector: '!tier', labels: { tier: '' }, matches: false },
  { selector: 'a=', labels: { a: '' }, matches: true },
  { selector: 'n>5', labels: { n: '10' }, matches: true },
  { selector: 'n>5', labels: { n: 'x' }, matches: false },
  { selector: 'n<5', labels: { n: '10' }, matches: false },
  { selector: 'a=1,b=2', labels: { a: '1', b: '2' }, matches: true },
  { selector: 'a=1,b=2', labels: { a: '1' }, matches: false },
];

for (const c of matchCases) {
  test(`label selector "${c.selector}" ${c.matches ? 'matches' : 'does not match'} ${JSON.stringify(c.labels)}`, () => {
    assert.equal(matchLabels(parseLabelSelector(c.selector), c.labels), c.matches);
  });
}

test('a metav1.LabelSelector converts like LabelSelectorAsSelector', () => {
  const sel = labelSelectorFromObject({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['prod', 'dev'] },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'tier', operator: 'Exists' },
      { key: 'zone', operator: 'NotIn', values: ['a'] },
    ],
  });
  assert.equal(labelSelectorString(sel), 'app=web,env in (dev,prod),!legacy,tier,zone notin (a)');
  assert.ok(matchLabels(sel, { app: 'web', env: 'dev', tier: '1' }));
  assert.ok(!matchLabels(sel, { app: 'web', env: 'dev', tier: '1', legacy: 'x' }));
});

test('a missing metav1.LabelSelector matches nothing, an empty one everything', () => {
  assert.ok(!matchLabels(labelSelectorFromObject(undefined), {}));
  assert.ok(!matchLabels(labelSelectorFromObject(null), { a: 'b' }));
  assert.ok(matchLabels(labelSelectorFromObject({}), { a: 'b' }));
});

test('a metav1.LabelSelector with a bad operator or values is a 400', () => {
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] }), {
    message: '"Equals" is not a valid label selector operator',
  });
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
    message: "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
  });
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['z', 'b'] }] }), {
    message: 'values: Invalid value: ["z","b"]: values set must be empty for exists and does not exist',
  });
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }] }), {
    message: "values[1][a]: Invalid value: \"not ok\": " + labelValueRule,
  });
});

test('a metav1.LabelSelector with a missing key or wrongly typed fields is a 400, not a TypeError', () => {
  const keyRule = 'key: Invalid value: "": name part must be non-empty; ' + labelKeyNameRule;
  const rows: { name: string; selector: unknown; message: string }[] = [
    { name: 'no key', selector: { matchExpressions: [{ operator: 'In', values: ['a'] }] }, message: keyRule },
    { name: 'key a number', selector: { matchExpressions: [{ key: 1, operator: 'Exists' }] }, message: keyRule },
    { name: 'no operator', selector: { matchExpressions: [{ key: 'a', values: ['a'] }] }, message: '"" is not a valid label selector operator' },
    { name: 'operator a number', selector: { matchExpressions: [{ key: 'a', operator: 1 }] }, message: '"" is not a valid label selector operator' },
    { name: 'values a string', selector: { matchExpressions: [{ key: 'a', operator: 'In', values: 'a' }] }, message: "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty" },
    { name: 'an expression that is not an object', selector: { matchExpressions: [1] }, message: '"" is not a valid label selector operator' },
  ];
  for (const row of rows) {
    assert.throws(() => labelSelectorFromObject(row.selector as never), (err: unknown) => {
      assert.ok(isStatusError(err), row.name);
      assert.equal(err.code, 400, row.name);
      assert.equal(err.message, row.message, row.name);
      return true;
    });
  }
});

test('a metav1.LabelSelector whose lists or maps have the wrong JSON type reads them as empty', () => {
  assert.ok(matchLabels(labelSelectorFromObject({ matchLabels: [1], matchExpressions: 'x' } as never), { a: 'b' }));
  assert.ok(!matchLabels(labelSelectorFromObject({ matchLabels: { a: 'b' }, matchExpressions: {} } as never), { a: 'c' }));
});

test('a selector from a set requires each label', () => {
  const sel = labelSelectorFromSet({ b: '2', a: '1' });
  assert.equal(labelSelectorString(sel), 'a=1,b=2');
  assert.equal(labelRequiresExactMatch(sel, 'b'), '2');
  assert.equal(labelRequiresExactMatch(parseLabelSelector('b in (1,2)'), 'b'), undefined);
});

const selectorJsonCases: { name: string; selector: unknown; json: string }[] = [
  { name: 'none', selector: undefined, json: 'null' },
  { name: 'empty', selector: {}, json: '{}' },
  { name: 'empty parts are left out', selector: { matchLabels: {}, matchExpressions: [] }, json: '{}' },
  { name: 'labels sorted', selector: { matchLabels: { b: '2', a: '1' } }, json: '{"matchLabels":{"a":"1","b":"2"}}' },
  {
    name: 'expressions in order, no values left out',
    selector: { matchExpressions: [{ operator: 'In', key: 'env', values: ['prod', 'dev'] }, { key: 'tier', operator: 'Exists', values: [] }], matchLabels: { app: 'web' } },
    json: '{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},{"key":"tier","operator":"Exists"}]}',
  },
];

for (const { name, selector, json } of selectorJsonCases) {
  test(`a metav1.LabelSelector as a bad value: ${name}`, () => {
    assert.equal(labelSelectorJson(selector).text, json);
  });
}

test('label keys and values follow upstream rules', () => {
  assert.deepEqual(isLabelKey('app.kubernetes.io/name'), []);
  assert.deepEqual(isLabelKey('/name'), ['prefix part must be non-empty']);
  assert.deepEqual(isLabelKey('a/b/c').length, 1);
  assert.match(isLabelKey('Example.com/x')[0]!, /^prefix part a lowercase RFC 1123 subdomain/);
  assert.deepEqual(isLabelKey('x'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isLabelValue(''), []);
  assert.deepEqual(isLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
  assert.deepEqual(isLabelValue('-a'), [labelValueRule]);
});
