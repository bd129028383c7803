// Swagger 2.0 as the gnostic `openapi.v2.Document` Protobuf message
// (github.com/google/gnostic, openapiv2/OpenAPIv2.proto), which kubectl's client
// decodes for application/com.github.proto-openapi.spec.v2@v1.0+protobuf.
//
// The encoder walks the JSON form of the document and writes the messages gnostic's
// compiler would produce from it: maps become repeated Named* pairs in key order,
// `x-` keys become vendor extensions whose `Any` holds the value as YAML text, and
// proto3 scalars equal to their default are left out (oneof members never are).

import { isObject } from '../api/json.ts';
import { ProtoWriter } from '../encoding/protobuf/wire.ts';

type Json = Record<string, unknown>;

/**
 * The Protobuf writer with gnostic's conventions (shared with the OpenAPI v3 encoder):
 * proto3 scalars equal to their default are left out unless `always` (oneof and
 * repeated members).
 */
export class GnosticWriter {
  private readonly w = new ProtoWriter();

  string(field: number, value: unknown, always = false): void {
    if (typeof value !== 'string' || (value === '' && !always)) return;
    this.w.string(field, value);
  }

  strings(field: number, values: unknown): void {
    if (!Array.isArray(values)) return;
    for (const value of values) this.w.string(field, String(value));
  }

  bool(field: number, value: unknown, always = false): void {
    if (typeof value !== 'boolean' || (!value && !always)) return;
    this.w.bool(field, value);
  }

  int64(field: number, value: unknown): void {
    if (typeof value !== 'number' || value === 0 || !Number.isInteger(value)) return;
    this.w.int(field, value);
  }

  double(field: number, value: unknown, always = false): void {
    if (typeof value !== 'number' || (value === 0 && !always)) return;
    this.w.double(field, value);
  }

  /** A length-delimited message field whose content `write` produces. */
  message(field: number, write: () => void): void {
    const lengthAt = this.w.beginMessage(field);
    write();
    this.w.endMessage(lengthAt);
  }

  finish(): Uint8Array {
    return this.w.finish();
  }
}

// YAML text of extension, default, example and enum values, as gnostic stores them.

const reservedWords = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', 'null', '~']);

function yamlScalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  const text = String(value);
  if (/^[A-Za-z_][A-Za-z0-9_./-]*$/.test(text) && !reservedWords.has(text.toLowerCase())) return text;
  // JSON's escapes are valid in a YAML double-quoted scalar.
  return JSON.stringify(text);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function isFlatObject(value: unknown): value is Json {
  return isObject(value) && Object.values(value).every(isScalar);
}

/** Block YAML for the simple shapes extensions take; JSON (flow YAML) for anything deeper. */
export function toYaml(value: unknown): string {
  if (isScalar(value)) return `${yamlScalar(value)}\n`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]\n';
    if (value.every(isScalar)) return value.map((v) => `- ${yamlScalar(v)}\n`).join('');
    if (value.every((v) => isFlatObject(v) && Object.keys(v).length > 0)) {
      return value
        .map((v) => Object.entries(v as Json).map(([k, x], i) => `${i === 0 ? '- ' : '  '}${yamlScalar(k)}: ${yamlScalar(x)}\n`).join(''))
        .join('');
    }
    return `${JSON.stringify(value)}\n`;
  }
  const entries = Object.entries(value as Json);
  if (entries.length === 0) return '{}\n';
  if (entries.every(([, v]) => isScalar(v))) return entries.map(([k, v]) => `${yamlScalar(k)}: ${yamlScalar(v)}\n`).join('');
  return `${JSON.stringify(value)}\n`;
}

// Messages. Each function writes the fields of one message into `w`.

export function anyMessage(w: GnosticWriter, value: unknown): void {
  w.string(2, toYaml(value), true); // Any.yaml
}

/** `repeated NamedAny vendor_extension` for the `x-` keys of an object. */
export function extensions(w: GnosticWriter, field: number, obj: Json): void {
  for (const [key, value] of Object.entries(obj)) {
    if (!key.startsWith('x-')) continue;
    w.message(field, () => {
      w.string(1, key, true);
      w.message(2, () => anyMessage(w, value));
    });
  }
}

/** A Named* pair: name = 1, value = 2. */
export function named(w: GnosticWriter, field: number, name: string, value: () => void): void {
  w.message(field, () => {
    w.string(1, name, true);
    w.message(2, value);
  });
}

