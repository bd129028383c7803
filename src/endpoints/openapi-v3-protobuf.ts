// OpenAPI 3.0 as the gnostic `openapi.v3.Document` Protobuf message
// (github.com/google/gnostic-models, openapiv3/OpenAPIv3.proto), which kube-openapi's
// handler3 serves for application/com.github.proto-openapi.spec.v3.v1.0+protobuf.
//
// handler3 (ToV3ProtoBinary) parses the JSON document with gnostic's compiler
// (openapiv3/OpenAPIv3.go) and marshals the result; this walks the same JSON and writes
// what that compiler builds: maps become repeated Named* pairs in key order, `x-` keys
// vendor extensions whose `Any` holds the value as YAML text, an object with `$ref` a
// Reference (a Schema, Parameter, Response or RequestBody may not have `$ref`, so the
// compiler's other choice fails on it), and fields in field-number order as Go's
// proto.Marshal writes them.

import { isObject } from '../api/json.ts';
import { anyMessage, extensions, GnosticWriter, named } from './openapi-v2-protobuf.ts';

type Json = Record<string, unknown>;

function reference(w: GnosticWriter, r: Json): void {
  w.string(1, r.$ref);
  w.string(2, r.summary);
  w.string(3, r.description);
}

/** A *OrReference oneof: the object itself = 1, a Reference = 2. */
function orReference(w: GnosticWriter, value: Json, write: (w: GnosticWriter, value: Json) => void): void {
  if ('$ref' in value) w.message(2, () => reference(w, value));
  else w.message(1, () => write(w, value));
}

function schemaOrReference(w: GnosticWriter, field: number, value: unknown): void {
  if (isObject(value)) w.message(field, () => orReference(w, value, schema));
}

function externalDocs(w: GnosticWriter, field: number, docs: unknown): void {
  if (!isObject(docs)) return;
  w.message(field, () => {
    w.string(1, docs.description);
    w.string(2, docs.url);
    extensions(w, 3, docs);
  });
}

/**
 * DefaultType: oneof number = 1, boolean = 2, string = 3, by the value's YAML tag (gnostic's
 * NewDefaultType); any other value (an object, a list, null) matches none and leaves the
 * message empty.
 */
function defaultType(w: GnosticWriter, value: unknown): void {
  if (typeof value === 'number') w.double(1, value, true);
  else if (typeof value === 'boolean') w.bool(2, value, true);
  else if (typeof value === 'string') w.string(3, value, true);
}

function schema(w: GnosticWriter, s: Json): void {
  w.bool(1, s.nullable);
  const discriminator = s.discriminator;
  if (isObject(discriminator)) {
    w.message(2, () => {
      w.string(1, discriminator.propertyName);
      const mapping = discriminator.mapping;
      if (isObject(mapping)) {
        w.message(2, () => { // Strings of NamedString
          for (const [name, target] of Object.entries(mapping)) {
            w.message(1, () => {
              w.string(1, name, true);
              w.string(2, target);
            });
          }
        });
      }
      extensions(w, 3, discriminator);
    });
  }
  w.bool(3, s.readOnly);
  w.bool(4, s.writeOnly);
  const xml = s.xml;
  if (isObject(xml)) {
    w.message(5, () => {
      w.string(1, xml.name);
      w.string(2, xml.namespace);
      w.string(3, xml.prefix);
      w.bool(4, xml.attribute);
      w.bool(5, xml.wrapped);
      extensions(w, 6, xml);
    });
  }
  externalDocs(w, 6, s.externalDocs);
  if ('example' in s) w.message(7, () => anyMessage(w, s.example));
  w.bool(8, s.deprecated);
  w.string(9, s.title);
  w.double(10, s.multipleOf);
  w.double(11, s.maximum);
  w.bool(12, s.exclusiveMaximum);
  w.double(13, s.minimum);
  w.bool(14, s.exclusiveMinimum);
  w.int64(15, s.maxLength);
  w.int64(16, s.minLength);
  w.string(17, s.pattern);
  w.int64(18, s.maxItems);
  w.int64(19, s.minItems);
  w.bool(20, s.uniqueItems);
  w.int64(21, s.maxProperties);
  w.int64(22, s.minProperties);
  w.strings(23, s.required);
  if (Array.isArray(s.enum)) for (const value of s.enum) w.message(24, () => anyMessage(w, value));
  w.string(25, s.type);
  for (const [key, field] of [['allOf', 26], ['oneOf', 27], ['anyOf', 28]] as const) {
    const list = s[key];
    if (Array.isArray(list)) for (const sub of list) schemaOrReference(w, field, sub);
  }
  const not = s.not;
  if (isObject(not)) w.message(29, () => schema(w, not));
  // ItemsItem holds the one schema `items` names (gnostic's NewItemsItem takes a map only).
  if (isObject(s.items)) w.message(30, () => schemaOrReference(w, 1, s.items));
  const properties = s.properties;
  if (isObject(properties)) {
    w.message(31, () => {
      for (const [name, sub] of Object.entries(properties)) {
        if (isObject(sub)) named(w, 1, name, () => orReference(w, sub, schema));
      }
    });
  }
  const additional = s.additionalProperties;
  if (typeof additional === 'boolean') w.message(32, () => w.bool(2, additional, true));
  else if (isObject(additional)) w.message(32, () => schemaOrReference(w, 1, additional));
  if ('default' in s) w.message(33, () => defaultType(w, s.default));
  w.string(34, s.description);
  w.string(35, s.format);
  extensions(w, 36, s);
}

