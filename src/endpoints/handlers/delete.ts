// DELETE of an object and of a collection, answered as upstream's delete handler.
import { badRequest, invalid, isStatusError, type Status, type StatusCause } from '../../api/index.ts';
import { goFieldTypeError, isGoInt64, isObject } from '../../api/json.ts';
import { decodeBodyLoading, notAnObjectBody } from '../../encoding/decode.ts';
import type { DeleteOptions } from '../../registry/store.ts';
import { shapeList, writeAnswer } from '../answer.ts';
import { readBody, writeObject } from '../http.ts';
import { parseDryRun, parseInteger } from '../query.ts';
import { deleteCollectionListParams } from '../read-options.ts';
import { queryBool } from '../request-info.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

/** A DeleteOptions as the body gives it, its values of the right types. */
export interface DeleteOptionsBody {
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

/** Where a DeleteOptions is decoded as a member of another kind's body (an Eviction's deleteOptions). */
export interface DeleteOptionsMember {
  /** The kind holding it, and the version its body was decoded in, as Go's decoding error names them. */
  kind: string;
  version: string;
  /** Its JSON field in that kind. */
  field: string;
}

/**
 * Checks the JSON types of a DeleteOptions the way decoding it into metav1.DeleteOptions
 * does upstream: the first value of the wrong type, in document order, is a 400 with Go's
 * json message; null leaves a field unset. Answers the options with their nulls dropped.
 * A DELETE body is decoded alone; a member of another kind's body (`within`) is decoded
 * with it, so its errors name that kind and their paths start at its field.
 */
export function decodeDeleteOptions(parsed: unknown, within?: DeleteOptionsMember): DeleteOptionsBody {
  const fail = (message: string) =>
    badRequest(within === undefined ? message : `${within.kind} in version "${within.version}" cannot be handled as a ${within.kind}: ${message}`);
  const prefix = within === undefined ? '' : `${within.field}.`;
  const typeError = (value: unknown, struct: string, field: string, goType: string) => fail(goFieldTypeError(value, struct, `${prefix}${field}`, goType));
  if (parsed === null) return {};
  if (!isObject(parsed)) throw within === undefined ? notAnObjectBody(parsed) : fail(goFieldTypeError(parsed, within.kind, within.field, 'v1.DeleteOptions'));
  // A body's group, version and kind are read before the rest (a member's are fields like the others).
  if (within === undefined) {
    for (const field of ['apiVersion', 'kind']) {
      const value = parsed[field];
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw badRequest(`couldn't get version/kind; json parse error: ${goFieldTypeError(value, '', field, 'string')}`);
      }
    }
  }
  const out: DeleteOptionsBody = {};
  for (const [field, value] of Object.entries(parsed)) {
    if (value === null) continue;
    switch (field) {
      case 'apiVersion':
      case 'kind':
        if (typeof value !== 'string') throw typeError(value, 'DeleteOptions', field, 'string');
        break;
      case 'gracePeriodSeconds':
        if (!isGoInt64(value)) throw typeError(value, 'DeleteOptions', field, 'int64');
        out.gracePeriodSeconds = value;
        break;
      case 'orphanDependents':
        if (typeof value !== 'boolean') throw typeError(value, 'DeleteOptions', field, 'bool');
        out.orphanDependents = value;
        break;
      case 'ignoreStoreReadErrorWithClusterBreakingPotential':
        if (typeof value !== 'boolean') throw typeError(value, 'DeleteOptions', field, 'bool');
        out.ignoreStoreReadErrorWithClusterBreakingPotential = value;
        break;
      case 'propagationPolicy':
        if (typeof value !== 'string') throw typeError(value, 'DeleteOptions', field, 'v1.DeletionPropagation');
        out.propagationPolicy = value;
        break;
      case 'dryRun':
        if (!Array.isArray(value)) throw typeError(value, 'DeleteOptions', field, '[]string');
        out.dryRun = value.map((v) => {
          if (v === null) return '';
          if (typeof v !== 'string') throw typeError(v, 'DeleteOptions', field, 'string');
          return v;
        });
        break;
      case 'preconditions': {
        if (!isObject(value)) throw typeError(value, 'DeleteOptions', field, 'v1.Preconditions');
        const preconditions: { uid?: string; resourceVersion?: string } = {};
        for (const [key, v] of Object.entries(value)) {
          if (v === null || (key !== 'uid' && key !== 'resourceVersion')) continue;
          if (typeof v !== 'string') throw typeError(v, 'Preconditions', `preconditions.${key}`, key === 'uid' ? 'types.UID' : 'string');
          preconditions[key] = v;
        }
        out.preconditions = preconditions;
        break;
      }
    }
  }
  return out;
}

