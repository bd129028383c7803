// A table of CRD validation rules, one per library function Kubernetes' CEL offers, each
// with a value that keeps the rule and one that breaks it: the first is created, the
// second refused with upstream's message for the field ("Invalid value: <value>: <message>"
// for scalars, the value left out for objects and lists).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

interface Row {
  /** The function the rule exercises. */
  fn: string;
  schema: Record<string, unknown>;
  rule: string;
  pass: unknown;
  fail: unknown;
  /** The refused value as upstream shows it (omitted for objects and lists). */
  shown?: string;
}

const str = { type: 'string', maxLength: 256 };
const strings = { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 64 } };
const ints = { type: 'array', maxItems: 16, items: { type: 'integer' } };

const table: Row[] = [
  { fn: 'size', schema: str, rule: 'size(self) <= 3', pass: 'abc', fail: 'abcd', shown: '"abcd"' },
  { fn: 'matches', schema: str, rule: "self.matches('^[a-z]+$')", pass: 'abc', fail: 'ABC', shown: '"ABC"' },
  { fn: 'startsWith/endsWith', schema: str, rule: "self.startsWith('a') && self.endsWith('z')", pass: 'abz', fail: 'abc', shown: '"abc"' },
  { fn: 'contains', schema: str, rule: "!self.contains('//')", pass: '/a/b', fail: '/a//b', shown: '"/a//b"' },
  { fn: 'lowerAscii/upperAscii', schema: str, rule: 'self.lowerAscii() == self', pass: 'abc', fail: 'Abc', shown: '"Abc"' },
  { fn: 'split', schema: str, rule: "self.split('.').size() == 3", pass: 'a.b.c', fail: 'a.b', shown: '"a.b"' },
  { fn: 'replace', schema: str, rule: "self.replace('-', '') == 'abc'", pass: 'a-b-c', fail: 'a_b_c', shown: '"a_b_c"' },
  { fn: 'trim', schema: str, rule: 'self.trim() == self', pass: 'x', fail: ' x ', shown: '" x "' },
  { fn: 'charAt', schema: str, rule: "self.charAt(0) == 'k'", pass: 'kube', fail: 'plinth', shown: '"plinth"' },
  { fn: 'indexOf/lastIndexOf', schema: str, rule: "self.indexOf('.') == self.lastIndexOf('.')", pass: 'a.b', fail: 'a.b.c', shown: '"a.b.c"' },
  { fn: 'substring', schema: str, rule: "self.size() < 4 || self.substring(0, 4) == 'http'", pass: 'https://x', fail: 'ftp://x', shown: '"ftp://x"' },
  { fn: 'format', schema: str, rule: "self == '%s-%d'.format(['v', 2])", pass: 'v-2', fail: 'v-3', shown: '"v-3"' },
  { fn: 'find/findAll', schema: str, rule: "self.find('[0-9]+') == '42' && self.findAll('[0-9]+').size() == 1", pass: 'a42b', fail: 'a42b7', shown: '"a42b7"' },
  { fn: 'isSorted', schema: ints, rule: 'self.isSorted()', pass: [1, 2, 3], fail: [3, 1] },
  { fn: 'sum', schema: ints, rule: 'self.sum() <= 10', pass: [1, 2, 3], fail: [5, 6] },
  { fn: 'min/max', schema: ints, rule: 'self.size() == 0 || self.max() - self.min() <= 5', pass: [1, 6], fail: [1, 7] },
  { fn: 'list indexOf', schema: strings, rule: "self.indexOf('first') <= 0", pass: ['first', 'b'], fail: ['a', 'first'] },
  { fn: 'all/exists/exists_one', schema: strings, rule: "self.all(s, s.size() > 0) && self.exists_one(s, s == 'main')", pass: ['main', 'b'], fail: ['main', 'main'] },
  { fn: 'map/filter', schema: ints, rule: 'self.filter(x, x > 2).map(x, x * 2).all(x, x < 20)', pass: [1, 5], fail: [1, 12] },
  { fn: 'two-variable all', schema: ints, rule: 'self.all(i, v, v >= i)', pass: [0, 1, 5], fail: [0, 0] },
  { fn: 'sets.contains', schema: strings, rule: "sets.contains(['a', 'b', 'c'], self)", pass: ['a', 'c'], fail: ['a', 'd'] },
  { fn: 'quantity', schema: str, rule: "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))", pass: '512Mi', fail: '2Gi', shown: '"2Gi"' },
  { fn: 'url', schema: str, rule: "isURL(self) && url(self).getScheme() == 'https'", pass: 'https://example.com', fail: 'http://example.com', shown: '"http://example.com"' },
  { fn: 'ip', schema: str, rule: "isIP(self) && ip(self).family() == 4", pass: '10.0.0.1', fail: '::1', shown: '"::1"' },
  { fn: 'cidr', schema: str, rule: "isCIDR(self) && cidr('10.0.0.0/8').containsCIDR(self)", pass: '10.1.0.0/16', fail: '11.0.0.0/16', shown: '"11.0.0.0/16"' },
  { fn: 'semver', schema: str, rule: "isSemver(self) && semver(self).isGreaterThan(semver('1.0.0'))", pass: '1.2.0', fail: '0.9.0', shown: '"0.9.0"' },
  { fn: 'optional', schema: { type: 'object', properties: { name: str } }, rule: "self.?name.orValue('default') != 'forbidden'", pass: {}, fail: { name: 'forbidden' } },
  { fn: 'cel.bind', schema: ints, rule: 'cel.bind(n, self.size(), n == 0 || n <= 3)', pass: [1], fail: [1, 2, 3, 4] },
  { fn: 'int arithmetic', schema: { type: 'integer' }, rule: 'self % 2 == 0', pass: 4, fail: 5, shown: '5' },
  { fn: 'has on an item', schema: { type: 'array', maxItems: 4, items: { type: 'object', properties: { name: str } } }, rule: "self.size() == 0 || !has(self[0].name) || self[0].name != 'x'", pass: [{ name: 'a' }, {}], fail: [{ name: 'x' }] },
  // Strings of these formats are CEL timestamps, durations and bytes, as upstream converts them.
  { fn: 'date-time as timestamp', schema: { type: 'string', format: 'date-time' }, rule: "self > timestamp('2020-01-01T00:00:00Z')", pass: '2024-01-01T10:00:00+02:00', fail: '2019-06-01T00:00:00Z', shown: '"2019-06-01T00:00:00Z"' },
  { fn: 'date as timestamp', schema: { type: 'string', format: 'date' }, rule: 'self.getFullYear() >= 2000', pass: '2024-02-29', fail: '1999-12-31', shown: '"1999-12-31"' },
  { fn: 'duration', schema: { type: 'string', format: 'duration' }, rule: "self <= duration('1h') && string(self) != '0s'", pass: '1m30s', fail: '2h', shown: '"2h"' },
  { fn: 'byte as bytes', schema: { type: 'string', format: 'byte' }, rule: "self == b'abc'", pass: 'YWJj', fail: 'YWJk', shown: '"YWJk"' },
  { fn: 'timestamp arithmetic', schema: { type: 'object', properties: { from: { type: 'string', format: 'date-time' }, span: { type: 'string', format: 'duration' }, until: { type: 'string', format: 'date-time' } } }, rule: 'self.from + self.span == self.until', pass: { from: '2024-01-01T00:00:00Z', span: '36h', until: '2024-01-02T12:00:00Z' }, fail: { from: '2024-01-01T00:00:00Z', span: '1d', until: '2024-01-02T12:00:00Z' } },
];

