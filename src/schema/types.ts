// A structural OpenAPI v3 schema, the one description of a type's shape (DESIGN.md):
// validation, pruning, defaulting, OpenAPI documents and apply topology all read it.

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
  /** A reference to a named definition: `#/components/schemas/<name>`. */
  $ref?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-unions'?: unknown[];
  'x-kubernetes-validations'?: { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string }[];
}

/** Named schemas, keyed like upstream's definitions ("io.k8s.api.core.v1.ConfigMap"). */
export type Definitions = Record<string, Schema>;
