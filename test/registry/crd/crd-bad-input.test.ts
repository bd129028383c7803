// Bad CustomResourceDefinitions and bad custom resources sent to a running server: each
// answered with the status, reason and causes kube-apiserver v1.36 gives, as
// apiextensions-apiserver's pkg/apis/apiextensions/validation/validation.go (and the
// schema, defaulting and customresource packages it calls) words them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { causesOf } from '../../helpers/answers.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const dns1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const dns1123 = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const costAdvice = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
const contributed = 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema';
const schemaPath = 'spec.validation.openAPIV3Schema';
const specPath = `${schemaPath}.properties[spec]`;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

let groups = 0;

/** A valid CRD in a group of its own, with one version whose schema has spec.size and spec.color, edited by the row. */
function widgetsCrd(edit: (c: Json) => void = () => {}): Json {
  const group = `bad${++groups}.example.com`;
  const c: Json = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      }],
    },
  };
  edit(c);
  return c;
}

const root = (c: Json) => c.spec.versions[0].schema.openAPIV3Schema;
const spec = (c: Json) => root(c).properties.spec;

/** A second version, v2, not stored, with the first one's schema. */
function addV2(c: Json): Json {
  const v2 = { ...structuredClone(c.spec.versions[0]), name: 'v2', storage: false };
  c.spec.versions.push(v2);
  return v2;
}

interface CrdRow {
  name: string;
  edit: (c: Json) => void;
  causes: string[];
}

