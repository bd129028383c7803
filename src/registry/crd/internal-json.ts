// Parts of a CRD as they appear as a field error's bad value: upstream validates the
// internal apiextensions types, which have no json tags, so json.Marshal writes every
// field under its Go name, nil pointers, lists and maps as `null`, and Go maps (and
// values decoded into interface{}) with their keys sorted.

import { goJson, type GoValue } from '../../api/field-errors.ts';
import { isObject } from '../../api/json.ts';
import { internalValidationRule } from '../../cel/validation-rules.ts';
import type { CustomResourceDefinitionVersion } from './types.ts';

type Raw = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const orNull = (v: unknown): unknown => (v === undefined ? null : v);
const list = <T>(v: unknown, item: (x: unknown) => T): T[] | null => (Array.isArray(v) ? v.map(item) : null);

/** A value decoded into interface{}: objects as Go maps, keys sorted. */
function unstructured(v: unknown): GoValue {
  return goJson(v ?? null, true);
}

/** A Go map of structs: keys sorted, each value rendered in its struct's field order. */
function mapOf(v: unknown, value: (x: unknown) => unknown): GoValue | null {
  return isObject(v) ? goJson(Object.fromEntries(Object.keys(v).map((k) => [k, goJson(value(v[k]))])), true) : null;
}

/** A map of schemas (properties, patternProperties, definitions). */
function schemaMap(v: unknown): GoValue | null {
  return mapOf(v, schemaProps);
}

/** JSONSchemaPropsOrBool from v1's `true`, `false` or a schema. */
function propsOrBool(v: unknown): Raw | null {
  if (typeof v === 'boolean') return { Allows: v, Schema: null };
  return isObject(v) ? { Allows: true, Schema: schemaProps(v) } : null;
}

/** The internal JSONSchemaProps, its fields in declaration order. */
function schemaProps(v: unknown): Raw {
  const s = isObject(v) ? v : {};
  const dependencies = mapOf(s.dependencies, (d) => (Array.isArray(d) ? { Schema: null, Property: d } : { Schema: schemaProps(d), Property: null }));
  return {
    ID: text(s.id), Schema: text(s.$schema), Ref: orNull(s.$ref), Description: text(s.description), Type: text(s.type),
    Nullable: s.nullable === true, Format: text(s.format), Title: text(s.title), Default: unstructured(s.default),
    Maximum: orNull(s.maximum), ExclusiveMaximum: s.exclusiveMaximum === true, Minimum: orNull(s.minimum), ExclusiveMinimum: s.exclusiveMinimum === true,
    MaxLength: orNull(s.maxLength), MinLength: orNull(s.minLength), Pattern: text(s.pattern), MaxItems: orNull(s.maxItems), MinItems: orNull(s.minItems),
    UniqueItems: s.uniqueItems === true, MultipleOf: orNull(s.multipleOf), Enum: list(s.enum, unstructured),
    MaxProperties: orNull(s.maxProperties), MinProperties: orNull(s.minProperties), Required: orNull(s.required),
    Items: Array.isArray(s.items) ? { Schema: null, JSONSchemas: s.items.map(schemaProps) } : isObject(s.items) ? { Schema: schemaProps(s.items), JSONSchemas: null } : null,
    AllOf: list(s.allOf, schemaProps), OneOf: list(s.oneOf, schemaProps), AnyOf: list(s.anyOf, schemaProps), Not: isObject(s.not) ? schemaProps(s.not) : null,
    Properties: schemaMap(s.properties), AdditionalProperties: propsOrBool(s.additionalProperties), PatternProperties: schemaMap(s.patternProperties),
    Dependencies: dependencies, AdditionalItems: propsOrBool(s.additionalItems), Definitions: schemaMap(s.definitions),
    ExternalDocs: isObject(s.externalDocs) ? { Description: text(s.externalDocs.description), URL: text(s.externalDocs.url) } : null,
    Example: unstructured(s.example),
    XPreserveUnknownFields: orNull(s['x-kubernetes-preserve-unknown-fields']), XEmbeddedResource: s['x-kubernetes-embedded-resource'] === true,
    XIntOrString: s['x-kubernetes-int-or-string'] === true, XListMapKeys: orNull(s['x-kubernetes-list-map-keys']),
    XListType: orNull(s['x-kubernetes-list-type']), XMapType: orNull(s['x-kubernetes-map-type']),
    XValidations: list(s['x-kubernetes-validations'], internalValidationRule),
  };
}

/** A JSONSchemaProps (a schema's root, given by value) as json.Marshal writes the internal struct. */
export function goSchemaProps(schema: unknown): GoValue {
  return goJson(schemaProps(schema));
}

/** What upstream's conversion to the internal version moves to the top level: shared by every version. */
export interface InternalLayout {
  schemaShared: boolean;
  subresourcesShared: boolean;
  columnsShared: boolean;
  /** With the schema: selectable fields every version shares. */
  selectableFieldsShared: boolean;
}

/**
 * spec.versions as the internal []CustomResourceDefinitionVersion: a schema, subresources
 * or printer columns every version shares are not the versions' own there.
 */
export function goVersions(versions: CustomResourceDefinitionVersion[], layout: InternalLayout): GoValue {
  // Selectable fields move up with the schema only (Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...).
  const fieldsShared = layout.selectableFieldsShared;
  return goJson(versions.map((v) => {
    const scale = v.subresources?.scale;
    return {
      Name: text(v.name), Served: v.served === true, Storage: v.storage === true, Deprecated: v.deprecated === true,
      DeprecationWarning: orNull(v.deprecationWarning),
      Schema: layout.schemaShared || !isObject(v.schema) ? null : { OpenAPIV3Schema: isObject(v.schema.openAPIV3Schema) ? schemaProps(v.schema.openAPIV3Schema) : null },
      Subresources: layout.subresourcesShared || !isObject(v.subresources) ? null : {
        Status: isObject(v.subresources.status) ? {} : null,
        Scale: isObject(scale) ? { SpecReplicasPath: text(scale.specReplicasPath), StatusReplicasPath: text(scale.statusReplicasPath), LabelSelectorPath: orNull(scale.labelSelectorPath) } : null,
      },
      AdditionalPrinterColumns: layout.columnsShared ? null : list(v.additionalPrinterColumns, (c) => {
        const col = isObject(c) ? c : {};
        const priority = typeof col.priority === 'number' ? col.priority : 0;
        return { Name: text(col.name), Type: text(col.type), Format: text(col.format), Description: text(col.description), Priority: priority, JSONPath: text(col.jsonPath) };
      }),
      SelectableFields: fieldsShared ? null : list(v.selectableFields, (f) => ({ JSONPath: text(isObject(f) ? f.jsonPath : undefined) })),
    };
  }));
}
