// The OpenAPI documents kube-apiserver serves, built from the served types and their
// definitions: /openapi/v3 (an index and one document per group-version) and
// /openapi/v2 (Swagger 2.0, as JSON and as gnostic Protobuf). Pure functions; the
// HTTP side lives in openapi-service.ts.

import { createHash } from 'node:crypto';
import type { GroupVersionKind } from '../api/index.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { reachableDefinitions, refName } from '../schema/resolve.ts';
import type { Definitions, Schema } from '../schema/types.ts';
import { operationModel } from './openapi-operations.ts';
import type { ApiDocumentModel, Operation, OperationOptions, Param, PathItem, ResponseForm } from './openapi-operations.ts';
import { encodeSwaggerProtobuf } from './openapi-v2-protobuf.ts';
import { kubernetesMinor } from './version.ts';

export interface OpenApiOptions extends OperationOptions {
  /** info.version of the documents. */
  version?: string;
}

interface OpenApiV3Document {
  json: string;
  /** Upper-case hex SHA-512 of `json`, as in the index's `?hash=`. */
  hash: string;
}

export interface OpenApiV3 {
  /** The body of GET /openapi/v3. */
  index: { paths: Record<string, { serverRelativeURL: string }> };
  /** Documents by their path under /openapi/v3: "api/v1", "apis/apps/v1", "apis", ... */
  documents: Map<string, OpenApiV3Document>;
}

export interface OpenApiV2 {
  /** The document itself (shared: do not change it). */
  document: Json;
  json: string;
  /** The gnostic `openapi.v2.Document` encoding, for application/com.github.proto-openapi.spec.v2@v1.0+protobuf. */
  protobuf: Uint8Array;
  /** Upper-case hex SHA-512 of `json`; quote it for an ETag header. */
  etag: string;
}

type Json = Record<string, unknown>;

/** info.version: the Kubernetes release whose API is served, as upstream writes its own (without a suffix). */
const defaultVersion = `v1.${kubernetesMinor}.0`;