const crdRows: CrdRow[] = [
  {
    name: 'a name that is no DNS subdomain is also told it must be <plural>.<group>',
    edit: (c) => { c.metadata.name = 'Bad_Name'; },
    causes: [`metadata.name: Invalid value: "Bad_Name": ${dns1123}`, 'metadata.name: Invalid value: "Bad_Name": must be spec.names.plural+"."+spec.group'],
  },
  {
    name: 'a generateName is held to <plural>.<group> as the name generated from it',
    edit: (c) => { c.metadata = { generateName: 'widgets-' }; },
    causes: [
      'metadata.generateName: Invalid value: "widgets-": must be spec.names.plural+"."+spec.group',
      // The generated name's random suffix is masked below.
      'metadata.name: Invalid value: "widgets-*": must be spec.names.plural+"."+spec.group',
    ],
  },
  {
    name: 'the first version\'s bad name is reported again as spec.version',
    edit: (c) => { c.spec.versions[0].name = 'V1.0'; },
    causes: [`spec.versions[0].name: Invalid value: "V1.0": ${dns1035}`, `spec.version: Invalid value: "V1.0": ${dns1035}`],
  },
  {
    name: 'a missing schema is reported before the names',
    edit: (c) => { delete c.spec.versions[0].schema; c.spec.names.singular = 'Bad'; },
    causes: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required', `spec.names.singular: Invalid value: "Bad": ${dns1035}`],
  },
  {
    name: 'preserveUnknownFields: true, with defaults in the schema and a webhook',
    edit: (c) => {
      c.spec.preserveUnknownFields = true;
      spec(c).properties.size.default = 1;
      c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://convert.example.com' }, conversionReviewVersions: ['v1'] } };
    },
    causes: [
      'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
      'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ],
  },
  {
    name: 'structural errors and OpenAPI errors are both reported, structural first',
    edit: (c) => {
      spec(c).properties.untyped = {};
      spec(c).properties.tags = { type: 'array', items: { type: 'string' }, uniqueItems: true };
    },
    causes: [
      `${specPath}.properties[untyped].type: Required value: must not be empty for specified object fields`,
      `${specPath}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ],
  },
  {
    name: 'the root may not be nullable',
    edit: (c) => { root(c).nullable = true; },
    causes: [`${schemaPath}.nullable: Forbidden: nullable cannot be true at the root`],
  },
  {
    name: 'a default in top-level metadata must not be set',
    edit: (c) => { root(c).properties.metadata = { type: 'object', default: { name: 'x' } }; },
    causes: [`${schemaPath}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
  },
  {
    name: 'a default in top-level metadata\'s maps must not be set either',
    edit: (c) => { root(c).properties.metadata = { type: 'object', additionalProperties: { type: 'string', default: 'x' } }; },
    causes: [
      `${schemaPath}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${schemaPath}.properties[metadata].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
    ],
  },
  {
    name: 'a map list key neither required nor defaulted',
    edit: (c) => {
      spec(c).properties.ports = {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' } } },
      };
    },
    causes: [`${specPath}.properties[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`],
  },
  {
    name: 'a nullable map list key and nullable set items',
    edit: (c) => {
      spec(c).properties.ports = {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string', nullable: true } } },
      };
      spec(c).properties.tags = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } };
    },
    causes: [
      `${specPath}.properties[ports].items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      `${specPath}.properties[tags].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
    ],
  },
  {
    name: 'a blank rule is not specified (not a compilation error)',
    edit: (c) => { spec(c)['x-kubernetes-validations'] = [{ rule: '  ' }]; },
    causes: [`${specPath}.x-kubernetes-validations[0].rule: Required value: rule is not specified`],
  },
  {
    name: 'rules\' messages: blank, with a line break, missing for a rule of several lines',
    edit: (c) => {
      spec(c)['x-kubernetes-validations'] = [
        { rule: 'true', message: '  ' },
        { rule: 'true', message: 'a\nb' },
        { rule: 'true &&\ntrue' },
        { rule: 'true', messageExpression: ' ' },
      ];
    },
    causes: [
      `${specPath}.x-kubernetes-validations[0].message: Invalid value: "  ": message must be non-empty if specified`,
      `${specPath}.x-kubernetes-validations[1].message: Invalid value: "a\\nb": message must not contain line breaks`,
      `${specPath}.x-kubernetes-validations[2].message: Required value: message must be specified if rule contains line breaks`,
      `${specPath}.x-kubernetes-validations[3].messageExpression: Required value: messageExpression must be non-empty if specified`,
    ],
  },
  {
    name: 'rules\' reasons and field paths',
    edit: (c) => {
      spec(c).properties.list = { type: 'array', items: { type: 'string' } };
      spec(c)['x-kubernetes-validations'] = [
        { rule: 'true', reason: 'FieldValueNope' },
        { rule: 'true', fieldPath: ' ' },
        { rule: 'true', fieldPath: '.nope' },
        { rule: 'true', fieldPath: '.list[0]' },
        { rule: 'true', fieldPath: ".size\n" },
        { rule: 'true', fieldPath: "['color']" },
      ];
    },
    causes: [
      `${specPath}.x-kubernetes-validations[0].reason: Unsupported value: "FieldValueNope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${specPath}.x-kubernetes-validations[1].fieldPath: Invalid value: " ": fieldPath must be non-empty if specified`,
      `${specPath}.x-kubernetes-validations[1].fieldPath: Invalid value: " ": fieldPath must be a valid path`,
      `${specPath}.x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
      `${specPath}.x-kubernetes-validations[3].fieldPath: Invalid value: ".list[0]": fieldPath must be a valid path`,
      `${specPath}.x-kubernetes-validations[4].fieldPath: Invalid value: ".size\\n": fieldPath must not contain line breaks`,
      `${specPath}.x-kubernetes-validations[4].fieldPath: Invalid value: ".size\\n": fieldPath must be a valid path`,
    ],
  },
  {
    name: 'a rule over a node with a schema error is not compiled; a sibling\'s is',
    edit: (c) => {
      spec(c).properties.tags = { type: 'array', items: { type: 'string' }, uniqueItems: true };
      spec(c)['x-kubernetes-validations'] = [{ rule: 'self.nope == 1' }];
      root(c).properties.status['x-kubernetes-validations'] = [{ rule: 'self.missing == 1' }];
    },
    causes: [
      `${specPath}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${schemaPath}.properties[status].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.missing == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'missing'\n | self.missing == 1\n | ....^`,
    ],
  },
  {
    name: 'rules\' compilation errors come deepest first',
    edit: (c) => {
      root(c)['x-kubernetes-validations'] = [{ rule: 'self.a == 1' }];
      spec(c)['x-kubernetes-validations'] = [{ rule: 'self.b == 1' }];
    },
    causes: [
      `${specPath}.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.b == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b == 1\n | ....^`,
      `${schemaPath}.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.a == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'a'\n | self.a == 1\n | ....^`,
    ],
  },
  {
    name: 'the selectable fields of the only version are the internal top-level ones, checked as field paths',
    edit: (c) => {
      root(c).properties.metadata = { type: 'object' };
      spec(c).properties.labels = { type: 'object', additionalProperties: { type: 'string' } };
      c.spec.versions[0].selectableFields = [
        { jsonPath: 'spec.color' }, { jsonPath: '.spec.nope' }, { jsonPath: '.spec' }, { jsonPath: '.metadata' },
        { jsonPath: ".spec['color']" }, { jsonPath: '.' }, { jsonPath: '.spec.labels.app' }, { jsonPath: '.spec.color' }, { jsonPath: '.spec.color' },
      ];
    },
    causes: [
      'spec.selectableFields[0].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec',
      'spec.selectableFields[1].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
      'spec.selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[3].jsonPath: Invalid value: ".metadata": must not point to fields in metadata',
      'spec.selectableFields[3].jsonPath: Invalid value: ".metadata": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[4].jsonPath: Invalid value: ".spec[\'color\']": is an invalid path: array notation is not allowed',
      'spec.selectableFields[5].jsonPath: Invalid value: ".": is an invalid path: unexpected end of JSON path',
      'spec.selectableFields[8].jsonPath: Duplicate value: ".spec.color"',
    ],
  },
  {
    name: 'selectable fields on one of two versions sharing a schema are refused, as upstream\'s internal version has them without a schema',
    edit: (c) => { addV2(c); c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.color' }]; },
    causes: ['spec.versions[0].selectableFields: Invalid value: "": selectableFields may only be set when version.schema.openAPIV3Schema is not included'],
  },
  {
    name: 'a deprecation warning: only on a deprecated version, not empty, printable, at most 256 bytes',
    edit: (c) => {
      c.spec.versions[0].deprecationWarning = 'soon';
      const v2 = addV2(c);
      v2.deprecated = true;
      v2.deprecationWarning = `${'é'.repeat(128)}\t`;
      v2.schema.openAPIV3Schema.properties.spec.properties.extra = { type: 'string' };
    },
    causes: [
      'spec.versions[0].deprecationWarning: Invalid value: "soon": can only be set for deprecated versions',
      `spec.versions[1].deprecationWarning: Invalid value: "${'é'.repeat(128)}\\t": must be <= 256 characters long`,
      'spec.versions[1].deprecationWarning: Invalid value: "' + 'é'.repeat(128) + '\\t": must only contain printable UTF-8 characters; non-printable character found at index 256',
    ],
  },
  {
    name: 'an empty deprecation warning',
    edit: (c) => { c.spec.versions[0].deprecated = true; c.spec.versions[0].deprecationWarning = ''; },
    causes: ['spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string'],
  },
  {
    name: 'a default with unknown fields is also checked against its schema',
    edit: (c) => { spec(c).default = { size: 'big', junk: 1 }; },
    causes: [
      `${specPath}.default: Invalid value: {"junk":1,"size":"big"}: must not have unknown fields`,
      `${specPath}.default.size: Invalid value: "string": ${specPath}.default.size in body must be of type integer: "string"`,
    ],
  },
  {
    name: 'a default must pass the rules of its schema',
    edit: (c) => {
      spec(c).properties.size.default = 0;
      spec(c).properties.size['x-kubernetes-validations'] = [{ rule: 'self > 0' }];
      spec(c).properties.color.default = 'blue';
      spec(c).properties.color['x-kubernetes-validations'] = [{ rule: 'self != "blue"', message: 'no blue' }];
    },
    causes: [
      `${specPath}.properties[size].default: Invalid value: 0: failed rule: self > 0`,
      `${specPath}.properties[color].default: Invalid value: "blue": no blue`,
    ],
  },
  {
    name: 'a default at the root is pruned as a resource\'s',
    edit: (c) => { root(c).default = { apiVersion: 'v1', junk: 1 }; },
    causes: [`${schemaPath}.default: Invalid value: {"apiVersion":"v1","junk":1}: must not have unknown fields`],
  },
  {
    // Upstream's getExpressionCost: a rule's cost times how often it can run (here a million
    // strings of up to 3 MiB); apiextensions words it "the rule", not "the rule(s)".
    name: 'a rule on a list\'s items costs its cost times the list\'s size, against one rule\'s limit and then the schema\'s',
    edit: (c) => { spec(c).properties.tags = { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] } }; },
    causes: [
      `${specPath}.properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${costAdvice}`,
      `${specPath}.properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: ${contributed}`,
      `${schemaPath}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${costAdvice}`,
    ],
  },
  {
    // Upstream's TotalCost keeps the 4 dearest rules, dearest first.
    name: 'over the schema\'s limit, the 4 dearest rules are named, dearest first, before the total',
    edit: (c) => {
      const rules = [1, 2, 3, 4, 5].map((n) => ({ rule: Array.from({ length: n }, (_, i) => `self.matches('^[a-z]{${i}}$')`).join(' && ') }));
      spec(c).properties.tags = { type: 'array', items: { type: 'string', 'x-kubernetes-validations': rules } };
    },
    causes: [
      ...[0, 1, 2, 3, 4].map((i) => `${specPath}.properties[tags].items.x-kubernetes-validations[${i}].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${costAdvice}`),
      ...[4, 3, 2, 1].map((i) => `${specPath}.properties[tags].items.x-kubernetes-validations[${i}].rule: Forbidden: ${contributed}`),
      `${schemaPath}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${costAdvice}`,
    ],
  },
  {
    // The dearest rules (names' two matches first) are named after every node's own causes, as upstream's walk adds them at its end.
    name: 'costly rules on two nodes: each node\'s cost, then the dearest rules of both, then the total',
    edit: (c) => {
      spec(c).properties.tags = { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] } };
      spec(c).properties.names = { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$') && self.matches('^[a-y]+$')" }] } };
    },
    causes: [
      `${specPath}.properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${costAdvice}`,
      `${specPath}.properties[names].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${costAdvice}`,
      `${specPath}.properties[names].items.x-kubernetes-validations[0].rule: Forbidden: ${contributed}`,
      `${specPath}.properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: ${contributed}`,
      `${schemaPath}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${costAdvice}`,
    ],
  },
  {
    name: 'schemas under definitions are checked too',
    edit: (c) => { spec(c).definitions = { other: { type: 'null' } }; },
    causes: [
      `${specPath}.definitions: Forbidden: definitions is not supported`,
      `${specPath}.definitions[other].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${specPath}.definitions[other].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    ],
  },
];

describe('a bad CustomResourceDefinition is 422 Invalid with upstream\'s causes', () => {
  for (const row of crdRows) {
    test(row.name, async () => {
      const body = widgetsCrd(row.edit);
      const res = await server.request('POST', crdsPath, { body });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.reason, 'Invalid');
      const causes = causesOf(res).map((c) => c.replace(/"widgets-[a-z0-9]{5}"/, '"widgets-*"'));
      assert.deepEqual(causes, row.causes);
    });
  }

  test('the message lists the causes as upstream\'s aggregate does', async () => {
    const res = await server.request('POST', crdsPath, { body: widgetsCrd((c) => { root(c).nullable = true; c.spec.versions[0].name = 'V1'; }) });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.message, `CustomResourceDefinition.apiextensions.k8s.io "${res.json.details.name}" is invalid: [`
      + `spec.versions[0].name: Invalid value: "V1": ${dns1035}, spec.version: Invalid value: "V1": ${dns1035}, ${schemaPath}.nullable: Forbidden: nullable cannot be true at the root]`);
  });

  test('selectable fields on versions with schemas of their own are checked at each version', async () => {
    const res = await server.request('POST', crdsPath, {
      body: widgetsCrd((c) => {
        const v2 = addV2(c);
        v2.schema.openAPIV3Schema.properties.spec.properties.extra = { type: 'string' };
        v2.selectableFields = [{ jsonPath: '.spec.nope' }];
      }),
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.versions[1].selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field']);
  });

  test('nine selectable fields of which one is a duplicate are not too many', async () => {
    const res = await server.request('POST', crdsPath, {
      body: widgetsCrd((c) => {
        for (let i = 0; i < 9; i++) spec(c).properties[`f${i}`] = { type: 'string' };
        c.spec.versions[0].selectableFields = [0, 1, 2, 3, 4, 5, 6, 7, 0].map((i) => ({ jsonPath: `.spec.f${i}` }));
      }),
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.selectableFields[8].jsonPath: Duplicate value: ".spec.f0"']);
  });
});

async function established(crd: Json): Promise<Json> {
  const res = await server.request('POST', crdsPath, { body: crd });
  assert.equal(res.status, 201, res.text);
  return eventually(async () => {
    const got = await server.request('GET', `${crdsPath}/${crd.metadata.name}`);
    assert.ok(got.json.status?.conditions?.some((c: Json) => c.type === 'Established' && c.status === 'True'), 'Established');
    return got.json;
  });
}

describe('updates of a CustomResourceDefinition', () => {
  test('a changed group is immutable, without the name rule of a new CRD', async () => {
    const crd = await established(widgetsCrd());
    const res = await server.request('PUT', `${crdsPath}/${crd.metadata.name}`, { body: { ...crd, spec: { ...crd.spec, group: 'other.example.com' } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), ['spec.group: Invalid value: "other.example.com": field is immutable']);
  });

  test('a stored version cannot leave spec.versions; preserveUnknownFields cannot become true', async () => {
    const crd = await established(widgetsCrd());
    const versions = [{ ...crd.spec.versions[0], storage: false }, { ...crd.spec.versions[0], name: 'v2', storage: true }];
    const added = await server.request('PUT', `${crdsPath}/${crd.metadata.name}`, { body: { ...crd, spec: { ...crd.spec, versions } } });
    assert.equal(added.status, 200, added.text);
    const res = await server.request('PUT', `${crdsPath}/${crd.metadata.name}`, {
      body: { ...added.json, spec: { ...added.json.spec, versions: [added.json.spec.versions[1]], preserveUnknownFields: true } },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res), [
      'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
  });
});

describe('bad custom resources', () => {
  let base = '';
  let scaled = '';
  before(async () => {
    const plain = await established(widgetsCrd());
    base = `/apis/${plain.spec.group}/v1/namespaces/default/widgets`;
    const withScale = await established(widgetsCrd((c) => {
      spec(c).properties.replicas = { type: 'integer' };
      spec(c).properties.bag = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      c.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.bag.selector' } };
    }));
    scaled = `/apis/${withScale.spec.group}/v1/namespaces/default/widgets`;
    await eventually(async () => assert.equal((await server.request('GET', scaled)).status, 200));
    await eventually(async () => assert.equal((await server.request('GET', base)).status, 200));
  });

  const json = { 'content-type': 'application/json' };
  const raw = (apiVersion: string, name: string, specText: string) => `{"apiVersion":"${apiVersion}","kind":"Widget","metadata":{"name":"${name}"},"spec":${specText}}`;

  test('an integer past int64 is a number, not an integer', async () => {
    const group = base.split('/')[2];
    const res = await server.request('POST', base, { raw: raw(`${group}/v1`, 'huge', '{"size":123456789012345678901234567890}'), headers: json });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    assert.deepEqual(causesOf(res), ['spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"']);
  });

  test('a scale path\'s value of another type is reported as unstructured\'s accessors word it', async () => {
    const group = scaled.split('/')[2];
    const rows: [string, string, string[]][] = [
      ['{"replicas":1e19}', 'float', [
        'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
        '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1e+19 is of the type float64, expected int64',
      ]],
      ['{"bag":{"selector":{"app":"x","n":[1,2.5]}}}', 'selector', [
        '.spec.bag.selector: Invalid value: "": .spec.bag.selector accessor error: map[app:x n:[1 2.5]] is of the type map[string]interface {}, expected string',
      ]],
      ['{"bag":{"selector":12}}', 'selector-int', [
        '.spec.bag.selector: Invalid value: "": .spec.bag.selector accessor error: 12 is of the type int64, expected string',
      ]],
      ['"flat"', 'flat', [
        'spec: Invalid value: "string": spec in body must be of type object: "string"',
        '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: flat is of the type string, expected map[string]interface{}',
        '.spec.bag.selector: Invalid value: "": .spec.bag accessor error: flat is of the type string, expected map[string]interface{}',
      ]],
    ];
    for (const [specText, name, expected] of rows) {
      const res = await server.request('POST', scaled, { raw: raw(`${group}/v1`, name, specText), headers: json });
      assert.equal(res.status, 422, `${name}: ${res.text}`);
      assert.deepEqual(causesOf(res), expected, name);
    }
  });
});
