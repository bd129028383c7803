// PATCH: JSON, merge, strategic merge and apply patches.
import { badRequest, invalid, isStatusError, unclassifiedError, type KubeObject, type StatusError } from '../../api/index.ts';
import { decodeCborObject } from '../../encoding/cbor.ts';
import { decodeBodyLoading, type DecodedBody } from '../../encoding/decode.ts';
import { configurationTargetError } from '../../registry/apply-configuration.ts';
import type { FieldValidationDirective } from '../../registry/field-validation.ts';
import { goQuote } from '../../api/field-errors.ts';
import { goValue } from '../../patch/go-format.ts';
import { writeAnswer, writeStoredAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodePatch, patchMediaKindOf, type PatchMediaKind } from '../patch-body.ts';
import { fieldManagerOf, writeOptions } from '../query.ts';
import { queryBool } from '../request-info.ts';
import type { RequestScope } from './scope.ts';

/**
 * Strict field validation refuses a patch with 422, naming the patched object, as
 * upstream's patcher does (handlers/patch.go: `field.Invalid(field.NewPath("patch"), ...)`
 * in an Invalid error of no kind and no name). Every patch type answers this way.
 */
export function strictPatchError(message: string, patched: KubeObject): StatusError {
  return invalid('', '', [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${goQuote(JSON.stringify(patched))}: ${message}` }]);
}

/**
 * A strategic merge patch names the patch itself, as Go's `%+v` prints the decoded map,
 * where the other types name the patched object (handlers/patch.go's applyPatchToObject:
 * `field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patchMap), ...)`).
 */
export function strictStrategicPatchError(patch: unknown): (message: string) => StatusError {
  return (message) => invalid('', '', [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${goQuote(goValue(patch))}: ${message}` }]);
}

export async function patchHandler(scope: RequestScope): Promise<void> {
  await patchObject(scope, '');
}

/** PATCH of an object or of an update-like subresource (status, finalize): JSON, merge or strategic merge patch, or server-side apply. */
export async function patchObject(scope: RequestScope, subresource = scope.info.subresource): Promise<void> {
  const { info, served } = scope;
  // The Content-Type is checked first, as upstream (before the options, the body and the object).
  const kind = patchKindOf(scope);
  const { dryRun, directive } = writeOptions(scope.query, 'PatchOptions', { apply: isApply(kind) });
  if (isApply(kind)) {
    await serverSideApply(scope, subresource, dryRun, directive, kind === 'apply-cbor');
    return;
  }
  const fieldManager = fieldManagerOf(scope.query, scope.req.headers['user-agent'], 'PatchOptions');
  const patch = decodePatch(kind, await readBody(scope.req), {
    schemaName: served.type.schemaName, groupResource: served.store.groupResource, fieldValidation: directive,
  });
  const strictError = kind === 'strategic' ? strictStrategicPatchError(patch.value) : strictPatchError;
  const fieldValidation = {
    directive, duplicateFields: directive === 'Ignore' ? [] : patch.duplicateFields, patchErrors: patch.patchErrors, strictError,
    ...(kind === 'strategic' ? { conversionFailure: unclassifiedError } : {}),
  };
  const { object } = await served.store.guaranteedUpdate(info.namespace, info.name, patch.resourceVersion, { dryRun, fieldValidation, fieldManager, floatNumbers: patch.floatNumbers },
    (current) => patch.apply(current!) as KubeObject,
    // The patch functions copy what they patch and never change it (patch/apply-patch.ts).
    { createIfMissing: false, subresource, mutateArgument: 'copies' });
  await writeAnswer(scope, 200, object);
}

/**
 * An apply configuration in CBOR (`application/apply-patch+cbor`): one map. Upstream
 * words its refusal as it words YAML's; duplicate keys are refused whatever the field
 * validation, so there are none to report.
 */
function decodeApplyCbor(body: Uint8Array): DecodedBody {
  try {
    return { value: decodeCborObject(body), duplicateFields: [] };
  } catch (err) {
    if (!isStatusError(err)) throw err;
    throw badRequest(`error decoding YAML: ${err.message}`);
  }
}

/**
 * What the PATCH's Content-Type asks for: a patch type, or server-side apply in YAML or (with
 * its gate) CBOR. A Content-Type that names no patch type the resource takes is refused here
 * (415, or go-restful's 406 for a built-in type's PATCH without a body), as upstream refuses it first.
 */
export function patchKindOf(scope: RequestScope): PatchMediaKind {
  return patchMediaKindOf({
    contentType: scope.req.headers['content-type'], contentLength: scope.req.headers['content-length'],
    customResource: scope.served.type.customResource === true, cbor: scope.cbor,
  });
}

export function isApply(kind: PatchMediaKind): kind is 'apply-yaml' | 'apply-cbor' {
  return kind === 'apply-yaml' || kind === 'apply-cbor';
}

/** An apply request's manager (writeOptions has required and checked it), `force` and body. */
export async function applyRequest(scope: RequestScope): Promise<{ fieldManager: string; force: boolean; body: Uint8Array }> {
  const { query } = scope;
  return { fieldManager: query.get('fieldManager') ?? '', force: queryBool(query.get('force')) === true, body: await readBody(scope.req) };
}

/** An apply configuration decoded (JSON is YAML: kubectl sends JSON), naming the object the URL names (400 otherwise, as upstream's apply patcher checks). */
export async function decodeApplyConfiguration(scope: RequestScope, body: Uint8Array, cbor: boolean, directive: FieldValidationDirective): Promise<DecodedBody> {
  const decoded = cbor ? decodeApplyCbor(body) : await decodeBodyLoading('application/yaml', body, { findDuplicates: directive !== 'Ignore' });
  const { info, served } = scope;
  const mismatch = configurationTargetError(decoded.value, info.name, info.namespace, served.type.namespaced);
  if (mismatch !== undefined) throw badRequest(mismatch);
  return decoded;
}

/**
 * `application/apply-patch+yaml` (and `+cbor` with its gate): fieldManager is required
 * (422), `force` is true or false, managedFields in the body are refused (400), a
 * malformed body is 400; creates when absent (201), patches when present (200).
 */
async function serverSideApply(scope: RequestScope, subresource: string, dryRun: boolean, directive: FieldValidationDirective, cbor: boolean): Promise<void> {
  const { info, served } = scope;
  const { fieldManager, force, body } = await applyRequest(scope);
  // An apply the worker thread takes: it decodes and checks the body itself; what it does
  // not finish is served below from the start.
  if (!cbor && served.store.appliesOnWorker(subresource, dryRun)) {
    const done = await served.store.applyBodyOnWorker(info.namespace, info.name, body, { fieldManager, force, fieldValidation: { directive } });
    if (done !== undefined) return writeStoredAnswer(scope, done.created ? 201 : 200, done);
  }
  const { value: applied, duplicateFields } = await decodeApplyConfiguration(scope, body, cbor, directive);
  const result = await served.store.apply(info.namespace, info.name, applied, {
    dryRun, fieldManager, force, workerAsked: !cbor,
    fieldValidation: { directive, duplicateFields, strictError: strictPatchError },
    authorizeCreate: scope.authorizeCreate,
  }, subresource);
  await writeStoredAnswer(scope, result.created ? 201 : 200, result);
}
