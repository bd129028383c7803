// CRD rules checked against their node's static type, as upstream's checker checks them
// when a CRD is written: expressions upstream's own tests accept compile, those it refuses
// at compile time are refused with cel-go's wording and position.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { typeCheckRule } from '../../src/cel/schema-types.ts';

type Raw = Record<string, unknown>;
const str = { type: 'string' };
const int = { type: 'integer' };
const num = { type: 'number' };
const obj = (properties: Raw): Raw => ({ type: 'object', properties });
const list = (items: Raw): Raw => ({ type: 'array', items });
const map = (values: Raw): Raw => ({ type: 'object', additionalProperties: values });
const format = (f: string): Raw => ({ type: 'string', format: f });

const schema = obj({
  val1: int, val2: num, s: str, flag: { type: 'boolean' },
  d: format('duration'), ts: format('date-time'), day: format('date'), b: format('byte'),
  a: obj({ b: int, c: int, d: { ...int, nullable: true } }),
  objs: list(obj({ k: str, v: str })),
  listMap: { ...list(obj({ k: str, v: str, v2: str })), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] },
  m: map(int), l: list(int), mapOfObj: map(obj({ field2: str })), listOfMap: list(map(str)),
  ios: { 'x-kubernetes-int-or-string': true },
  withUnknown: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  known: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: int } },
  anyval: { 'x-kubernetes-preserve-unknown-fields': true },
  anyvalList: list({ 'x-kubernetes-preserve-unknown-fields': true }),
  embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  true: int, 'dot.dot': int, self: int,
});

const check = (expression: string, optionalOldSelf = false) => typeCheckRule(expression, schema, { resourceRoot: true, optionalOldSelf });