const objectMedia = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const streamMedia = [...objectMedia, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const patchMedia = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
const strategicMergeMedia = 'application/strategic-merge-patch+json';

function mediaOf(form: ResponseForm): string[] {
  return form === 'object' ? objectMedia : streamMedia;
}

function patchMediaOf(op: Operation): string[] {
  return op.strategicMerge === true ? [...patchMedia, strategicMergeMedia].sort() : patchMedia;
}

function sha512Hex(text: string): string {
  return createHash('sha512').update(text).digest('hex').toUpperCase();
}

function gvkJson(gvk: GroupVersionKind): Json {
  return { group: gvk.group, kind: gvk.kind, version: gvk.version };
}

/** Every definition the operations of some paths refer to, with what those refer to. */
function definitionsUsedBy(paths: PathItem[], defs: Definitions): string[] {
  const roots = new Set<string>();
  for (const item of paths) {
    for (const op of item.operations) {
      if (op.body !== undefined) roots.add(op.body.schema);
      for (const r of op.responses) if (r.schema !== undefined) roots.add(r.schema);
    }
  }
  return reachableDefinitions(defs, roots);
}

// OpenAPI v3

/**
 * A definition as OpenAPI v3 publishes it: a `$ref` with siblings (a field's description,
 * patch strategy) becomes `allOf: [{$ref}]` beside them, as upstream does, so that
 * `kubectl explain` shows the field's own description.
 */
function toV3Schema(schema: Schema): Json {
  const out: Json = {};
  if (schema.$ref !== undefined) {
    if (Object.keys(schema).length === 1) return { $ref: schema.$ref };
    out.allOf = [{ $ref: schema.$ref }];
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref') continue;
    out[key] = convertNested(key, value, toV3Schema);
  }
  return out;
}

function convertNested(key: string, value: unknown, convert: (s: Schema) => Json): unknown {
  switch (key) {
    case 'properties': {
      const props: Json = {};
      for (const [name, prop] of Object.entries(value as Record<string, Schema>)) props[name] = convert(prop);
      return props;
    }
    case 'items':
    case 'not':
      return convert(value as Schema);
    case 'additionalProperties':
      return typeof value === 'boolean' ? value : convert(value as Schema);
    case 'allOf':
    case 'anyOf':
    case 'oneOf':
      return (value as Schema[]).map(convert);
    default:
      return value;
  }
}

function v3Param(param: Param): Json {
  const out: Json = { description: param.description, in: param.in, name: param.name };
  if (param.required === true) out.required = true;
  out.schema = { type: param.type, uniqueItems: true };
  return out;
}

function v3Content(media: string[], schema: string): Json {
  const content: Json = {};
  for (const type of media) content[type] = { schema: { $ref: `#/components/schemas/${schema}` } };
  return content;
}

function v3Operation(op: Operation): Json {
  const out: Json = { description: op.description, operationId: op.operationId };
  if (op.parameters.length > 0) out.parameters = op.parameters.map(v3Param);
  if (op.body !== undefined) {
    const media = op.body.form === 'patch' ? patchMediaOf(op) : ['*/*'];
    out.requestBody = { content: v3Content(media, op.body.schema), required: op.body.form !== 'delete' };
  }
  const responses: Json = {};
  for (const r of op.responses) {
    responses[r.code] = r.schema === undefined
      ? { description: r.description }
      : { content: v3Content(mediaOf(op.form), r.schema), description: r.description };
  }
  out.responses = responses;
  out.tags = [op.tag];
  if (op.action !== undefined) out['x-kubernetes-action'] = op.action;
  if (op.gvk !== undefined) out['x-kubernetes-group-version-kind'] = gvkJson(op.gvk);
  return out;
}

function v3Paths(paths: PathItem[]): Json {
  const out: Json = {};
  for (const item of paths) {
    const entry: Json = {};
    for (const op of [...item.operations].sort(byMethod)) entry[op.method] = v3Operation(op);
    if (item.parameters.length > 0) entry.parameters = item.parameters.map(v3Param);
    out[item.path] = entry;
  }
  return out;
}

function byMethod(a: Operation, b: Operation): number {
  return a.method < b.method ? -1 : a.method > b.method ? 1 : 0;
}

const bearerToken = {
  description: 'Bearer Token authentication',
  in: 'header',
  name: 'authorization',
  type: 'apiKey',
};

function v3Document(doc: ApiDocumentModel, defs: Definitions, version: string, converted: Map<string, Json>): Json {
  const schemas: Json = {};
  for (const name of definitionsUsedBy(doc.paths, defs)) {
    let schema = converted.get(name);
    if (schema === undefined) {
      schema = toV3Schema(defs[name]!);
      converted.set(name, schema);
    }
    schemas[name] = schema;
  }
  return {
    components: { schemas, securitySchemes: { BearerToken: bearerToken } },
    info: { title: 'Kubernetes', version },
    openapi: '3.0.0',
    paths: v3Paths(doc.paths),
    security: [{ BearerToken: [] }],
  };
}

/**
 * The /openapi/v3 index and its documents. Deterministic: the same types and
 * definitions give byte-identical documents and hashes.
 */
export function buildOpenApiV3(types: readonly ResourceType[], defs: Definitions, opts: OpenApiOptions = {}): OpenApiV3 {
  const model = operationModel(types, defs, opts);
  const version = opts.version ?? defaultVersion;
  const converted = new Map<string, Json>();
  const documents = new Map<string, OpenApiV3Document>();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const doc of model.documents) {
    const json = JSON.stringify(v3Document(doc, model.definitions, version, converted));
    const hash = sha512Hex(json);
    documents.set(doc.key, { json, hash });
    paths[doc.key] = { serverRelativeURL: `/openapi/v3/${doc.key}?hash=${hash}` };
  }
  return { index: { paths }, documents };
}

// Swagger 2.0

