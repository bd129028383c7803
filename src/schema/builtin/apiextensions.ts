// apiextensions.k8s.io/v1 CustomResourceDefinition and the JSON-Schema it carries.

import type { Definitions, Schema } from '../types.ts';
import { atomic, bool, int32, int64, listOf, mapOf, mergeList, object, ref, str, time, topLevel } from './build.ts';

export const APIEXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const apiextensionsV1 = { group: 'apiextensions.k8s.io', version: 'v1' };

const props = (description?: string): Schema => ref(APIEXTENSIONS + 'JSONSchemaProps', description);

function float64(): Schema {
  return { type: 'number', format: 'double' };
}

/** Any JSON value; kept as sent. */
function anyJson(description: string): Schema {
  return { description, 'x-kubernetes-preserve-unknown-fields': true };
}

export const apiextensionsDefinitions: Definitions = {
  [APIEXTENSIONS + 'CustomResourceDefinition']: topLevel(
    apiextensionsV1,
    'CustomResourceDefinition',
    'A resource the API server serves from a definition: its names, versions and schemas. Its name must be <names.plural>.<group>.',
    {
      spec: ref(APIEXTENSIONS + 'CustomResourceDefinitionSpec', 'How the resource is served.'),
      status: ref(APIEXTENSIONS + 'CustomResourceDefinitionStatus', 'What the server made of the definition.'),
    },
    { required: ['spec'] },
  ),
  [APIEXTENSIONS + 'CustomResourceDefinitionList']: listOf(apiextensionsV1, 'CustomResourceDefinition', APIEXTENSIONS + 'CustomResourceDefinition', 'The definitions.'),
  [APIEXTENSIONS + 'CustomResourceDefinitionSpec']: object(
    'How a custom resource is served.',
    {
      conversion: ref(APIEXTENSIONS + 'CustomResourceConversion', 'How objects convert between versions.'),
      group: str('The API group of the resource, served under /apis/<group>/...; must match the definition\'s name.'),
      names: ref(APIEXTENSIONS + 'CustomResourceDefinitionNames', 'The resource\'s and kind\'s names.'),
      preserveUnknownFields: bool('Deprecated; must be false in v1. Use x-kubernetes-preserve-unknown-fields in the schema.'),
      scope: str('Cluster or Namespaced.'),
      versions: atomic(ref(APIEXTENSIONS + 'CustomResourceDefinitionVersion'), 'The versions served; exactly one is the storage version.'),
    },
    { required: ['group', 'names', 'scope', 'versions'] },
  ),
  [APIEXTENSIONS + 'CustomResourceDefinitionNames']: object(
    'The names of a custom resource and its kind.',
    {
      categories: atomic(str(), 'Groups of resources this one belongs to (as in `kubectl get all`).'),
      kind: str('The kind, in CamelCase.'),
      listKind: str('The kind of lists; defaults to <kind>List.'),
      plural: str('The plural resource name, lower case: the path segment /apis/<group>/<version>/.../<plural>.'),
      shortNames: atomic(str(), 'Short aliases for kubectl.'),
      singular: str('The singular name, lower case; defaults to the kind in lower case.'),
    },
    { required: ['plural', 'kind'] },
  ),
  [APIEXTENSIONS + 'CustomResourceDefinitionVersion']: object(
    'One version of a custom resource.',
    {
      additionalPrinterColumns: atomic(ref(APIEXTENSIONS + 'CustomResourceColumnDefinition'), 'Extra columns of `kubectl get`; with none, an Age column.'),
      deprecated: bool('Whether the version is deprecated; clients are warned when they use it.'),
      deprecationWarning: str('Overrides the warning of a deprecated version.'),
      name: str('The version name, served under /apis/<group>/<version>/...'),
      schema: ref(APIEXTENSIONS + 'CustomResourceValidation', 'The schema of the version\'s objects.'),
      selectableFields: atomic(ref(APIEXTENSIONS + 'SelectableField'), 'Fields usable in field selectors, beyond metadata.name and metadata.namespace.'),
      served: bool('Whether the version is served.'),
      storage: bool('Whether objects are stored in this version; exactly one version is.'),
      subresources: ref(APIEXTENSIONS + 'CustomResourceSubresources', 'The status and scale subresources.'),
    },
    { required: ['name'] },
  ),
  [APIEXTENSIONS + 'CustomResourceColumnDefinition']: object(
    'A column of the server-side Table.',
    {
      description: str('What the column shows.'),
      format: str('An OpenAPI format for the column\'s values; "name" marks the name column.'),
      jsonPath: str('A simple JSONPath, relative to the object, of the column\'s value.'),
      name: str('The column\'s header.'),
      priority: int32('0 for the standard view; higher columns show only in wide output.'),
      type: str('An OpenAPI type: integer, number, string, boolean, or date.'),
    },
    { required: ['name', 'type', 'jsonPath'] },
  ),
  [APIEXTENSIONS + 'SelectableField']: object(
    'A field usable in field selectors.',
    { jsonPath: str('A simple JSONPath of a string, integer or boolean field.') },
    { required: ['jsonPath'] },
  ),
  [APIEXTENSIONS + 'CustomResourceSubresources']: object('The subresources a version serves.', {
    scale: ref(APIEXTENSIONS + 'CustomResourceSubresourceScale', 'Serve /scale (autoscaling/v1 Scale).'),
    status: ref(APIEXTENSIONS + 'CustomResourceSubresourceStatus', 'Serve /status; the main resource then ignores status changes.'),
  }),
  [APIEXTENSIONS + 'CustomResourceSubresourceStatus']: {
    description: 'Enables /status: writes there change only status, writes to the main resource leave status alone.',
    type: 'object',
  },
  [APIEXTENSIONS + 'CustomResourceSubresourceScale']: object(
    'Where /scale finds and sets its numbers.',
    {
      labelSelectorPath: str('JSONPath (under .spec or .status) of the label selector in string form, for Scale.status.selector.'),
      specReplicasPath: str('JSONPath under .spec of the desired replicas, for Scale.spec.replicas.'),
      statusReplicasPath: str('JSONPath under .status of the observed replicas, for Scale.status.replicas.'),
    },
    { required: ['specReplicasPath', 'statusReplicasPath'] },
  ),
  [APIEXTENSIONS + 'CustomResourceValidation']: object('The schema of a version.', {
    openAPIV3Schema: props('An OpenAPI v3 schema, structural, that objects are validated, pruned and defaulted with.'),
  }),
  [APIEXTENSIONS + 'CustomResourceConversion']: object(
    'How objects convert between versions.',
    {
      strategy: str('"None": only apiVersion changes. Plinth supports no other strategy.'),
      webhook: ref(APIEXTENSIONS + 'WebhookConversion', 'Webhook conversion settings (strategy Webhook only).'),
    },
    { required: ['strategy'] },
  ),
  [APIEXTENSIONS + 'WebhookConversion']: object(
    'Conversion by a webhook.',
    {
      clientConfig: ref(APIEXTENSIONS + 'WebhookClientConfig', 'How to call the webhook.'),
      conversionReviewVersions: atomic(str(), 'ConversionReview versions the webhook accepts, in order of preference.'),
    },
    { required: ['conversionReviewVersions'] },
  ),
  [APIEXTENSIONS + 'WebhookClientConfig']: object('How to reach a webhook.', {
    caBundle: { type: 'string', format: 'byte', description: 'PEM CA bundle to verify the webhook\'s certificate.' },
    service: ref(APIEXTENSIONS + 'ServiceReference', 'A service in the cluster.'),
    url: str('An https URL.'),
  }),
  [APIEXTENSIONS + 'ServiceReference']: object(
    'A service the webhook runs behind.',
    {
      name: str('Name of the service.'),
      namespace: str('Namespace of the service.'),
      path: str('URL path to send requests to.'),
      port: int32('Port of the service; defaults to 443.'),
    },
    { required: ['namespace', 'name'] },
  ),
  [APIEXTENSIONS + 'CustomResourceDefinitionStatus']: object('What the server made of a definition.', {
    acceptedNames: ref(APIEXTENSIONS + 'CustomResourceDefinitionNames', 'The names actually served; they differ from spec.names when those conflict with another definition.'),
    conditions: mergeList(ref(APIEXTENSIONS + 'CustomResourceDefinitionCondition'), 'type', 'NamesAccepted, Established and Terminating.'),
    storedVersions: atomic(str(), 'Every version objects were ever stored in.'),
  }),
  [APIEXTENSIONS + 'CustomResourceDefinitionCondition']: object(
    'One aspect of a definition\'s state.',
    {
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable details.'),
      observedGeneration: int64('The metadata.generation the condition was set for.'),
      reason: str('CamelCase reason of the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('NamesAccepted, Established or Terminating.'),
    },
    { required: ['type', 'status'] },
  ),
  [APIEXTENSIONS + 'JSONSchemaProps']: object('A JSON-Schema (draft 4) as OpenAPI v3 and Kubernetes use it.', {
    $ref: str(),
    $schema: str(),
    additionalItems: ref(APIEXTENSIONS + 'JSONSchemaPropsOrBool'),
    additionalProperties: ref(APIEXTENSIONS + 'JSONSchemaPropsOrBool'),
    allOf: atomic(props()),
    anyOf: atomic(props()),
    default: ref(APIEXTENSIONS + 'JSON', 'The value of an unset field, applied on write and read. Must validate against the schema and be pruned.'),
    definitions: mapOf(props()),
    dependencies: mapOf(ref(APIEXTENSIONS + 'JSONSchemaPropsOrStringArray')),
    description: str(),
    enum: atomic(ref(APIEXTENSIONS + 'JSON')),
    example: ref(APIEXTENSIONS + 'JSON'),
    exclusiveMaximum: bool(),
    exclusiveMinimum: bool(),
    externalDocs: ref(APIEXTENSIONS + 'ExternalDocumentation'),
    format: str('A format for strings and numbers: int32, int64, float, double, byte, date, date-time, password, and the others Kubernetes knows (uuid, email, ...).'),
    id: str(),
    items: ref(APIEXTENSIONS + 'JSONSchemaPropsOrArray'),
    maxItems: int64(),
    maxLength: int64(),
    maxProperties: int64(),
    maximum: float64(),
    minItems: int64(),
    minLength: int64(),
    minProperties: int64(),
    minimum: float64(),
    multipleOf: float64(),
    not: props(),
    nullable: bool(),
    oneOf: atomic(props()),
    pattern: str(),
    patternProperties: mapOf(props()),
    properties: mapOf(props()),
    required: atomic(str()),
    title: str(),
    type: str(),
    uniqueItems: bool(),
    'x-kubernetes-embedded-resource': bool('The value is a whole object (apiVersion, kind, metadata) embedded here.'),
    'x-kubernetes-int-or-string': bool('The value is an integer or a string.'),
    'x-kubernetes-list-map-keys': atomic(str(), 'The keys of a list-type map.'),
    'x-kubernetes-list-type': str('atomic, set or map: how apply merges the list.'),
    'x-kubernetes-map-type': str('granular or atomic: how apply merges the object.'),
    'x-kubernetes-preserve-unknown-fields': bool('Fields the schema does not specify are kept instead of pruned.'),
    'x-kubernetes-validations': mergeList(ref(APIEXTENSIONS + 'ValidationRule'), 'rule', 'CEL rules the value must satisfy.', { mapKeys: ['rule'] }),
  }),
  [APIEXTENSIONS + 'ValidationRule']: object(
    'A CEL validation rule.',
    {
      fieldPath: str('Where a failure is reported, relative to the value.'),
      message: str('The message of a failure.'),
      messageExpression: str('A CEL expression producing the message of a failure.'),
      optionalOldSelf: bool('Whether oldSelf may be absent (on create).'),
      reason: str('The reason of a failure: FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.'),
      rule: str('The CEL expression.'),
    },
    { required: ['rule'] },
  ),
  [APIEXTENSIONS + 'ExternalDocumentation']: object('Documentation elsewhere.', {
    description: str(),
    url: str(),
  }),
  [APIEXTENSIONS + 'JSON']: anyJson('Any JSON value.'),
  [APIEXTENSIONS + 'JSONSchemaPropsOrArray']: anyJson('A schema, or an array of schemas.'),
  [APIEXTENSIONS + 'JSONSchemaPropsOrBool']: anyJson('A schema, or a boolean (true: anything, false: nothing).'),
  [APIEXTENSIONS + 'JSONSchemaPropsOrStringArray']: anyJson('A schema, or an array of strings.'),
};