/** MediaTypes: NamedMediaType pairs of MediaType {schema = 1, example = 2, extensions = 5}. */
function mediaTypes(w: GnosticWriter, field: number, content: unknown): void {
  if (!isObject(content)) return;
  w.message(field, () => {
    for (const [media, value] of Object.entries(content)) {
      if (!isObject(value)) continue;
      named(w, 1, media, () => {
        schemaOrReference(w, 1, value.schema);
        if ('example' in value) w.message(2, () => anyMessage(w, value.example));
        extensions(w, 5, value);
      });
    }
  });
}

function parameter(w: GnosticWriter, p: Json): void {
  w.string(1, p.name);
  w.string(2, p.in);
  w.string(3, p.description);
  w.bool(4, p.required);
  w.bool(5, p.deprecated);
  w.bool(6, p.allowEmptyValue);
  w.string(7, p.style);
  w.bool(8, p.explode);
  w.bool(9, p.allowReserved);
  schemaOrReference(w, 10, p.schema);
  if ('example' in p) w.message(11, () => anyMessage(w, p.example));
  mediaTypes(w, 13, p.content);
  extensions(w, 14, p);
}

function parameters(w: GnosticWriter, field: number, list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const p of list) if (isObject(p)) w.message(field, () => orReference(w, p, parameter));
}

function requestBody(w: GnosticWriter, body: Json): void {
  w.string(1, body.description);
  mediaTypes(w, 2, body.content);
  w.bool(3, body.required);
  extensions(w, 4, body);
}

function response(w: GnosticWriter, r: Json): void {
  w.string(1, r.description);
  mediaTypes(w, 3, r.content);
  extensions(w, 5, r);
}

/** Responses: `default` = 1, status codes (three digits or X) = 2, extensions = 3. */
function responses(w: GnosticWriter, rs: Json): void {
  if (isObject(rs.default)) w.message(1, () => orReference(w, rs.default as Json, response));
  for (const [code, r] of Object.entries(rs)) {
    if (/^[0-9X]{3}$/.test(code) && isObject(r)) named(w, 2, code, () => orReference(w, r, response));
  }
  extensions(w, 3, rs);
}

function securityRequirements(w: GnosticWriter, field: number, list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const requirement of list) {
    if (!isObject(requirement)) continue;
    w.message(field, () => {
      for (const [name, scopes] of Object.entries(requirement)) named(w, 1, name, () => w.strings(1, scopes)); // StringArray
    });
  }
}

function operation(w: GnosticWriter, op: Json): void {
  w.strings(1, op.tags);
  w.string(2, op.summary);
  w.string(3, op.description);
  externalDocs(w, 4, op.externalDocs);
  w.string(5, op.operationId);
  parameters(w, 6, op.parameters);
  if (isObject(op.requestBody)) w.message(7, () => orReference(w, op.requestBody as Json, requestBody));
  if (isObject(op.responses)) w.message(8, () => responses(w, op.responses as Json));
  w.bool(10, op.deprecated);
  securityRequirements(w, 11, op.security);
  extensions(w, 13, op);
}

const methodFields: [string, number][] = [['get', 4], ['put', 5], ['post', 6], ['delete', 7], ['options', 8], ['head', 9], ['patch', 10], ['trace', 11]];

function pathItem(w: GnosticWriter, item: Json): void {
  w.string(1, item.$ref);
  w.string(2, item.summary);
  w.string(3, item.description);
  for (const [method, field] of methodFields) {
    const op = item[method];
    if (isObject(op)) w.message(field, () => operation(w, op));
  }
  parameters(w, 13, item.parameters);
  extensions(w, 14, item);
}

function securityScheme(w: GnosticWriter, s: Json): void {
  w.string(1, s.type);
  w.string(2, s.description);
  w.string(3, s.name);
  w.string(4, s.in);
  w.string(5, s.scheme);
  w.string(6, s.bearerFormat);
  w.string(8, s.openIdConnectUrl);
  extensions(w, 9, s);
}

/** Components' maps of *OrReference: SchemasOrReferences = 1, SecuritySchemesOrReferences = 7 (what kube-openapi's documents hold). */
function components(w: GnosticWriter, c: Json): void {
  const schemas = c.schemas;
  if (isObject(schemas)) {
    w.message(1, () => {
      for (const [name, s] of Object.entries(schemas)) if (isObject(s)) named(w, 1, name, () => orReference(w, s, schema));
    });
  }
  const schemes = c.securitySchemes;
  if (isObject(schemes)) {
    w.message(7, () => {
      for (const [name, s] of Object.entries(schemes)) if (isObject(s)) named(w, 1, name, () => orReference(w, s, securityScheme));
    });
  }
  extensions(w, 10, c);
}

/** The gnostic Protobuf encoding of an OpenAPI 3.0 document given as JSON data. */
export function encodeOpenApiV3Protobuf(doc: Json): Uint8Array {
  const w = new GnosticWriter();
  w.string(1, doc.openapi);
  const info = doc.info;
  if (isObject(info)) {
    w.message(2, () => {
      w.string(1, info.title);
      w.string(2, info.description);
      w.string(3, info.termsOfService);
      w.string(6, info.version);
      extensions(w, 7, info);
      w.string(8, info.summary);
    });
  }
  const paths = doc.paths;
  if (isObject(paths)) {
    w.message(4, () => {
      for (const [path, item] of Object.entries(paths)) {
        if (path.startsWith('/') && isObject(item)) named(w, 1, path, () => pathItem(w, item));
      }
      extensions(w, 2, paths);
    });
  }
  if (isObject(doc.components)) w.message(5, () => components(w, doc.components as Json));
  securityRequirements(w, 6, doc.security);
  externalDocs(w, 8, doc.externalDocs);
  extensions(w, 9, doc);
  return w.finish();
}