const primitiveTypes = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * A definition as Swagger 2.0 publishes it: refs point into #/definitions and keep
 * only description and vendor-extension siblings (what kube-openapi's reader accepts);
 * constructs Swagger lacks (oneOf, anyOf, not, nullable) are left out, a oneOf of
 * primitive types becoming a string as upstream publishes Quantity and IntOrString.
 */
function toV2Schema(schema: Schema): Json {
  if (schema.$ref !== undefined) {
    const out: Json = { $ref: `#/definitions/${refName(schema.$ref)}` };
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'description' || key.startsWith('x-')) out[key] = value;
    }
    return out;
  }
  const out: Json = {};
  if (schema.type === undefined && schema.oneOf !== undefined && schema.oneOf.every((s) => s.type !== undefined && primitiveTypes.has(s.type))) {
    out.type = 'string';
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'oneOf' || key === 'anyOf' || key === 'not' || key === 'nullable') continue;
    out[key] = convertNested(key, value, toV2Schema);
  }
  return out;
}

function v2Param(param: Param): Json {
  const out: Json = { description: param.description, in: param.in, name: param.name };
  if (param.required === true) out.required = true;
  out.type = param.type;
  out.uniqueItems = true;
  return out;
}

function v2Operation(op: Operation): Json {
  const parameters: Json[] = [];
  if (op.body !== undefined) {
    const body: Json = { in: 'body', name: 'body' };
    if (op.body.form !== 'delete') body.required = true;
    body.schema = { $ref: `#/definitions/${op.body.schema}` };
    parameters.push(body);
  }
  parameters.push(...op.parameters.map(v2Param));
  const responses: Json = {};
  for (const r of op.responses) {
    responses[r.code] = r.schema === undefined
      ? { description: r.description }
      : { description: r.description, schema: { $ref: `#/definitions/${r.schema}` } };
  }
  const out: Json = {
    consumes: op.body?.form === 'patch' ? patchMediaOf(op) : ['*/*'],
    description: op.description,
    operationId: op.operationId,
  };
  if (parameters.length > 0) out.parameters = parameters;
  out.produces = mediaOf(op.form);
  out.responses = responses;
  out.schemes = ['https'];
  out.tags = [op.tag];
  if (op.action !== undefined) out['x-kubernetes-action'] = op.action;
  if (op.gvk !== undefined) out['x-kubernetes-group-version-kind'] = gvkJson(op.gvk);
  return out;
}

/** The Swagger 2.0 document as plain JSON data. */
function buildSwaggerDocument(types: readonly ResourceType[], defs: Definitions, opts: OpenApiOptions = {}): Json {
  const model = operationModel(types, defs, opts);
  const items = model.documents.flatMap((doc) => doc.paths).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const paths: Json = {};
  for (const item of items) {
    const entry: Json = {};
    for (const op of [...item.operations].sort(byMethod)) entry[op.method] = v2Operation(op);
    if (item.parameters.length > 0) entry.parameters = item.parameters.map(v2Param);
    paths[item.path] = entry;
  }
  const definitions: Json = {};
  for (const name of definitionsUsedBy(items, model.definitions)) definitions[name] = toV2Schema(model.definitions[name]!);
  return {
    definitions,
    info: { title: 'Kubernetes', version: opts.version ?? defaultVersion },
    paths,
    security: [{ BearerToken: [] }],
    securityDefinitions: { BearerToken: bearerToken },
    swagger: '2.0',
  };
}

/** /openapi/v2 as JSON and as Protobuf, from one document so the two always agree. */
export function buildOpenApiV2(types: readonly ResourceType[], defs: Definitions, opts: OpenApiOptions = {}): OpenApiV2 {
  return swaggerForms(buildSwaggerDocument(types, defs, opts));
}

/** A Swagger document's JSON and Protobuf forms and its ETag (the aggregated one's too). */
export function swaggerForms(document: Json): OpenApiV2 {
  const json = JSON.stringify(document);
  return { document, json, protobuf: encodeSwaggerProtobuf(document), etag: sha512Hex(json) };
}
