// Structural schema checks (src/schema/structural.ts), case by case after
// apiextensions-apiserver's pkg/apiserver/schema/validation.go and complete.go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unsupportedStructuralField, validateStructural } from '../../../src/schema/structural.ts';

const root = 'spec.validation.openAPIV3Schema';

function reasons(schema: unknown): string[] {
  return validateStructural(schema, root).map((c) => `${c.field}: ${c.message}`);
}

const cases: { name: string; schema: unknown; expected: string[] }[] = [
  {
    name: 'a typed object with typed fields is structural',
    schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } } } },
    expected: [],
  },
  {
    name: 'the root needs a type',
    schema: { properties: { spec: { type: 'object' } } },
    expected: [`${root}.type: Required value: must not be empty at the root`],
  },
  {
    name: 'the root must be an object',
    schema: { type: 'string' },
    expected: [`${root}.type: Invalid value: "string": must be object at the root`],
  },
  {
    name: 'fields and items need a type',
    schema: { type: 'object', properties: { spec: { properties: { list: { type: 'array', items: {} } } } } },
    expected: [
      `${root}.properties[spec].properties[list].items.type: Required value: must not be empty for specified array items`,
      `${root}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ],
  },
  {
    name: 'an array needs items',
    schema: { type: 'object', properties: { list: { type: 'array' } } },
    expected: [`${root}.properties[list].items: Required value: must be specified`],
  },
  {
    name: 'x-kubernetes-preserve-unknown-fields and x-kubernetes-int-or-string stand in for a type',
    schema: { type: 'object', properties: { any: { 'x-kubernetes-preserve-unknown-fields': true }, port: { 'x-kubernetes-int-or-string': true } } },
    expected: [],
  },
  {
    name: 'additionalProperties are not allowed at the root',
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    expected: [`${root}.additionalProperties: Forbidden: must not be used at the root`],
  },
  {
    name: 'value validations under a junctor may not specify types, defaults or descriptions',
    schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ type: 'object', description: 'x', default: {}, nullable: true, properties: { a: { title: 't' } } }] } },
    },
    expected: [
      `${root}.properties[spec].anyOf[0].default: Forbidden: must be undefined to be structural`,
      `${root}.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${root}.properties[spec].anyOf[0].nullable: Forbidden: must be false to be structural`,
      `${root}.properties[spec].anyOf[0].properties[a].title: Forbidden: must be empty to be structural`,
      `${root}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`,
    ],
  },
  {
    name: 'extensions under a junctor are forbidden',
    schema: {
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'string' }, allOf: [{ 'x-kubernetes-list-type': 'set', 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: { type: 'string' } }] } },
    },
    expected: [
      `${root}.properties[list].allOf[0].additionalProperties: Forbidden: must be undefined to be structural`,
      `${root}.properties[list].allOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
      `${root}.properties[list].allOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
    ],
  },
  {
    name: 'int-or-string may be spelled as anyOf integer and string',
    schema: { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } },
    expected: [],
  },
  {
    name: 'int-or-string may be spelled as allOf with that anyOf first',
    schema: { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+$' }] } } },
    expected: [],
  },
  {
    name: 'int-or-string is exclusive with preserve-unknown-fields and embedded-resource',
    schema: { type: 'object', properties: { v: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } },
    expected: [`${root}.properties[v].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
  },
  {
    name: 'metadata at the root may only restrict name and generateName',
    schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 }, labels: { type: 'object' } } } } },
    expected: [`${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  {
    name: 'metadata at the root restricting the name is fine',
    schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', pattern: '^a' } } } } },
    expected: [],
  },
  {
    name: 'metadata must be an object, kind and apiVersion strings',
    schema: { type: 'object', properties: { metadata: { type: 'string' }, kind: { type: 'integer' }, apiVersion: { type: 'string' } } },
    expected: [
      `${root}.properties[kind].type: Invalid value: "integer": must be string`,
      `${root}.properties[metadata].type: Invalid value: "string": must be object`,
    ],
  },
  {
    name: 'metadata may not be specified under a junctor',
    schema: { type: 'object', properties: { metadata: { type: 'object' } }, anyOf: [{ properties: { metadata: {} } }] },
    expected: [`${root}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`],
  },
  {
    name: 'an embedded resource must be an object with properties or preserved fields',
    schema: { type: 'object', properties: { a: { 'x-kubernetes-embedded-resource': true }, b: { type: 'object', 'x-kubernetes-embedded-resource': true } } },
    expected: [
      `${root}.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${root}.properties[a].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
      `${root}.properties[b].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    ],
  },
  {
    name: 'fields a root junctor speaks of must be specified',
    schema: { type: 'object', properties: { a: { type: 'string' } }, oneOf: [{ required: ['a'] }, { properties: { b: { minLength: 1 } } }] },
    expected: [`${root}.properties[b]: Required value: because it is defined in ${root}.oneOf[1].properties[b]`],
  },
  {
    name: 'an invalid pattern is reported with Go\'s regexp error',
    schema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
    expected: [`${root}.properties[a].pattern: Invalid value: "(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(\``],
  },
];