/**
 * DeleteOptions as upstream's delete handler reads them: from the body when there is one
 * (JSON, YAML or Protobuf by its Content-Type; kubectl and client-go send one, of kind
 * DeleteOptions in any group version), else from the query; then validated (422).
 */
async function deleteOptions(scope: RequestScope, collection: boolean): Promise<DeleteOptions & { ignoreStoreReadError?: boolean }> {
  const body = await readBody(scope.req);
  let fromBody: DeleteOptionsBody | undefined;
  if (body.byteLength > 0) {
    const { value } = await decodeBodyLoading(scope.req.headers['content-type'], body, { cbor: scope.cbor, kind: 'DeleteOptions' });
    fromBody = decodeDeleteOptions(value);
  }
  // The query counts only without a body, as upstream.
  const query = fromBody === undefined ? scope.query : new URLSearchParams();
  for (const value of fromBody?.dryRun ?? []) query.append('dryRun', value);
  const propagationPolicy = fromBody === undefined ? query.get('propagationPolicy') ?? undefined : fromBody.propagationPolicy;
  const orphanDependents = fromBody === undefined ? queryBool(query.get('orphanDependents')) : fromBody.orphanDependents;
  const ignoreStoreReadError = fromBody === undefined ? queryBool(query.get('ignoreStoreReadErrorWithClusterBreakingPotential')) : fromBody.ignoreStoreReadErrorWithClusterBreakingPotential;
  const gracePeriodSeconds = fromBody === undefined ? parseInteger(query, 'gracePeriodSeconds') : fromBody.gracePeriodSeconds;
  // Without a body, `uid` and `resourceVersion` in the query are one object's preconditions
  // (upstream's url.Values conversion); a collection's `resourceVersion` is its list's.
  const preconditions = fromBody === undefined ? (collection ? undefined : queryPreconditions(query)) : fromBody.preconditions;
  // Upstream's ValidateDeleteOptions, its causes in its order.
  const causes: StatusCause[] = [];
  if (orphanDependents !== undefined && propagationPolicy !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid', field: 'propagationPolicy',
      message: `Invalid value: "${propagationPolicy}": orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (propagationPolicy !== undefined && !propagationPolicies.includes(propagationPolicy)) {
    causes.push({
      reason: 'FieldValueNotSupported', field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  }
  let dryRun = false;
  try {
    dryRun = parseDryRun(query, 'DeleteOptions');
  } catch (err) {
    if (!isStatusError(err) || causes.length === 0) throw err;
    causes.push(...(err.details?.causes ?? []));
  }
  if (ignoreStoreReadError === true) {
    causes.push(...unsafeDeleteConflicts(query.getAll('dryRun').length > 0, propagationPolicy, orphanDependents, gracePeriodSeconds, preconditions));
  }
  if (causes.length > 0) throw invalid('DeleteOptions', '', causes, 'meta.k8s.io');
  return { orphanDependents, ignoreStoreReadError, dryRun, preconditions, gracePeriodSeconds, propagationPolicy };
}

function queryPreconditions(query: URLSearchParams): { uid?: string; resourceVersion?: string } | undefined {
  const uid = query.get('uid') ?? '';
  const resourceVersion = query.get('resourceVersion') ?? '';
  if (uid === '' && resourceVersion === '') return undefined;
  return { ...(uid !== '' ? { uid } : {}), ...(resourceVersion !== '' ? { resourceVersion } : {}) };
}

/** Upstream's ValidateIgnoreStoreReadError: the unsafe deletion of a corrupt object takes no other option. */
function unsafeDeleteConflicts(dryRun: boolean, propagationPolicy: unknown, orphanDependents: unknown, gracePeriodSeconds: unknown, preconditions: unknown): StatusCause[] {
  const set: Array<[string, boolean]> = [
    ['dryRun', dryRun], ['propagationPolicy', propagationPolicy !== undefined], ['orphanDependents', orphanDependents !== undefined],
    ['gracePeriodSeconds', gracePeriodSeconds !== undefined], ['preconditions', preconditions !== undefined],
  ];
  return set.filter(([, isSet]) => isSet).map(([name]) => ({
    reason: 'FieldValueInvalid', field: 'ignoreStoreReadErrorWithClusterBreakingPotential', message: `Invalid value: true: cannot be set together with .${name}`,
  }));
}

/**
 * Upstream's delete handler: an object that stays (finalizers, a terminating namespace, a
 * CRD awaiting its cleanup) is answered with 200 and the object, and with 202 only when the
 * client set orphanDependents to false; one that is gone with the object for the types
 * whose registry returns it (ReturnDeletedObject), else a Success Status.
 */
export async function deleteHandler(scope: RequestScope): Promise<void> {
  const { served, info } = scope;
  const { ignoreStoreReadError, ...opts } = await deleteOptions(scope, false);
  // Without the AllowUnsafeMalformedObjectDeletion gate the option is ignored, as upstream.
  if (ignoreStoreReadError === true && scope.unsafeMalformedObjectDeletion) {
    // Upstream asks for this verb besides delete before anything else is tried.
    await scope.authorizeVerb?.('unsafe-delete-ignore-read-errors');
    await deleteCorrupt(scope, opts);
    return;
  }
  const { object, deleted } = await served.store.delete(info.namespace, info.name, opts);
  if (!deleted) await writeAnswer(scope, opts.orphanDependents === false ? 202 : 200, object);
  else if (served.type.deleteReturnsObject) await writeAnswer(scope, 200, object);
  else await writeAnswer(scope, 200, served.store.deletedStatus(object));
}

/**
 * The unsafe deletion of a corrupt object (upstream's corruptObjectDeleter): answered like a
 * normal delete when that worked, else with a Success Status naming the kind, as upstream's
 * handler does when the registry has no object to answer with.
 */
async function deleteCorrupt(scope: RequestScope, opts: DeleteOptions): Promise<void> {
  const { served, info } = scope;
  const result = await served.store.deleteCorrupt(info.namespace, info.name, opts);
  if (result.object === undefined) {
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: info.name, kind: served.type.kind } };
    await writeAnswer(scope, 200, status);
  } else if (!result.deleted) await writeAnswer(scope, 200, result.object);
  else if (served.type.deleteReturnsObject) await writeAnswer(scope, 200, result.object);
  else await writeAnswer(scope, 200, served.store.deletedStatus(result.object));
}

/**
 * Always 200 with the list of the objects it set out to delete, as upstream: with a limit
 * one page of them and that page's continue token.
 */
export async function deleteCollectionHandler(scope: RequestScope): Promise<void> {
  const page = deleteCollectionListParams(scope.query, scope.watchList);
  const filter = filterFromQuery(scope.query, scope.served.type);
  const { ignoreStoreReadError: _ignored, ...opts } = await deleteOptions(scope, true);
  const list = await scope.served.store.deleteCollection(scope.info.namespace, { ...page, filter }, opts);
  const { items, kind = '', apiVersion = '', metadata } = list;
  await writeObject(scope.res, 200, scope.negotiated, shapeList(scope, { kind, apiVersion, metadata }, items));
}
