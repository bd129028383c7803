import { badRequest, invalid, unsupportedMediaType, type KubeObject, type StatusError } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { parseJson } from '../../encoding/decode.ts';
import { duplicateJsonFields } from '../../encoding/duplicate-fields.ts';
import { parseMediaType } from '../../encoding/media-type.ts';
import { applyMergePatch } from '../../patch/merge-patch.ts';
import { readBody, writeObject } from '../http.ts';
import { parseDryRun, parseFieldValidation } from '../query.ts';
import type { RequestScope } from './scope.ts';

/**
 * Strict field validation refuses a patch with 422, naming the patched object, as
 * upstream's patcher does (handlers/patch.go: `field.Invalid(field.NewPath("patch"), ...)`
 * in an Invalid error of no kind and no name). Every patch type answers this way.
 */
export function strictPatchError(message: string, patched: KubeObject): StatusError {
  return invalid('', '', [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${goQuote(JSON.stringify(patched))}: ${message}` }]);
}

/** Patch types this server applies; the others answer 415 until they are implemented. */
const patchTypes = ['application/merge-patch+json'];

export async function patchHandler(scope: RequestScope): Promise<void> {
  const { query, served, info } = scope;
  const dryRun = parseDryRun(query, 'PatchOptions');
  const directive = parseFieldValidation(query, 'PatchOptions');
  const contentType = scope.req.headers['content-type'] ?? '';
  const media = parseMediaType(contentType);
  const essence = media === undefined ? '' : `${media.type}/${media.subtype}`;
  if (!patchTypes.includes(essence)) throw unsupportedMediaType(contentType, patchTypes);
  if (query.has('force')) {
    throw invalid('PatchOptions', '', [{ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' }], 'meta.k8s.io');
  }
  const text = (await readBody(scope.req)).toString('utf8');
  const patch = parseJson(text);
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw badRequest('the body of the request could not be decoded: a merge patch must be a JSON object');
  }
  // A resourceVersion in the patch is a precondition (409 when stale), as upstream.
  const meta = (patch as { metadata?: { resourceVersion?: unknown } }).metadata;
  const expected = typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : undefined;
  // The patch's own duplicate fields count, as upstream's merge patcher decodes it strictly.
  const duplicateFields = directive === 'Ignore' ? [] : duplicateJsonFields(text);
  const fieldValidation = { directive, duplicateFields, strictError: strictPatchError };
  const { object } = await served.store.guaranteedUpdate(info.namespace, info.name, expected, { dryRun, fieldValidation }, (current) => {
    if (current === undefined) throw new Error('unreachable: patch of a missing object');
    const patched = applyMergePatch(current, patch);
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched) || typeof (patched as KubeObject).metadata !== 'object') {
      throw badRequest('the patch leaves no object metadata');
    }
    return patched as KubeObject;
  }, { createIfMissing: false });
  await writeObject(scope.res, 200, scope.negotiated, object);
}
