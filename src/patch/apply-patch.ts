// The non-apply patch types of PATCH, behind one function the handler calls with the
// request body: parse, dispatch by type, and answer failures as the Status
// kube-apiserver sends (apiserver/pkg/endpoints/handlers/patch.go).

import { StatusError, unsupportedMediaType } from '../api/errors.ts';
import { firstTooDeep, tooDeepMessage } from '../api/nesting.ts';
import type { Definitions, Schema } from '../schema/types.ts';
import { applyJsonPatch } from './json-patch.ts';
import { cloneJson, isJsonObject } from './json-value.ts';
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
 *   when the result is not a JSON object;
 * - 500 for the strategic merge errors upstream leaves unclassified (a list item without
 *   its merge key, an unknown `$patch`), with upstream's message and no reason.
 * Preconditions (`metadata.resourceVersion` in the patch), managed fields, validation and
 * defaulting are the caller's.
 */
export function applyPatch(kind: PatchKind, current: object, patchBytes: Uint8Array, ctx: PatchContext): object {
  if (kind === 'strategic' && ctx.schema === undefined) {
    throw unsupportedMediaType('', [patchMediaTypes.json, patchMediaTypes.merge, 'application/apply-patch+yaml']);
  }
  const patch = parsePatch(patchBytes);
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
        result = applyMergePatch(cloneJson(current), cloneJson(patch));
        break;
      case 'strategic':
        result = applyStrategicMergePatch(ctx.defs, ctx.schema!, current, patch);
        break;
    }
  } catch (err) {
    if (isPatchError(err)) throw toStatusError(err);
    throw err;
  }
  if (!isJsonObject(result)) throw notAnObject(result, ctx.schema);
  return result;
}

function parsePatch(bytes: Uint8Array): unknown {
  let patch: unknown;
  try {
    patch = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    throw new StatusError(400, 'BadRequest', `error decoding patch: ${(err as Error).message}`);
  }
  // Nested deeper than decoding admits (api/nesting.ts): 400 as upstream's JSON decoder.
  const opener = firstTooDeep(patch);
  if (opener !== undefined) throw new StatusError(400, 'BadRequest', `error decoding patch: ${tooDeepMessage(opener)}`);
  return patch;
}

/**
 * A patch whose result is not an object fails where upstream decodes the result into
 * the kind's type: 422 with one cause on the field "patch".
 */
function notAnObject(result: unknown, schema: Schema | undefined): StatusError {
  const json = JSON.stringify(result) ?? 'null';
  const jsonKind = Array.isArray(result) ? 'array' : result === null ? 'null' : typeof result === 'boolean' ? 'bool' : typeof result;
  const gvk = schema?.['x-kubernetes-group-version-kind']?.[0];
  const goType = gvk === undefined ? 'map[string]interface {}' : `${gvk.version}.${gvk.kind}`;
  const message = `Invalid value: ${JSON.stringify(json)}: json: cannot unmarshal ${jsonKind} into Go value of type ${goType}`;
  return new StatusError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}