describe('CRD rules with the schema\'s types', () => {
  test('what upstream accepts type-checks (and to the type cel-go gives)', () => {
    const valid = [
      'self.val1 == 1', 'type(self.val1) == int', 'self.val2 == 1.0', 'type(self.val2) == double', 'self.val1 < 1.5', 'self.val2 > 0',
      'double(self.val1) == self.val2', 'int(self.val2) == self.val1', 'string(self.val1) == self.s',
      "self.s.startsWith('Rook') && self.s.charAt(3) == 'k' && self.s.split(' ').size() == 3", "self.s in ['a', 'b']",
      "self.b == b'AB' && size(self.b) == 2 && type(self.b) == bytes",
      "self.d == duration('1h2m') + duration('3s4ms') && self.d.getMinutes() == 62 && type(self.d) == google.protobuf.Duration",
      "self.day.getFullYear() == 1997 && type(self.day) == google.protobuf.Timestamp", "self.ts == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
      'duration(self.s) == self.d', 'string(self.d) == self.s', 'timestamp(self.s) == self.ts', 'string(self.ts) == self.s',
      'has(self.a.b) && !has(self.a.d)', 'self.objs[0] == self.objs[1]', 'self.listMap.all(m, !has(m.v2) || m.v2 == \'z\')',
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1", "'k1' in self.m", 'self.m.all(k, self.m[k] > 0)', 'has(self.m.b)',
      'self.m.map(k, self.m[k]).exists(v, v == 1)', "self.mapOfObj['k'].field2 == 'c'", "self.listOfMap[0]['z'] == 'g'",
      'self.l.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)', 'self.l + [4, 5] == [1, 2, 3, 4, 5]', 'self.l.all(i, v, v >= i)',
      "type(self.ios) == int ? self.ios == 1 : self.ios == '25%'", "type(self.ios) == string && self.ios.matches(r'(\\d+(\\.\\d+)?%)')",
      'has(self.withUnknown)', 'self.known.known == 1', "self.embedded.kind == 'Pod' && self.embedded.metadata.generateName == 'x'",
      "self.kind == 'Pod' && self.apiVersion == 'v1' && self.metadata.name == 'foo'",
      'self.__true__ == 1 && self.dot__dot__dot == 401 && self.self == 201', 'type(self) == type(self)',
      'self == oldSelf', 'self.objs == oldSelf.objs', "self.?s.orValue('') == ''",
      "isQuantity(self.s) && quantity(self.s).isLessThan(quantity('1Gi'))", 'sets.contains(self.l, [1])',
      "has(self.objs[0].k) && self.objs[0].k != ''", '(self.objs.size() > 0 ? (has(self.objs[0].v) ? self.objs[0].v.size() : 0) : 0) <= 128',
    ];
    // null beside what cel-go's checker calls nullable: objects, timestamps, durations, optionals, the libraries' types.
    valid.push(
      '(self.val1 > 1 ? self.a : null) == null', '(self.val1 > 1 ? null : self.a) != null', 'null == self.a && self.ts != null && self.d != null',
      '(self.val1 > 1 ? self.a : null).b == 1', "(self.val1 > 1 ? (self.val1 > 2 ? self.a : null) : null) == null",
      "((self.val1 > 1) ? (null) : self.ts) == null", "(has(self.s) ? quantity(self.s) : null) != null", '(self.val1 > 1 ? optional.of(self.a) : null) != null',
    );
    for (const expression of valid) assert.deepEqual(check(expression), { type: 'bool' }, expression);
    assert.deepEqual(check('self.val1 > 1 ? self.a : null'), { type: 'object' });
    assert.deepEqual(check('self.val1 > 1 ? null : null'), { type: 'null' });
    assert.deepEqual(check('oldSelf.hasValue() && oldSelf.value().val1 <= self.val1', true), { type: 'bool' });
    assert.deepEqual(check('self.s'), { type: 'string' });
    assert.deepEqual(check('self.l.map(x, x * 2)'), { type: 'list(int)' });
    assert.deepEqual(check('self.m'), { type: 'map(string, int)' });
  });

  test('what upstream refuses at compile time, worded as cel-go words it', () => {
    const refused: Array<[string, string]> = [
      ['self.val2 == 1', "ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(double, int)'\n | self.val2 == 1\n | ..........^"],
      ['self.val1 == true', "ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(int, bool)'\n | self.val1 == true\n | ..........^"],
      ['self.s == null', "ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(string, null)'\n | self.s == null\n | .......^"],
      ["self.objs[0] == {'k': 'a', 'v': '1'}", "ERROR: <input>:1:14: found no matching overload for '_==_' applied to '(object, map(string, string))'\n | self.objs[0] == {'k': 'a', 'v': '1'}\n | .............^"],
      ['self == 201', "ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(object, int)'\n | self == 201\n | .....^"],
      ["string(type(self.objs[0])).endsWith('x')", "ERROR: <input>:1:7: found no matching overload for 'string' applied to '(type)'\n | string(type(self.objs[0])).endsWith('x')\n | ......^"],
      ['has(self.withUnknown.field1)', "ERROR: <input>:1:21: undefined field 'field1'\n | has(self.withUnknown.field1)\n | ....................^"],
      ['self.anyval == 1', "ERROR: <input>:1:5: undefined field 'anyval'\n | self.anyval == 1\n | ....^"],
      ['self.anyvalList.size() > 0', "ERROR: <input>:1:5: undefined field 'anyvalList'\n | self.anyvalList.size() > 0\n | ....^"],
      ['self.embedded.spec == 1', "ERROR: <input>:1:14: undefined field 'spec'\n | self.embedded.spec == 1\n | .............^"],
      ['self.metadata.namespace == "x"', "ERROR: <input>:1:14: undefined field 'namespace'\n | self.metadata.namespace == \"x\"\n | .............^"],
      ["self.listMap.exists(m, m.zz == '')", "ERROR: <input>:1:25: undefined field 'zz'\n | self.listMap.exists(m, m.zz == '')\n | ........................^"],
      ['self.s + 1 == "a1"', "ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(string, int)'\n | self.s + 1 == \"a1\"\n | .......^"],
      ['self.s in self.l', "ERROR: <input>:1:8: found no matching overload for '@in' applied to '(string, list(int))'\n | self.s in self.l\n | .......^"],
      ['-self.s == ""', "ERROR: <input>:1:1: found no matching overload for '-_' applied to '(string)'\n | -self.s == \"\"\n | ^"],
      ['self.s.matches(1)', "ERROR: <input>:1:15: found no matching overload for 'matches' applied to 'string.(int)'\n | self.s.matches(1)\n | ..............^"],
      ['sets.contains(self.l, 1)', "ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '(list(int), int)'\n | sets.contains(self.l, 1)\n | .............^"],
      ['self.flag &&\n  self.val1', "ERROR: <input>:1:11: expected type 'bool' but found 'int'\n | self.flag &&\n | ..........^"],
      ["self.val1 > 1 ? 'a' : 1", "ERROR: <input>:1:15: found no matching overload for '_?_:_' applied to '(bool, string, int)'\n | self.val1 > 1 ? 'a' : 1\n | ..............^"],
      ["self.val1 > 1 ? 'a' : null", "ERROR: <input>:1:15: found no matching overload for '_?_:_' applied to '(bool, string, null)'\n | self.val1 > 1 ? 'a' : null\n | ..............^"],
      ['self.flag ? null : self.l', "ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(bool, null, list(int))'\n | self.flag ? null : self.l\n | ..........^"],
      ['self.flag ? self.m : (self.flag ? self.a : null)', "ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(bool, map(string, int), object)'\n | self.flag ? self.m : (self.flag ? self.a : null)\n | ..........^"],
      ['(self.flag ? self.a : null).zz == 1', "ERROR: <input>:1:28: undefined field 'zz'\n | (self.flag ? self.a : null).zz == 1\n | ...........................^"],
      ['(self.flag ? self.a : null) == null && self.s == 1', "ERROR: <input>:1:47: found no matching overload for '_==_' applied to '(string, int)'\n | (self.flag ? self.a : null) == null && self.s == 1\n | ..............................................^"],
      ['x == 1', "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x == 1\n | ^"],
      ['foo(self)', "ERROR: <input>:1:4: undeclared reference to 'foo' (in container '')\n | foo(self)\n | ...^"],
      ['self.s.foo()', "ERROR: <input>:1:11: undeclared reference to 'foo' (in container '')\n | self.s.foo()\n | ..........^"],
      ['self.l.all(x, y > 0)', "ERROR: <input>:1:15: undeclared reference to 'y' (in container '')\n | self.l.all(x, y > 0)\n | ..............^"],
      ["self.s[0] == 'a'", "ERROR: <input>:1:7: found no matching overload for '_[_]' applied to '(string, int)'\n | self.s[0] == 'a'\n | ......^"],
      ["self.l['a'] == 1", "ERROR: <input>:1:7: found no matching overload for '_[_]' applied to '(list(int), string)'\n | self.l['a'] == 1\n | ......^"],
      ["self.l.all(x, self.s[x] == 'a')", "ERROR: <input>:1:21: found no matching overload for '_[_]' applied to '(string, int)'\n | self.l.all(x, self.s[x] == 'a')\n | ....................^"],
      ["self.m[1] == 2", "ERROR: <input>:1:7: found no matching overload for '_[_]' applied to '(map(string, int), int)'\n | self.m[1] == 2\n | ......^"],
      ['has(self)', "ERROR: <input>:1:5: invalid argument to has() macro\n | has(self)\n | ....^"],
      ['self.s.y == 1', "ERROR: <input>:1:7: type 'string' does not support field selection\n | self.s.y == 1\n | ......^"],
      ["self.a['b'] == 1", "ERROR: <input>:1:7: found no matching overload for '_[_]' applied to '(object, string)'\n | self.a['b'] == 1\n | ......^"],
      ['cel.bind(o, self.a, o.b + o.zz > 0)', "ERROR: <input>:1:28: undefined field 'zz'\n | cel.bind(o, self.a, o.b + o.zz > 0)\n | ...........................^"],
      // has() of an item is checked as compiled: the item bound to a variable.
      ['has(self.objs[0].zz)', "ERROR: <input>:1:46: undefined field 'zz'\n | cel.bind(__has0__, self.objs[0], has(__has0__.zz))\n | .............................................^"],
      ['self.ts < "2020-01-01"', "ERROR: <input>:1:9: found no matching overload for '_<_' applied to '(google.protobuf.Timestamp, string)'\n | self.ts < \"2020-01-01\"\n | ........^"],
    ];
    for (const [expression, error] of refused) assert.deepEqual(check(expression), { error }, expression);
  });

  test('a conditional with null first has type null, as cel-go binds _?_:_ (bool, A, A) from its first branch', () => {
    // Null second, the conditional has the other branch's type; null first, null's, also when nested.
    const types: Array<[string, string]> = [
      ['self.flag ? null : self.a', 'null'], ['self.flag ? null : self.ts', 'null'], ['self.flag ? null : optional.of(1)', 'null'],
      ['self.flag ? (self.flag ? null : self.a) : self.a', 'null'], ['self.flag ? self.a : (self.flag ? null : self.a)', 'object'],
      ['self.flag ? self.a : null', 'object'], ['self.flag ? self.ts : null', 'google.protobuf.Timestamp'],
    ];
    for (const [expression, type] of types) assert.deepEqual(check(expression), { type }, expression);
    // A null compares with a nullable value, and cel-go passes it for any nullable parameter.
    const accepted = [
      '(self.flag ? null : self.a) == null', '(self.flag ? null : self.a) == self.a', 'cel.bind(v, self.flag ? null : self.a, v == null)',
      '(self.flag ? (self.flag ? null : self.a) : self.a) == null', '(self.flag ? self.a : (self.flag ? null : self.a)).b == 1',
      '(self.flag ? null : self.ts).getSeconds() > 0', '(self.flag ? null : self.ts) < self.ts', '(self.flag ? null : optional.of(self.a)).hasValue()',
      "(self.flag ? null : quantity('1')).isLessThan(quantity('2'))",
    ];
    for (const expression of accepted) assert.deepEqual(check(expression), { type: 'bool' }, expression);
    // A null has no fields: cel-go's checker refuses the selection, at its dot.
    const refused: Array<[string, string]> = [
      ['(self.flag ? null : self.a).b == 1', "ERROR: <input>:1:28: type 'null' does not support field selection\n | (self.flag ? null : self.a).b == 1\n | ...........................^"],
      ['(self.flag ? null : self.a).?b.orValue(0) == 0', "ERROR: <input>:1:28: type 'null' does not support field selection\n | (self.flag ? null : self.a).?b.orValue(0) == 0\n | ...........................^"],
      ['(self.flag ? null : (self).a).b == 1', "ERROR: <input>:1:30: type 'null' does not support field selection\n | (self.flag ? null : (self).a).b == 1\n | .............................^"],
      ['(self.flag ?\n  null : self.a).b == 1', "ERROR: <input>:2:17: type 'null' does not support field selection\n |   null : self.a).b == 1\n | ................^"],
      ['(self.flag ? (self.flag ? null : self.a) : self.a).b == 1', "ERROR: <input>:1:51: type 'null' does not support field selection\n | (self.flag ? (self.flag ? null : self.a) : self.a).b == 1\n | ..................................................^"],
      ['cel.bind(v, self.flag ? null : self.a, v.b == 1)', "ERROR: <input>:1:41: type 'null' does not support field selection\n | cel.bind(v, self.flag ? null : self.a, v.b == 1)\n | ........................................^"],
      ['[self.flag ? null : self.a][0].b == 1', "ERROR: <input>:1:31: type 'null' does not support field selection\n | [self.flag ? null : self.a][0].b == 1\n | ..............................^"],
      ['(self.flag ? null : self.a) == 1', "ERROR: <input>:1:29: found no matching overload for '_==_' applied to '(null, int)'\n | (self.flag ? null : self.a) == 1\n | ............................^"],
      ['(self.flag ? null : self.ts) + 1', "ERROR: <input>:1:30: found no matching overload for '_+_' applied to '(null, int)'\n | (self.flag ? null : self.ts) + 1\n | .............................^"],
      // Beside a scalar or a list, no overload for '_?_:_', whichever branch is null.
      ['self.flag ? null : self.s', "ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(bool, null, string)'\n | self.flag ? null : self.s\n | ..........^"],
      ['self.flag ? null : -(self.val1)', "ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(bool, null, int)'\n | self.flag ? null : -(self.val1)\n | ..........^"],
      ['self.flag ? (self.flag ? null : self.a) : self.l', "ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(bool, null, list(int))'\n | self.flag ? (self.flag ? null : self.a) : self.l\n | ..........^"],
    ];
    for (const [expression, error] of refused) assert.deepEqual(check(expression), { error }, expression);
  });

  test('a node with no type CEL can see is dyn, and each schema node keeps its own environment', () => {
    assert.deepEqual(typeCheckRule('self.anything == 1', { 'x-kubernetes-preserve-unknown-fields': true }, { resourceRoot: false, optionalOldSelf: false }), { type: 'bool' });
    const a = obj({ x: int });
    const b = obj({ x: str });
    assert.deepEqual(typeCheckRule('self.x == 1', a, { resourceRoot: false, optionalOldSelf: false }), { type: 'bool' });
    assert.match(typeCheckRule('self.x == 1', b, { resourceRoot: false, optionalOldSelf: false }).error ?? '', /'\(string, int\)'/);
  });
});
