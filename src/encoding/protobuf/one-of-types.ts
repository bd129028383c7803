// Messages whose JSON form is one of their fields, as apiextensions/v1 marshals a CRD
// schema's JSONSchemaPropsOrArray (items), JSONSchemaPropsOrBool (additionalProperties,
// additionalItems) and JSONSchemaPropsOrStringArray (dependencies' values).
//
// Unlike special-types.ts, these hold whole schemas (JSONSchemaProps), so the codec reads
// and writes their fields as it does any message's, by messages.ts; a form only maps the
// message's fields, as JSON-shaped data under messages.ts's names, to the JSON value and
// back. The names are the Protobuf field names: these Go fields have no JSON tags.

import { isObject } from '../../api/json.ts';

type Json = Record<string, unknown>;

export interface OneOfForm {
  /** The JSON value of the decoded fields; undefined when Go marshals the message as null. */
  toJson(fields: Json): unknown;
  /** The fields to encode for a JSON value (not the zero value: the codec writes that itself); throws for a value of neither form. */
  fromJson(value: unknown): Json;
}

const nonEmpty = (list: unknown): list is unknown[] => Array.isArray(list) && list.length > 0;

/** {1 *schema, 2 jSONSchemas}: the list when it has items, else the schema (null when unset). */
const schemaOrArray: OneOfForm = {
  toJson: (fields) => (nonEmpty(fields.jSONSchemas) ? fields.jSONSchemas : fields.schema),
  fromJson(value) {
    if (Array.isArray(value)) return { jSONSchemas: value };
    if (isObject(value)) return { schema: value };
    throw new Error('expected a schema or a list of schemas');
  },
};

/**
 * {1 allows, 2 *schema}: the schema when set, else allows. Go sets allows for a schema
 * too (anything the schema admits is allowed), and gogo writes allows always.
 */
const schemaOrBool: OneOfForm = {
  toJson: (fields) => fields.schema ?? fields.allows === true,
  fromJson(value) {
    if (typeof value === 'boolean') return { allows: value };
    if (isObject(value)) return { allows: true, schema: value };
    throw new Error('expected a boolean or a schema');
  },
};

/** {1 *schema, 2 property}: the strings when there are any, else the schema (null when unset). */
const schemaOrStringArray: OneOfForm = {
  toJson: (fields) => (nonEmpty(fields.property) ? fields.property : fields.schema),
  fromJson(value) {
    if (Array.isArray(value)) return { property: value };
    if (isObject(value)) return { schema: value };
    throw new Error('expected a schema or a list of strings');
  },
};

/** By message name as messages.ts spells it. */
export const oneOfTypes: ReadonlyMap<string, OneOfForm> = new Map([
  ['apiextensions.v1.JSONSchemaPropsOrArray', schemaOrArray],
  ['apiextensions.v1.JSONSchemaPropsOrBool', schemaOrBool],
  ['apiextensions.v1.JSONSchemaPropsOrStringArray', schemaOrStringArray],
]);