describe('CRD validation rules, one per library function', () => {
  let server: TestServer;
  const base = '/apis/table.example.com/v1/namespaces/default/rows';

  before(async () => {
    server = await startServer();
    const properties = Object.fromEntries(table.map((row, i) => [`f${i}`, { ...row.schema, 'x-kubernetes-validations': [{ rule: row.rule, message: `${row.fn} rule broken` }] }]));
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'rows.table.example.com' },
      spec: {
        group: 'table.example.com', scope: 'Namespaced', names: { plural: 'rows', singular: 'row', kind: 'Row', listKind: 'RowList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
      },
    };
    const res = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    assert.equal(res.status, 201, res.text);
    await eventually(async () => assert.equal((await server.request('GET', base)).status, 200));
  });
  after(() => server?.stop());

  table.forEach((row, i) => {
    test(`${row.fn}: ${row.rule}`, async () => {
      const write = (name: string, value: unknown) => server.request('POST', base, { body: { apiVersion: 'table.example.com/v1', kind: 'Row', metadata: { name }, spec: { [`f${i}`]: value } } });
      const passed = await write(`pass-${i}`, row.pass);
      assert.equal(passed.status, 201, passed.text);
      const failed = await write(`fail-${i}`, row.fail);
      assert.equal(failed.status, 422, failed.text);
      const detail = row.shown === undefined ? `Invalid value: ${row.fn} rule broken` : `Invalid value: ${row.shown}: ${row.fn} rule broken`;
      assert.deepEqual(failed.json.details.causes, [{ reason: 'FieldValueInvalid', field: `spec.f${i}`, message: detail }]);
      assert.equal(failed.json.message, `Row.table.example.com "fail-${i}" is invalid: spec.f${i}: ${detail}`);
    });
  });
});