function schemaMessage(w: GnosticWriter, s: Json): void {
  w.string(1, s.$ref);
  w.string(2, s.format);
  w.string(3, s.title);
  w.string(4, s.description);
  if ('default' in s) w.message(5, () => anyMessage(w, s.default));
  w.double(6, s.multipleOf);
  w.double(7, s.maximum);
  w.bool(8, s.exclusiveMaximum);
  w.double(9, s.minimum);
  w.bool(10, s.exclusiveMinimum);
  w.int64(11, s.maxLength);
  w.int64(12, s.minLength);
  w.string(13, s.pattern);
  w.int64(14, s.maxItems);
  w.int64(15, s.minItems);
  w.bool(16, s.uniqueItems);
  w.int64(17, s.maxProperties);
  w.int64(18, s.minProperties);
  w.strings(19, s.required);
  if (Array.isArray(s.enum)) for (const value of s.enum) w.message(20, () => anyMessage(w, value));
  const additional = s.additionalProperties;
  if (additional !== undefined) {
    // AdditionalPropertiesItem: oneof schema = 1, boolean = 2.
    w.message(21, () => {
      if (typeof additional === 'boolean') w.bool(2, additional, true);
      else w.message(1, () => schemaMessage(w, additional as Json));
    });
  }
  if (s.type !== undefined) w.message(22, () => w.strings(1, Array.isArray(s.type) ? s.type : [s.type])); // TypeItem
  if (s.items !== undefined) {
    const items = Array.isArray(s.items) ? s.items : [s.items];
    w.message(23, () => { // ItemsItem
      for (const item of items) w.message(1, () => schemaMessage(w, item as Json));
    });
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) w.message(24, () => schemaMessage(w, sub as Json));
  const properties = s.properties;
  if (isObject(properties)) {
    w.message(25, () => { // Properties
      for (const [name, sub] of Object.entries(properties)) named(w, 1, name, () => schemaMessage(w, sub as Json));
    });
  }
  w.string(26, s.discriminator);
  w.bool(27, s.readOnly);
  if ('example' in s) w.message(30, () => anyMessage(w, s.example));
  extensions(w, 31, s);
}

const nonBodyFields: Record<string, number> = { header: 1, formData: 2, query: 3, path: 4 };

/**
 * A NonBodyParameter. Query and formData share one field layout; path and header
 * another, without allow_empty_value.
 */
function nonBodyParameter(w: GnosticWriter, p: Json): void {
  const field = nonBodyFields[p.in as string];
  if (field === undefined) throw new Error(`unsupported parameter location ${String(p.in)}`);
  const withAllowEmpty = p.in === 'query' || p.in === 'formData';
  const o = withAllowEmpty ? 1 : 0;
  w.message(field, () => {
    w.bool(1, p.required);
    w.string(2, p.in);
    w.string(3, p.description);
    w.string(4, p.name);
    if (withAllowEmpty) w.bool(5, p.allowEmptyValue);
    w.string(5 + o, p.type);
    w.string(6 + o, p.format);
    w.string(8 + o, p.collectionFormat);
    if ('default' in p) w.message(9 + o, () => anyMessage(w, p.default));
    w.double(10 + o, p.maximum);
    w.bool(11 + o, p.exclusiveMaximum);
    w.double(12 + o, p.minimum);
    w.bool(13 + o, p.exclusiveMinimum);
    w.int64(14 + o, p.maxLength);
    w.int64(15 + o, p.minLength);
    w.string(16 + o, p.pattern);
    w.int64(17 + o, p.maxItems);
    w.int64(18 + o, p.minItems);
    w.bool(19 + o, p.uniqueItems);
    if (Array.isArray(p.enum)) for (const value of p.enum) w.message(20 + o, () => anyMessage(w, value));
    w.double(21 + o, p.multipleOf);
    extensions(w, 22 + o, p);
  });
}

/** A Parameter: oneof body_parameter = 1, non_body_parameter = 2. */
function parameter(w: GnosticWriter, p: Json): void {
  if (p.in === 'body') {
    w.message(1, () => {
      w.string(1, p.description);
      w.string(2, p.name);
      w.string(3, p.in);
      w.bool(4, p.required);
      if (isObject(p.schema)) w.message(5, () => schemaMessage(w, p.schema as Json));
      extensions(w, 6, p);
    });
  } else {
    w.message(2, () => nonBodyParameter(w, p));
  }
}

/** A ParametersItem: oneof parameter = 1, json_reference = 2. */
function parametersItem(w: GnosticWriter, p: Json): void {
  if (typeof p.$ref === 'string') {
    w.message(2, () => {
      w.string(1, p.$ref);
      w.string(2, p.description);
    });
  } else {
    w.message(1, () => parameter(w, p));
  }
}

