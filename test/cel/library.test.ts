// Kubernetes' CEL libraries in Plinth's environment: each function with an answer
// upstream's cel-go gives, and the errors it raises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, escapePropertyName } from '../../src/cel/environment.ts';

function evaluate(expression: string, self?: unknown): unknown {
  const compiled = compile(expression, { self: 'dyn' });
  assert.equal(compiled.error, undefined, expression);
  return compiled.program!({ self });
}

const answers: Array<[string, unknown]> = [
  // conversions of timestamps and durations cel-js lacks
  ['string(timestamp("2024-05-01T10:00:00.5Z"))', '2024-05-01T10:00:00.5Z'],
  ['string(duration("1h1.5s"))', '3601.5s'],
  ['string(duration("-1m0.25s"))', '-60.25s'],
  ["'%s'.format([duration('-0.5s')])", '-0.5s'],
  ['int(timestamp("2024-05-01T10:00:00Z"))', 1714557600n],
  // strings extension
  ["'tacocat'.charAt(3)", 'o'],
  ["'tacocat'.charAt(7)", ''],
  ["'a-b-c'.replace('-', '+')", 'a+b+c'],
  ["'a-b-c'.replace('-', '+', 1)", 'a+b-c'],
  ["'a,b,c'.split(',')", ['a', 'b', 'c']],
  ["'a,b,c'.split(',', 2)", ['a', 'b,c']],
  ["'  x \\t'.trim()", 'x'],
  ["'abc'.reverse()", 'cba'],
  ["'TacoCat'.lowerAscii()", 'tacocat'],
  ["strings.quote('a\"b')", '"a\\"b"'],
  ["'%s is %d, %.2f, %x, %o, %b, %e'.format(['x', 3, 2.345, 255, 8, 5, 1234.5])", 'x is 3, 2.35, ff, 10, 101, 1.234500e+03'],
  ["'%.0f %.0f'.format([2.5, 3.5])", '2 4'],
  ["'%s'.format([[1, 'a', null, {'b': true}]])", '[1, a, null, {b: true}]'],
  ["strings.quote('tab\\there')", '"tab\\there"'],
  // two-variable comprehensions
  ['[10, 20].all(i, v, v == (i + 1) * 10)', true],
  ["{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)", true],
  ['[1, 2, 3].existsOne(i, v, v > 2)', true],
  ['[1, 2, 3].transformList(i, v, i > 0, v * 2)', [4n, 6n]],
  ["{'a': 1}.transformMap(k, v, v + 1)", new Map([['a', 2n]])],
  // lists
  ['[1, 2, 2, 3].isSorted()', true],
  ["['b', 'a'].isSorted()", false],
  ['[1, 2, 3].sum()', 6n],
  ['[1.5, 2.5].sum()', 4],
  ['[].sum()', 0n],
  ['[3, 1, 2].min()', 1n],
  ["['a', 'c', 'b'].max()", 'c'],
  ['[1, 2, 1].indexOf(1)', 0n],
  ['[1, 2, 1].lastIndexOf(1)', 2n],
  ['[1, 2].indexOf(3)', -1n],
  // sets
  ['sets.contains([1, 2, 3], [3, 1])', true],
  ['sets.equivalent([1, 2], [2, 1, 1])', true],
  ['sets.intersects([1, 2], [3])', false],
  // regex (RE2)
  ["'abc 123 def 456'.find('[0-9]+')", '123'],
  ["'abc'.find('[0-9]+')", ''],
  ["'abc 123 def 456'.findAll('[0-9]+')", ['123', '456']],
  ["'abc 123 def 456'.findAll('[0-9]+', 1)", ['123']],
  // Quantity
  ["quantity('1Gi').isGreaterThan(quantity('1000Mi'))", true],
  ["quantity('500m').isLessThan(quantity('1'))", true],
  ["quantity('1Gi') == quantity('1024Mi')", true],
  ["quantity('1k').asInteger()", 1000n],
  ["quantity('1.5').isInteger()", false],
  ["quantity('500m').asApproximateFloat()", 0.5],
  ["quantity('-2').sign()", -1n],
  ["quantity('1').add(quantity('500m')).compareTo(quantity('1500m'))", 0n],
  ["quantity('2').sub(1).isGreaterThan(quantity('999m'))", true],
  ["isQuantity('1Gi') && !isQuantity('1 Gi')", true],
  // URL
  ["url('https://example.com:8080/a/b?x=1&x=2').getScheme()", 'https'],
  ["url('https://example.com:8080/a/b?x=1&x=2').getHost()", 'example.com:8080'],
  ["url('https://[::1]:80/').getHostname()", '::1'],
  ["url('https://example.com:8080/a/b?x=1&x=2').getPort()", '8080'],
  ["url('https://example.com/a%20b').getEscapedPath()", '/a%20b'],
  ["url('https://example.com/?x=1&x=2&y=3').getQuery()", new Map([['x', ['1', '2']], ['y', ['3']]])],
  ["url('/absolute/path').getHost()", ''],
  ["isURL('https://example.com') && !isURL('example.com') && isURL('/p')", true],
  // IP and CIDR
  ["ip('10.0.0.1').family()", 4n],
  ["ip('2001:db8::1').family()", 6n],
  ["string(ip('2001:DB8:0:0:0:0:0:1'))", '2001:db8::1'],
  ["ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", true],
  ["ip('127.0.0.1').isLoopback() && ip('::1').isLoopback()", true],
  ["ip('0.0.0.0').isUnspecified() && ip('169.254.1.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()", true],
  ["ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()", true],
  ["ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()", true],
  ["isIP('1.2.3.4') && !isIP('01.2.3.4') && !isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0')", true],
  ["cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && cidr('10.0.0.0/8').containsIP('10.255.0.1')", true],
  ["cidr('10.0.0.0/8').containsIP('11.0.0.1')", false],
  ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')", true],
  ["string(cidr('192.168.1.5/24').masked())", '192.168.1.0/24'],
  ["cidr('192.168.1.5/24').prefixLength()", 24n],
  ["cidr('192.168.1.5/24').ip() == ip('192.168.1.5')", true],
  ["isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0')", true],
  // semver
  ["semver('1.2.3-rc.1').major() + semver('1.2.3').minor() + semver('1.2.3').patch()", 6n],
  ["semver('1.2.3-rc.1').isLessThan(semver('1.2.3'))", true],
  ["semver('1.10.0').isGreaterThan(semver('1.9.9'))", true],
  ["semver('1.0.0-alpha').compareTo(semver('1.0.0-alpha.1'))", -1n],
  ["isSemver('1.2.3') && !isSemver('v1.2') && isSemver('v1.2', true) && semver('v01.2', true) == semver('1.2.0')", true],
  // format
  ["format.dns1123Label().validate('my-name').hasValue()", false],
  ["format.dns1123Label().validate('My_Name').value().size()", 1n],
  ["format.dns1035Label().validate('1abc').hasValue()", true],
  ["format.dns1123LabelPrefix().validate('abc-').hasValue()", false],
  ["format.qualifiedName().validate('example.com/name').hasValue()", false],
  ["format.labelValue().validate('x'.format([]) + 'y').hasValue()", false],
  ["format.named('uuid').value().validate('0b4c1e6e-4f0e-4e61-9b0a-2f4f4c6d8a1e').hasValue()", false],
  ["format.named('datetime').value().validate('2026-11-28').hasValue()", true],
  ["format.named('nope').hasValue()", false],
  // optional types and bindings
  ["self.?name.orValue('none')", 'none'],
  ['cel.bind(x, 3, x * x)', 9n],
];