// Patterns are RE2 syntax, as Go's regexp compiles them upstream: what RE2 accepts is a
// valid schema even where JavaScript's RegExp refuses it, and the reverse.
const patterns: [name: string, pattern: string, error: string | undefined][] = [
  ['prometheus-operator\'s case-insensitive flag (prometheusrules)', '^(?i)(abort|warn)?$', undefined],
  ['a flag group', '(?i:ab)c', undefined],
  ['dot matches newline', '(?s)^a.b$', undefined],
  ['end of text', '^[a-z]+\\z', undefined],
  ['a POSIX class', '^[[:alpha:]][[:alnum:]_]*$', undefined],
  ['a Unicode class', '^\\pL+$', undefined],
  ['a Python-style named group', '^(?P<key>[a-z]+)=', undefined],
  ['quoted text', '^\\Q1.2\\E$', undefined],
  ['lookahead', '^(?=a)b', 'invalid or unsupported Perl syntax: `(?=`'],
  ['negative lookahead', '^(?!a)b', 'invalid or unsupported Perl syntax: `(?!`'],
  ['a backreference', '(a)\\1', 'invalid escape sequence: `\\1`'],
  ['a possessive quantifier', 'a++', 'invalid nested repetition operator: `++`'],
  ['\\Z, which Go does not know', 'a\\Z', 'invalid escape sequence: `\\Z`'],
  ['a trailing backslash', 'a\\', 'trailing backslash at end of expression: ``'],
  ['a repeat over 1000', 'a{1001}', 'invalid repeat count: `{1001}`'],
  ['nesting over 1000 deep', `${'('.repeat(1001)}${')'.repeat(1001)}`, `expression nests too deeply: \`${'('.repeat(1001)}${')'.repeat(1001)}\``],
];

for (const [name, pattern, error] of patterns) {
  test(`pattern: ${name} ${error === undefined ? 'is valid' : 'is refused'}`, () => {
    const expected = error === undefined ? [] : [`${root}.properties[a].pattern: Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: error parsing regexp: ${error}`];
    assert.deepEqual(reasons({ type: 'object', properties: { a: { type: 'string', pattern } } }), expected);
  });
}

for (const c of cases) {
  test(c.name, () => {
    assert.deepEqual(reasons(c.schema), c.expected);
  });
}

test('reasons are sorted by their text, as upstream sorts them', () => {
  const got = reasons({ type: 'object', properties: { z: {}, a: {} } });
  assert.deepEqual(got, [...got].sort());
  assert.equal(got.length, 2);
});

const unsupported: [string, unknown, string | undefined][] = [
  ['a plain schema', { type: 'object' }, undefined],
  ['$schema', { type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' }, "OpenAPIV3Schema 'schema' is not supported"],
  ['items as an array, nested', { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }, "OpenAPIV3Schema 'items' must be a schema, but is an array"],
  ['definitions', { type: 'object', definitions: { a: { type: 'string' } } }, "OpenAPIV3Schema 'definitions' is not supported"],
];

for (const [name, schema, expected] of unsupported) {
  test(`NewStructural refuses ${name}`, () => {
    assert.equal(unsupportedStructuralField(schema), expected);
  });
}