function responses(w: GnosticWriter, rs: Json): void {
  for (const [code, value] of Object.entries(rs)) {
    if (code.startsWith('x-')) continue;
    const r = value as Json;
    named(w, 1, code, () => {
      // ResponseValue: oneof response = 1, json_reference = 2.
      if (typeof r.$ref === 'string') {
        w.message(2, () => w.string(1, r.$ref));
        return;
      }
      w.message(1, () => {
        w.string(1, r.description);
        if (isObject(r.schema)) w.message(2, () => w.message(1, () => schemaMessage(w, r.schema as Json))); // SchemaItem.schema
        extensions(w, 5, r);
      });
    });
  }
  extensions(w, 2, rs);
}

function operation(w: GnosticWriter, op: Json): void {
  w.strings(1, op.tags);
  w.string(2, op.summary);
  w.string(3, op.description);
  w.string(5, op.operationId);
  w.strings(6, op.produces);
  w.strings(7, op.consumes);
  if (Array.isArray(op.parameters)) for (const p of op.parameters) w.message(8, () => parametersItem(w, p as Json));
  if (isObject(op.responses)) w.message(9, () => responses(w, op.responses as Json));
  w.strings(10, op.schemes);
  w.bool(11, op.deprecated);
  if (Array.isArray(op.security)) for (const s of op.security) w.message(12, () => securityRequirement(w, s as Json));
  extensions(w, 13, op);
}

const methodFields: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

function pathItem(w: GnosticWriter, item: Json): void {
  w.string(1, item.$ref);
  for (const [method, field] of methodFields) {
    const op = item[method];
    if (isObject(op)) w.message(field, () => operation(w, op));
  }
  if (Array.isArray(item.parameters)) for (const p of item.parameters) w.message(9, () => parametersItem(w, p as Json));
  extensions(w, 10, item);
}

function securityRequirement(w: GnosticWriter, req: Json): void {
  for (const [name, scopes] of Object.entries(req)) named(w, 1, name, () => w.strings(1, scopes)); // StringArray
}

function securityDefinitions(w: GnosticWriter, defs: Json): void {
  for (const [name, value] of Object.entries(defs)) {
    const d = value as Json;
    named(w, 1, name, () => {
      // SecurityDefinitionsItem: basic_authentication_security = 1, api_key_security = 2.
      if (d.type === 'apiKey') {
        w.message(2, () => {
          w.string(1, d.type);
          w.string(2, d.name);
          w.string(3, d.in);
          w.string(4, d.description);
          extensions(w, 5, d);
        });
      } else if (d.type === 'basic') {
        w.message(1, () => {
          w.string(1, d.type);
          w.string(2, d.description);
          extensions(w, 3, d);
        });
      } else {
        throw new Error(`unsupported security scheme ${String(d.type)}`);
      }
    });
  }
}

/** The gnostic Protobuf encoding of a Swagger 2.0 document given as JSON data. */
export function encodeSwaggerProtobuf(doc: Json): Uint8Array {
  const w = new GnosticWriter();
  w.string(1, doc.swagger);
  const info = doc.info;
  if (isObject(info)) {
    w.message(2, () => {
      w.string(1, info.title);
      w.string(2, info.version);
      w.string(3, info.description);
      w.string(4, info.termsOfService);
      extensions(w, 7, info);
    });
  }
  w.string(3, doc.host);
  w.string(4, doc.basePath);
  w.strings(5, doc.schemes);
  w.strings(6, doc.consumes);
  w.strings(7, doc.produces);
  const paths = doc.paths;
  if (isObject(paths)) {
    w.message(8, () => {
      extensions(w, 1, paths);
      for (const [path, item] of Object.entries(paths)) {
        if (!path.startsWith('x-')) named(w, 2, path, () => pathItem(w, item as Json));
      }
    });
  }
  const definitions = doc.definitions;
  if (isObject(definitions)) {
    w.message(9, () => {
      for (const [name, schema] of Object.entries(definitions)) named(w, 1, name, () => schemaMessage(w, schema as Json));
    });
  }
  const parameters = doc.parameters;
  if (isObject(parameters)) {
    w.message(10, () => { // ParameterDefinitions of NamedParameter
      for (const [name, p] of Object.entries(parameters)) named(w, 1, name, () => parameter(w, p as Json));
    });
  }
  if (Array.isArray(doc.security)) for (const s of doc.security) w.message(12, () => securityRequirement(w, s as Json));
  const security = doc.securityDefinitions;
  if (isObject(security)) w.message(13, () => securityDefinitions(w, security));
  extensions(w, 16, doc);
  return w.finish();
}