test('library functions answer as upstream', () => {
  for (const [expression, want] of answers) assert.deepEqual(evaluate(expression, {}), want, expression);
});

test('has() tests a field of any expression, as cel-go\'s (Gateway API\'s CRDs write has(self[0].matches))', () => {
  const self = [{ matches: [1], spec: { a: 1 } }, { spec: {} }];
  assert.equal(evaluate('has(self[0].matches)', self), true);
  assert.equal(evaluate('has(self[1].matches)', self), false);
  assert.equal(evaluate('has(self[1].spec.a) || has(self[0].spec.a)', self), true);
  assert.equal(evaluate("has({'k': {'v': 1}}['k'].v) && !has(self[1].spec.?a.b)", self), true);
  assert.equal(evaluate('(self.size() > 0 ? (has(self[0].matches) ? self[0].matches.size() : 0) : 0) == 1', self), true);
  assert.equal(evaluate('self.exists(x, has(x.matches)) && has(self[has(self[0].spec) ? 0 : 1].spec)', self), true);
  assert.throws(() => evaluate('has(self[0].nothing.a)', self), /No such key: nothing/);
});

test('library functions raise upstream\'s errors', () => {
  assert.throws(() => evaluate("'abc'.charAt(4)"), /index out of range: 4/);
  assert.throws(() => evaluate('[].min()'), /min called on empty list/);
  assert.throws(() => evaluate("quantity('12 Gi')"), /quantities must match the regular expression/);
  assert.throws(() => evaluate("url('example.com')"), /URL parse error during conversion from string/);
  assert.throws(() => evaluate("quantity('1.5').asInteger()"), /cannot convert value to integer/);
  assert.throws(() => evaluate("'a'.find('(')"), /error parsing regexp/);
  assert.throws(() => evaluate("'%d %d'.format([1])"), /index 1 out of range/);
  assert.throws(() => evaluate("ip('1.2.3')"), /IP Address "1\.2\.3" parse error during conversion from string/);
  assert.throws(() => evaluate("cidr('1.2.3.4/40')"), /network address "1\.2\.3\.4\/40" parse error during conversion from string/);
  assert.throws(() => evaluate("semver('1.2')"), /Invalid semver: 1\.2/);
  assert.throws(() => evaluate("'%a'.format([1])"), /unrecognized formatting clause "a"/);
  assert.throws(() => evaluate("'%d'.format(['x'])"), /decimal clause can only be used on integers/);
});

