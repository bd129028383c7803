// The customresourcedefinitions type: defaults and validation as upstream's
// apiextensions-apiserver (pkg/apis/apiextensions/v1/defaults.go, validation/validation.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { customResourceDefinitionsType } from '../../../src/registry/crd/customresourcedefinitions.ts';
import { validateObjectMeta } from '../../../src/registry/validation/index.ts';

const crds = customResourceDefinitionsType();

type Json = Record<string, any>;

const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer', default: 1 } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

function crd(edit: (c: Json) => void = () => {}): KubeObject {
  const c: Json = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: structuredClone(schema) } }],
    },
  };
  edit(c);
  return c as KubeObject;
}

/** Defaults and prepareForCreate, then the causes the Store would collect (metadata, then the strategy's). */
function create(input: KubeObject): { obj: Json; causes: string[] } {
  const obj = structuredClone(input);
  crds.strategy.defaults?.(obj);
  crds.strategy.prepareForCreate!(obj);
  const causes = [...validateObjectMeta(obj, crds.nameRule, crds.namespaced), ...crds.strategy.validate!(obj)];
  return { obj, causes: causes.map((c) => `${c.field}: ${c.message}`) };
}

test('the customresourcedefinitions type is described as upstream serves it', () => {
  const { strategy: _s, strategyUsesCel: _cel, ...described } = crds;
  assert.deepEqual(described, {
    group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', singular: 'customresourcedefinition',
    kind: 'CustomResourceDefinition', listKind: 'CustomResourceDefinitionList', namespaced: false, shortNames: ['crd', 'crds'],
    categories: ['api-extensions'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'], schemaName: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    allowCreateOnUpdate: false, allowUnconditionalUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain',
    subresourceDiscovery: { status: { kind: 'CustomResourceDefinition', verbs: ['get', 'patch', 'update'] } },
  });
});

test('a new CRD gets v1 defaults, generation 1 and a status of its own', () => {
  const input = crd((c) => {
    c.status = { acceptedNames: { plural: 'x', kind: 'X' }, conditions: [{ type: 'Established', status: 'True' }] };
  });
  const { obj, causes } = create(input);
  assert.deepEqual(causes, []);
  assert.equal(obj.metadata.generation, 1);
  assert.deepEqual(obj.spec.names, { plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'], singular: 'crontab', listKind: 'CronTabList' });
  assert.deepEqual(obj.spec.conversion, { strategy: 'None' });
  assert.deepEqual(obj.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
});

test('schema keywords Go would omit when empty are dropped', () => {
  const { obj } = create(crd((c) => {
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.nullable = false;
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.required = [];
    c.spec.versions[0].schema.openAPIV3Schema.description = '';
  }));
  const s = obj.spec.versions[0].schema.openAPIV3Schema;
  assert.equal('description' in s, false);
  assert.equal('nullable' in s.properties.spec, false);
  assert.equal('required' in s.properties.spec, false);
});

/** The fields of the internal apiextensions.JSONSchemaProps in declaration order, at their zero values. */
const schemaPropsFields: [string, string][] = [
  ['ID', '""'], ['Schema', '""'], ['Ref', 'null'], ['Description', '""'], ['Type', '""'], ['Nullable', 'false'], ['Format', '""'], ['Title', '""'],
  ['Default', 'null'], ['Maximum', 'null'], ['ExclusiveMaximum', 'false'], ['Minimum', 'null'], ['ExclusiveMinimum', 'false'],
  ['MaxLength', 'null'], ['MinLength', 'null'], ['Pattern', '""'], ['MaxItems', 'null'], ['MinItems', 'null'], ['UniqueItems', 'false'],
  ['MultipleOf', 'null'], ['Enum', 'null'], ['MaxProperties', 'null'], ['MinProperties', 'null'], ['Required', 'null'], ['Items', 'null'],
  ['AllOf', 'null'], ['OneOf', 'null'], ['AnyOf', 'null'], ['Not', 'null'], ['Properties', 'null'], ['AdditionalProperties', 'null'],
  ['PatternProperties', 'null'], ['Dependencies', 'null'], ['AdditionalItems', 'null'], ['Definitions', 'null'], ['ExternalDocs', 'null'],
  ['Example', 'null'], ['XPreserveUnknownFields', 'null'], ['XEmbeddedResource', 'false'], ['XIntOrString', 'false'], ['XListMapKeys', 'null'],
  ['XListType', 'null'], ['XMapType', 'null'], ['XValidations', 'null'],
];

/** A JSONSchemaProps as json.Marshal writes the internal struct, with the given fields' JSON set. */
const goProps = (set: Record<string, string> = {}) => `{${schemaPropsFields.map(([k, zero]) => `"${k}":${set[k] ?? zero}`).join(',')}}`;

const invalidCases: { name: string; edit: (c: Json) => void; expected: string[] }[] = [
  {
    name: 'the name must be <plural>.<group>',
    edit: (c) => { c.metadata.name = 'cron.stable.example.com'; },
    expected: ['metadata.name: Invalid value: "cron.stable.example.com": must be spec.names.plural+"."+spec.group'],
  },
  {
    name: 'the group needs a dot',
    edit: (c) => { c.spec.group = 'example'; c.metadata.name = 'crontabs.example'; },
    expected: ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
  },
  {
    name: 'scope is Cluster or Namespaced',
    edit: (c) => { c.spec.scope = 'Global'; },
    expected: ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
  },
  {
    name: 'exactly one storage version',
    edit: (c) => { c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), name: 'v2' }); },
    expected: [
      'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},'
        + '{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version',
      'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
    ],
  },
  {
    name: 'versions keep what they do not share in the internal version',
    edit: (c) => {
      c.spec.versions = [
        { name: 'v1', served: true, storage: true, deprecated: true, deprecationWarning: 'old', subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        {
          name: 'v2', served: false, storage: true, subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'string', maxLength: 3, enum: ['a', 'b'] } } } },
          additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec' }], selectableFields: [{ jsonPath: '.spec' }],
        },
      ];
    },
    expected: [
      'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":true,"DeprecationWarning":"old",'
        + `"Schema":{"OpenAPIV3Schema":${goProps({ Type: '"object"', XPreserveUnknownFields: 'true' })}},"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},`
        + '{"Name":"v2","Served":false,"Storage":true,"Deprecated":false,"DeprecationWarning":null,'
        + `"Schema":{"OpenAPIV3Schema":${goProps({ Type: '"object"', Properties: `{"spec":${goProps({ Type: '"string"', MaxLength: '3', Enum: '["a","b"]' })}}` })}},`
        + '"Subresources":null,"AdditionalPrinterColumns":[{"Name":"A","Type":"string","Format":"","Description":"","Priority":0,"JSONPath":".spec"}],"SelectableFields":[{"JSONPath":".spec"}]}]'
        + ': must have exactly one version marked as storage version',
      'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
    ],
  },
  {
    name: 'version names are DNS-1035 labels and unique',
    edit: (c) => { c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), storage: false }); },
    expected: [
      'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},'
        + '{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must contain unique version names',
    ],
  },
  {
    name: 'v1 requires a schema for every version',
    edit: (c) => { delete c.spec.versions[0].schema; },
    expected: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
  },
  {
    name: 'a non-structural schema shared by every version is reported at spec.validation',
    edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.cronSpec = {}; },
    expected: ['spec.validation.openAPIV3Schema.properties[spec].properties[cronSpec].type: Required value: must not be empty for specified object fields'],
  },
  {
    name: 'versions with different schemas are reported each at its own path',
    edit: (c) => {
      c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } } });
    },
    expected: ['spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields'],
  },
  {
    name: 'types are the OpenAPI ones, null is spelled nullable',
    edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.cronSpec = { type: 'null' }; },
    expected: [
      'spec.validation.openAPIV3Schema.properties[spec].properties[cronSpec].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
      'spec.validation.openAPIV3Schema.properties[spec].properties[cronSpec].type: Forbidden: type cannot be set to null, use nullable as an alternative',
    ],
  },
  {
    name: 'a list-type map needs keys that are scalar item properties',
    edit: (c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ports = {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'],
        items: { type: 'object', properties: { name: { type: 'string' } } },
      };
    },
    expected: [
      'spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-map-keys: Invalid value: ["name","port"]: entries must all be names of item properties',
      'spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
    ],
  },
  {
    name: 'a list-type map key must be a scalar (upstream names the item type)',
    edit: (c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ports = {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'array', items: { type: 'string' } } } },
      };
    },
    expected: ["spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map"],
  },
  {
    name: 'list-map keys need the map list type',
    edit: (c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ports = {
        type: 'array', 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'string' },
      };
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.hosts = {
        type: 'array', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'string' },
      };
    },
    expected: [
      'spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-type: Invalid value: "set": must be map if x-kubernetes-list-map-keys is non-empty',
      'spec.validation.openAPIV3Schema.properties[spec].properties[hosts].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty',
    ],
  },
  {
    name: 'items of a set list must be atomic',
    edit: (c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags = {
        type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } },
      };
    },
    expected: ['spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set'],
  },
  {
    name: 'properties and additionalProperties exclude each other',
    edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.additionalProperties = { type: 'string' }; },
    expected: ['spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive'],
  },
  {
    name: 'with the status subresource the root takes no anyOf',
    edit: (c) => {
      c.spec.versions[0].subresources = { status: {} };
      c.spec.versions[0].schema.openAPIV3Schema.anyOf = [{ required: ['spec'] }];
    },
    expected: [`spec.validation.openAPIV3Schema: Invalid value: ${goProps({
      Type: '"object"', AnyOf: `[${goProps({ Required: '["spec"]' })}]`,
      Properties: `{"spec":${goProps({ Type: '"object"', Properties: `{"cronSpec":${goProps({ Type: '"string"' })},"replicas":${goProps({ Type: '"integer"', Default: '1' })}}` })},`
        + `"status":${goProps({ Type: '"object"', Properties: `{"replicas":${goProps({ Type: '"integer"' })}}` })}}`,
    })}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`],
  },
  {
    name: 'defaults must validate against their schema',
    edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.default = 'one'; },
    expected: ['spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: "string": spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default in body must be of type integer: "string"'],
  },
  {
    name: 'defaults must be pruned',
    edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.default = { cronSpec: 'x', extra: true }; },
    expected: ['spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: {"cronSpec":"x","extra":true}: must not have unknown fields'],
  },
  {
    name: 'no defaults in top-level metadata',
    edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object', default: { name: 'x' } }; },
    expected: ['spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata'],
  },
  {
    name: 'printer columns need a known type and a JSONPath',
    edit: (c) => { c.spec.versions[0].additionalPrinterColumns = [{ name: 'Spec', type: 'text', jsonPath: 'spec.cronSpec' }, { name: 'X', type: 'string' }]; },
    expected: [
      'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.cronSpec": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ],
  },
  {
    name: 'scale paths live under .spec and .status',
    edit: (c) => { c.spec.versions[0].subresources = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '' } }; },
    expected: [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
    ],
  },
  {
    name: 'names are DNS-1035 labels and kind differs from listKind',
    edit: (c) => { c.spec.names.shortNames = ['C T']; c.spec.names.listKind = 'CronTab'; },
    expected: [
      'spec.names.shortNames[0]: Invalid value: "C T": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
      'spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same',
    ],
  },
  {
    name: 'conversion strategies are None and Webhook',
    edit: (c) => { c.spec.conversion = { strategy: 'Magic' }; },
    expected: ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"'],
  },
  {
    name: 'a conversion webhook needs its client config',
    edit: (c) => { c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } }; },
    expected: ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook'],
  },
  {
    name: 'a conversion webhook is called by https and speaks a known review version',
    edit: (c) => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://example.com/convert?x=1' }, conversionReviewVersions: ['v3', 'v3'] } }; },
    expected: [
      'spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v3": duplicate version',
      'spec.conversion.conversionReviewVersions: Invalid value: ["v3","v3"]: must include at least one of v1, v1beta1',
    ],
  },
  {
    name: 'a conversion webhook has a url or a service, not both',
    edit: (c) => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com', service: { name: 'conv', namespace: 'default' } }, conversionReviewVersions: [] } }; },
    expected: [
      'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
      'spec.conversion.conversionReviewVersions: Required value',
    ],
  },
  {
    name: 'a conversion webhook service has a name, a namespace and a path of segments',
    edit: (c) => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: '', namespace: 'default', path: 'convert', port: 0 } }, conversionReviewVersions: ['v1beta1'] } }; },
    expected: [
      'spec.conversion.webhookClientConfig.service.name: Required value: service name is required',
      'spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      'spec.conversion.webhookClientConfig.service.path: Invalid value: "convert": must start with a \'/\'',
    ],
  },
  {
    name: 'a None strategy takes no webhook',
    edit: (c) => { c.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v1'] } }; },
    expected: [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ],
  },
  {
    name: 'preserveUnknownFields cannot be true in v1',
    edit: (c) => { c.spec.preserveUnknownFields = true; },
    expected: [
      'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ],
  },
  {
    name: 'groups of the Kubernetes project need an API review',
    edit: (c) => { c.spec.group = 'widgets.k8s.io'; c.metadata.name = 'crontabs.widgets.k8s.io'; },
    expected: ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'],
  },
];

for (const c of invalidCases) {
  test(`invalid: ${c.name}`, () => {
    assert.deepEqual(create(crd(c.edit)).causes, c.expected);
  });
}

test('an unapproved protected group is accepted when it says so', () => {
  const { causes } = create(crd((c) => {
    c.spec.group = 'widgets.k8s.io';
    c.metadata.name = 'crontabs.widgets.k8s.io';
    c.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, experimental' };
  }));
  assert.deepEqual(causes, []);
});

function established(obj: Json): KubeObject {
  obj.status.conditions = [{ type: 'Established', status: 'True' }];
  return obj as KubeObject;
}

test('an update bumps the generation on spec changes only and keeps the status', () => {
  const old = established(create(crd()).obj);
  old.metadata.generation = 1;
  const same = structuredClone(old);
  same.status = {};
  crds.strategy.prepareForUpdate!(same, old);
  assert.equal(same.metadata.generation, 1);
  assert.deepEqual(same.status, old.status);
  const changed = structuredClone(old) as Json;
  changed.spec.versions[0].served = false;
  crds.strategy.prepareForUpdate!(changed as KubeObject, old);
  assert.equal(changed.metadata.generation, 2);
});

test('group and plural never change; scope and kind not once established', () => {
  const old = established(create(crd()).obj);
  const next = structuredClone(old) as Json;
  next.spec.group = 'other.example.com';
  next.spec.names.plural = 'crons';
  next.spec.names.kind = 'Cron';
  next.spec.scope = 'Cluster';
  const causes = crds.strategy.validateUpdate!(next as KubeObject, old).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(causes, [
    'spec.scope: Invalid value: "Cluster": field is immutable',
    'spec.names.kind: Invalid value: "Cron": field is immutable',
    'spec.group: Invalid value: "other.example.com": field is immutable',
    'spec.names.plural: Invalid value: "crons": field is immutable',
  ]);
});

test('status.storedVersions holds the storage version and only versions in spec.versions', () => {
  const messages = (obj: Json) => crds.strategy.validate!(obj as KubeObject).map((c) => `${c.field}: ${c.message}`);
  const obj = create(crd()).obj;
  obj.status.storedVersions = ['v1', 'v0'];
  assert.deepEqual(messages(obj), [
    'status.storedVersions[1]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions',
  ]);
  delete obj.status.storedVersions;
  assert.deepEqual(messages(obj), ['status.storedVersions: Invalid value: null: must have at least one stored version']);
});

test('a new storage version is recorded in status.storedVersions', () => {
  const old = established(create(crd()).obj);
  const next = structuredClone(old) as Json;
  next.spec.versions[0].storage = false;
  next.spec.versions.push({ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: structuredClone(schema) } });
  crds.strategy.prepareForUpdate!(next as KubeObject, old);
  assert.deepEqual(next.status.storedVersions, ['v1', 'v2']);
});

