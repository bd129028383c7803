import { invalid, type KubeObject, type StatusError } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { readBody, writeObject } from '../http.ts';
import { decodePatch } from '../patch-body.ts';
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

export async function patchHandler(scope: RequestScope): Promise<void> {
  await patchObject(scope, '');
}

/** PATCH of an object or of an update-like subresource (status, finalize): JSON, merge or strategic merge patch. */
export async function patchObject(scope: RequestScope, subresource = scope.info.subresource): Promise<void> {
  const { info, served } = scope;
  const dryRun = parseDryRun(scope.query, 'PatchOptions');
  const directive = parseFieldValidation(scope.query, 'PatchOptions');
  const patch = decodePatch(scope.req.headers['content-type'], scope.query, await readBody(scope.req), {
    schemaName: served.type.schemaName, groupResource: served.store.groupResource,
  });
  const fieldValidation = { directive, duplicateFields: directive === 'Ignore' ? [] : patch.duplicateFields, strictError: strictPatchError };
  const { object } = await served.store.guaranteedUpdate(info.namespace, info.name, patch.resourceVersion, { dryRun, fieldValidation },
    (current) => patch.apply(current!) as KubeObject,
    { createIfMissing: false, subresource });
  await writeObject(scope.res, 200, scope.negotiated, object);
}
