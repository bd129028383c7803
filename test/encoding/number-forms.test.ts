// Numbers a JSON body writes with a fraction or an exponent: found by their paths in the
// text, and looked up in the value as it holds them now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { floatFormNumbers } from '../../src/encoding/json-number-forms.ts';
import { NumberForms } from '../../src/api/number-forms.ts';
import { patchedNumberForms } from '../../src/patch/index.ts';

const written = (text: string) => floatFormNumbers(text)?.written.map(({ path, text }) => [path, text]);

test('numbers with a fraction or an exponent, by path, in the body\'s order', () => {
  assert.deepEqual(written('{"a":1.0,"b":[1,2e0,{"c":-3.50}],"d":{"e\\"f":1E+2},"g":7}'), [
    [['a'], '1.0'], [['b', 1], '2e0'], [['b', 2, 'c'], '-3.50'], [['d', 'e"f'], '1E+2'],
  ]);
  assert.deepEqual(written('[ 1.5 , [ 0.0 ] ]'), [[[0], '1.5'], [[1, 0], '0.0']]);
  assert.deepEqual(written('{"a": [], "b": {}, "c": 4.0}'), [[['c'], '4.0']], 'empty containers keep the paths after them right');
});

test('no numbers of those forms: nothing, whatever strings hold', () => {
  assert.equal(floatFormNumbers('{"image":"nginx:1.25","n":1,"list":[1,2]}'), undefined);
  assert.equal(floatFormNumbers('{"text":"a: 1.0, b"}'), undefined, 'text in a string that looks like one is not a number');
  assert.equal(floatFormNumbers('{"text":"\\", 1.0]","n":1}'), undefined, 'an escaped quote does not end the string');
  assert.equal(floatFormNumbers('1.0'), undefined, 'a number alone has no path');
});

test('a number counts only where the value still holds it as written', () => {
  const forms = floatFormNumbers('{"spec":{"replicas":1.0,"ports":[{"port":80.0}]}}')!;
  const value = { spec: { replicas: 1, ports: [{ port: 80 }] } };
  const texts = forms.textsIn(value);
  assert.equal(texts(value.spec, 'replicas'), '1.0');
  assert.equal(texts(value.spec.ports[0]!, 'port'), '80.0');
  value.spec.replicas = 2;
  assert.equal(forms.textsIn(value)(value.spec, 'replicas'), undefined, 'replaced since');
  assert.equal(forms.textsIn({ spec: { ports: [] } })({}, 'port'), undefined, 'gone since');
});

test('a JSON Patch\'s numbers land where its add and replace operations put them', () => {
  const text = '[{"op":"replace","path":"/spec/replicas","value":2.0},{"op":"add","path":"/spec/ports/0","value":{"port":80.0}},{"op":"test","path":"/x","value":1.0}]';
  const forms = patchedNumberForms(JSON.parse(text), floatFormNumbers(text)!)!;
  assert.deepEqual(forms.written.map(({ path, text }) => [path, text]), [[['spec', 'replicas'], '2.0'], [['spec', 'ports', '0', 'port'], '80.0']]);
  const patched = { spec: { replicas: 2, ports: [{ port: 80 }] } };
  assert.equal(forms.textsIn(patched)(patched.spec.ports[0]!, 'port'), '80.0', 'an array index from a pointer is the element\'s');
  assert.equal(patchedNumberForms({}, new NumberForms([])), undefined);
});
