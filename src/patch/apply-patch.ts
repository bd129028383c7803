// The non-apply patch types of PATCH, behind one function the handler calls with the
// request body: parse, dispatch by type, and answer failures as the Status
// kube-apiserver sends (apiserver/pkg/endpoints/handlers/patch.go).

import { StatusError, unsupportedMediaType } from '../api/errors.ts';
import { resolve } from '../schema/resolve.ts';
import { goJsonSyntaxError } from '../api/go-json-syntax.ts';
import { firstTooDeep, mayNestTooDeep, tooDeepMessage } from '../api/nesting.ts';
import type { Definitions, Schema } from '../schema/types.ts';
import { goTypeName, goValue } from './go-format.ts';
import { applyJsonPatch } from './json-patch.ts';
import { goJsonKind, isObject } from '../api/json.ts';
import { replaceLoneSurrogateEscapes } from '../api/lone-surrogates.ts';
import { applyMergePatch } from './merge-patch.ts';
import { isPatchError, toStatusError } from './patch-error.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';

export type PatchKind = 'json' | 'merge' | 'strategic';

/** The Content-Type of each patch type. */
export const patchMediaTypes: Record<PatchKind, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export interface PatchContext {
  /** The definitions `schema`'s references point into. */
  defs: Definitions;
  /**
   * The schema of a built-in kind, whose patch metadata drives strategic merge patch;
   * undefined for custom resources, which do not support it.
   */
  schema: Schema | undefined;
  /**
   * The request's field validation (the server's default, Warn, when absent): it picks
   * the decoder upstream reads the patch with, and so the words of a syntax error.
   */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/**
 * Applies a patch body of the given type to `current` and answers the patched object.
 * `current` is not modified and the result shares nothing mutable with it. Throws
 * StatusError as kube-apiserver answers:
 * - 415 for a strategic merge patch without a schema (custom resources), listing the
 *   patch types custom resources accept;
 * - 400 for a body that is not JSON, nests too deeply, or is not of the patch type's
 *   form (a JSON patch that is not an array, a merge patch that is not an object, a
 *   malformed strategic-merge directive);
 * - 413 for more than 10,000 JSON Patch operations;
 * - 422 for a JSON patch that does not apply (a failing `test`, a missing path; the
 *   Status carries upstream's generic message), for strategic merge lists of lists, and
 *   when the result is not a JSON object or (built-in kinds) its metadata holds a value
 *   of the wrong JSON type;
 * - 500 for the strategic merge errors upstream leaves unclassified (a list item without
 *   its merge key, an unknown `$patch`), with upstream's message and no reason.
 * Preconditions (`metadata.resourceVersion` in the patch), managed fields, validation and
 * defaulting are the caller's.
 */
export function applyPatch(kind: PatchKind, current: object, patchBytes: Uint8Array, ctx: PatchContext): object {
  if (kind === 'strategic' && ctx.schema === undefined) {
    throw unsupportedMediaType('', [patchMediaTypes.json, patchMediaTypes.merge, 'application/apply-patch+yaml']);
  }
  const patch = parsePatch(patchBytes, kind, ctx.fieldValidation ?? 'Warn');
  let result: unknown;
  try {
    switch (kind) {
      case 'json':
        result = applyJsonPatch(current, patch);
        break;
      case 'merge':
        // Upstream's MergePatch answers ErrBadJSONPatch for null and scalars; an array
        // replaces the whole document (and then fails below, as it fails to decode).
        if (typeof patch !== 'object' || patch === null) throw new StatusError(400, 'BadRequest', 'Invalid JSON Patch');
        result = applyMergePatch(current, patch);
        break;
      case 'strategic':
        result = applyStrategicMergePatch(ctx.defs, ctx.schema!, current, patch);
        break;
    }
  } catch (err) {
    if (isPatchError(err)) throw toStatusError(err);
    throw err;
  }
  if (!isObject(result)) throw notAnObject(result, ctx.schema);
  // A custom resource (no schema here) is decoded too, its metadata alone into ObjectMeta
  // (apiextensions' GetObjectMeta), so Go names its fields without the `metadata.` prefix.
  const fault = ctx.schema === undefined
    ? metadataTypeFault(result, 'Object', '')
    : metadataTypeFault(result, goKindOf(resolve(ctx.defs, ctx.schema)), 'metadata.');
  if (fault !== undefined) throw undecodable(kind, result, patch, fault);
  return result;
}

function goKindOf(schema: Schema): string {
  return schema['x-kubernetes-group-version-kind']?.[0]?.kind ?? 'Object';
}

/** A value of the wrong type in the patched object, worded as each of upstream's decoders words it. */
interface TypeFault {
  /** encoding/json, which decodes the result of a JSON or merge patch. */
  json: string;
  /** runtime.DefaultUnstructuredConverter, which converts the result of a strategic merge patch. */
  converter: string;
}

/** reflect.Kind of a value decoded into interface{}. */
function reflectKindOf(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (isObject(value)) return 'map';
  return goTypeName(value);
}

const metaStringTypes: Record<string, string> = {
  name: 'string', generateName: 'string', namespace: 'string', selfLink: 'string', uid: 'types.UID', resourceVersion: 'string',
};

/**
 * The first ObjectMeta field of the patched object whose JSON type its Go type cannot hold
 * (the fields every later stage reads). Decoding the result into the kind's Go type fails
 * there upstream; other fields are left to the schema's type checks.
 */
function metadataTypeFault(result: Record<string, unknown>, kind: string, prefix: string): TypeFault | undefined {
  const meta = result.metadata;
  if (meta === undefined || meta === null) return undefined;
  const fault = (value: unknown, struct: string, field: string, goType: string, converter: string): TypeFault => ({
    json: `json: cannot unmarshal ${goJsonKind(value)} into Go struct field ${struct}.${field} of type ${goType}`,
    converter,
  });
  const convert = (value: unknown, goType: string) => `cannot convert ${goTypeName(value)} to ${goType}`;
  if (!isObject(meta)) return fault(meta, kind, 'metadata', 'v1.ObjectMeta', `cannot restore struct from: ${reflectKindOf(meta)}`);
  for (const [field, value] of Object.entries(meta)) {
    if (value === null) continue;
    const stringType = metaStringTypes[field];
    if (stringType !== undefined) {
      if (typeof value !== 'string') return fault(value, 'ObjectMeta', `${prefix}${field}`, stringType, convert(value, stringType));
    } else if (field === 'labels' || field === 'annotations') {
      if (!isObject(value)) return fault(value, 'ObjectMeta', `${prefix}${field}`, 'map[string]string', `cannot restore map from ${reflectKindOf(value)}`);
      for (const v of Object.values(value)) {
        if (v !== null && typeof v !== 'string') return fault(v, 'ObjectMeta', `${prefix}${field}`, 'string', convert(v, 'string'));
      }
    } else if (field === 'finalizers') {
      if (!Array.isArray(value)) return fault(value, 'ObjectMeta', `${prefix}finalizers`, '[]string', `cannot restore slice from ${reflectKindOf(value)}`);
      for (const v of value) {
        if (v !== null && typeof v !== 'string') return fault(v, 'ObjectMeta', `${prefix}finalizers`, 'string', convert(v, 'string'));
      }
    } else if (field === 'managedFields') {
      if (!Array.isArray(value)) return fault(value, 'ObjectMeta', `${prefix}managedFields`, '[]v1.ManagedFieldsEntry', `cannot restore slice from ${reflectKindOf(value)}`);
      for (const v of value) {
        if (v !== null && !isObject(v)) return fault(v, 'ObjectMeta', `${prefix}managedFields`, 'v1.ManagedFieldsEntry', `cannot restore struct from: ${reflectKindOf(v)}`);
      }
    } else if (field === 'ownerReferences') {
      if (!Array.isArray(value)) return fault(value, 'ObjectMeta', `${prefix}ownerReferences`, '[]v1.OwnerReference', `cannot restore slice from ${reflectKindOf(value)}`);
      for (const v of value) {
        if (v !== null && !isObject(v)) return fault(v, 'ObjectMeta', `${prefix}ownerReferences`, 'v1.OwnerReference', `cannot restore struct from: ${reflectKindOf(v)}`);
      }
    }
  }
  return undefined;
}

/**
 * Upstream's patcher answers a result its decoder refuses with 422 on the field "patch":
 * the patched JSON for JSON and merge patches, the patch itself (`%+v`) for strategic merge.
 */
function undecodable(kind: PatchKind, result: unknown, patch: unknown, fault: TypeFault): StatusError {
  const message = kind === 'strategic'
    ? `Invalid value: ${JSON.stringify(goValue(patch))}: ${fault.converter}`
    : `Invalid value: ${JSON.stringify(JSON.stringify(result))}: ${fault.json}`;
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

function parsePatch(bytes: Uint8Array, kind: PatchKind, fieldValidation: 'Ignore' | 'Warn' | 'Strict'): unknown {
  // Lone surrogates read as U+FFFD, as Go's encoding/json reads them.
  const text = replaceLoneSurrogateEscapes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (err) {
    throw undecodablePatch(kind, fieldValidation, goJsonSyntaxError(bytes) ?? (err as Error).message);
  }
  // Nested deeper than decoding admits (api/nesting.ts): 400 as upstream's JSON decoder.
  const opener = mayNestTooDeep(text) ? firstTooDeep(patch) : undefined;
  if (opener !== undefined) throw undecodablePatch(kind, fieldValidation, tooDeepMessage(opener));
  if (fieldValidation !== 'Ignore') {
    const shape = kind === 'merge' ? mergePatchShapeError(patch) : kind === 'json' ? jsonPatchShapeError(patch) : undefined;
    if (shape !== undefined) throw undecodablePatch(kind, fieldValidation, shape);
  }
  return patch;
}

/**
 * With Warn or Strict upstream first decodes a merge patch strictly into a
 * map[string]interface{}: anything but an object (or null) is Go's type error.
 */
function mergePatchShapeError(patch: unknown): string | undefined {
  if (patch === null || isObject(patch)) return undefined;
  return `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type map[string]interface {}`;
}

/**
 * …and a JSON patch into its []jsonPatchOp (op, path and from strings; value anything): the
 * first of Go's type errors, in the order of the body, as encoding/json keeps it.
 */
function jsonPatchShapeError(patch: unknown): string | undefined {
  if (patch === null) return undefined;
  if (!Array.isArray(patch)) return `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type []handlers.jsonPatchOp`;
  for (const op of patch) {
    if (op === null) continue;
    if (!isObject(op)) return `json: cannot unmarshal ${goJsonKind(op)} into Go value of type handlers.jsonPatchOp`;
    for (const [field, value] of Object.entries(op)) {
      if ((field === 'op' || field === 'path' || field === 'from') && value !== null && typeof value !== 'string') {
        return `json: cannot unmarshal ${goJsonKind(value)} into Go struct field jsonPatchOp.${field} of type string`;
      }
    }
  }
  return undefined;
}

/**
 * 400 for a patch body Go's JSON decoder refuses, worded as upstream's patcher words it
 * (handlers/patch.go): with Warn or Strict a JSON or merge patch is first read strictly,
 * `error decoding patch: <Go's error>`; with Ignore a JSON patch fails in DecodePatch with
 * Go's error alone and a merge patch in MergePatch with ErrBadJSONPatch; a strategic merge
 * patch answers Go's error alone either way (strategicPatchObject).
 */
function undecodablePatch(kind: PatchKind, fieldValidation: 'Ignore' | 'Warn' | 'Strict', goError: string): StatusError {
  if (kind === 'strategic') return new StatusError(400, 'BadRequest', goError);
  if (fieldValidation !== 'Ignore') return new StatusError(400, 'BadRequest', `error decoding patch: ${goError}`);
  return new StatusError(400, 'BadRequest', kind === 'merge' ? 'Invalid JSON Patch' : goError);
}

/**
 * A patch whose result is not an object fails where upstream decodes the result into
 * the kind's type: 422 with one cause on the field "patch".
 */
function notAnObject(result: unknown, schema: Schema | undefined): StatusError {
  const json = JSON.stringify(result) ?? 'null';
  const gvk = schema?.['x-kubernetes-group-version-kind']?.[0];
  const goType = gvk === undefined ? 'map[string]interface {}' : `${gvk.version}.${gvk.kind}`;
  const message = `Invalid value: ${JSON.stringify(json)}: json: cannot unmarshal ${goJsonKind(result)} into Go value of type ${goType}`;
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}