test('null compares with and joins a conditional with the types cel-go calls nullable', () => {
  // Timestamps, durations and the libraries' types (object types in cel-go) are never null.
  assert.equal(evaluate("timestamp('2020-01-01T00:00:00Z') != null && null != duration('1s') && quantity('1') != null && !(url('https://x') == null)"), true);
  assert.equal(evaluate("ip('10.0.0.1') == null || null == cidr('10.0.0.0/8') || semver('1.0.0') == null"), false);
  const joined = "(self > 1 ? timestamp('2020-01-01T00:00:00Z') : null) == null";
  assert.equal(evaluate(joined, 2n), false);
  assert.equal(evaluate(joined, 0n), true);
  assert.equal(evaluate("(self > 1 ? null : (self > 0 ? optional.of(1) : null)) == null && optional.none() != null", 1n), false);
  // A scalar, a list or a map is not nullable: cel-go finds no overload for '_?_:_'.
  for (const expression of ["self > 1 ? 'many' : null", 'self > 1 ? null : [1]', "self > 1 ? {'a': 1} : null", "timestamp('2020-01-01T00:00:00Z') == 'a'"]) {
    assert.match(compile(expression, { self: 'dyn' }).error ?? '', /^ERROR: <input>:1:\d+: found no matching overload for '(_\?_:_|_==_)'/, expression);
  }
});

test('a conditional with null first has type null, and runs', () => {
  const nullFirst = "(self > 1 ? null : timestamp('2020-01-01T00:00:00Z'))";
  assert.equal(evaluate(`${nullFirst} == null`, 2n), true);
  assert.equal(evaluate(`${nullFirst} == null`, 0n), false);
  assert.equal(compile(nullFirst, { self: 'dyn' }).type, 'null');
  assert.equal(compile(`${nullFirst}.getSeconds()`, { self: 'dyn' }).type, 'int');
  assert.equal(compile(`${nullFirst}.seconds`, { self: 'dyn' }).error,
    `ERROR: <input>:1:54: type 'null' does not support field selection\n | ${nullFirst}.seconds\n | ${'.'.repeat(53)}^`);
  // Null second, the other branch's type.
  assert.equal(compile("self > 1 ? timestamp('2020-01-01T00:00:00Z') : null", { self: 'dyn' }).type, 'google.protobuf.Timestamp');
});

test('compile errors are reported, not thrown', () => {
  assert.match(compile('self.foo(', { self: 'dyn' }).error ?? '', /^ERROR: <input>: /);
  // Checker errors in cel-go's words, placed as cel-go places them.
  assert.equal(compile('unknownFn(self)', { self: 'dyn' }).error, "ERROR: <input>:1:10: undeclared reference to 'unknownFn' (in container '')\n | unknownFn(self)\n | .........^");
  assert.equal(compile('objet.spec.replicas > 1', { object: 'dyn' }).error, "ERROR: <input>:1:1: undeclared reference to 'objet' (in container '')\n | objet.spec.replicas > 1\n | ^");
  assert.equal(compile('1 + "a"', {}).error, "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + \"a\"\n | ..^");
  assert.equal(compile('self.a == 1', { self: 'dyn' }).type, 'bool');
});

test('property names are escaped as upstream\'s cel.Escape', () => {
  assert.equal(escapePropertyName('name'), 'name');
  assert.equal(escapePropertyName('namespace'), '__namespace__');
  assert.equal(escapePropertyName('foo-bar'), 'foo__dash__bar');
  assert.equal(escapePropertyName('a.b/c'), 'a__dot__b__slash__c');
  assert.equal(escapePropertyName('x__y'), 'x__underscores__y');
  assert.equal(escapePropertyName('1abc'), undefined);
  assert.equal(escapePropertyName('a b'), undefined);
});