test('the status subresource changes status and finalizers only', () => {
  const old = established(create(crd()).obj);
  const next = structuredClone(old) as Json;
  next.spec.scope = 'Cluster';
  next.metadata.labels = { a: 'b' };
  next.metadata.finalizers = ['x'];
  next.status.acceptedNames = { plural: 'crontabs', kind: 'CronTab' };
  crds.strategy.subresources!.status!.prepareForUpdate!(next as KubeObject, old);
  assert.equal(next.spec.scope, 'Namespaced');
  assert.equal(next.metadata.labels, undefined);
  assert.deepEqual(next.metadata.finalizers, ['x']);
  assert.deepEqual(next.status.acceptedNames, { plural: 'crontabs', kind: 'CronTab' });
});

test('deleting a CRD first marks it with the cleanup finalizer and a Terminating condition', () => {
  const obj = established(create(crd()).obj);
  assert.equal(crds.strategy.deletionPending!(obj), true);
  crds.strategy.markDeleting!(obj);
  obj.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  assert.deepEqual(obj.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  const terminating = (obj as Json).status.conditions.find((c: Json) => c.type === 'Terminating');
  assert.equal(terminating.status, 'True');
  assert.equal(terminating.reason, 'InstanceDeletionPending');
  assert.equal(crds.strategy.deletionPending!(obj), true);
  obj.metadata.finalizers = [];
  assert.equal(crds.strategy.deletionPending!(obj), false);
});

test('an update does not tighten what the stored CRD already broke: map-list keys and set items (requireMapListKeysMapSetValidation, requireAtomicSetType)', () => {
  const loose = (c: Json) => {
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.ports = {
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' } } },
    };
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags = {
      type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } },
    };
  };
  const old = established(create(crd()).obj);
  const tightened = crds.strategy.validateUpdate!(create(crd(loose)).obj as KubeObject, old).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(tightened, [
    'spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
    'spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set',
  ]);
  const stored = established(create(crd(loose)).obj);
  const next = structuredClone(stored) as Json;
  next.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color = { type: 'string' };
  assert.deepEqual(crds.strategy.validateUpdate!(next as KubeObject, stored), []);
});

test('an update is validated by validateUpdate alone: the name rule of a new CRD is not applied', () => {
  const old = established(create(crd()).obj);
  const next = structuredClone(old) as Json;
  next.spec.group = 'other.example.com';
  assert.deepEqual(crds.strategy.validate!(next as KubeObject, old), []);
  assert.deepEqual(crds.strategy.validateUpdate!(next as KubeObject, old).map((c) => `${c.field}: ${c.message}`), [
    'spec.group: Invalid value: "other.example.com": field is immutable',
  ]);
});
