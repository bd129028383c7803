// DELETE of an object and of a collection, answered as upstream's delete handler.
import { badRequest, invalid, isStatusError, type Status, type StatusCause } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
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
 * The scheme upstream's delete handler decodes a body with (meta.k8s.io's internal one,
 * metainternalversionscheme), by the name runtime's errors give it (naming.GetNameFromCallsite).
 */
const metaSchemeName = 'k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27';

/**
 * The Go types of the kinds that scheme knows besides DeleteOptions, by group version:
 * metav1's unversioned kinds (any group version), its options and its views.
 */
const unversionedKinds: Readonly<Record<string, string>> = {
  CreateOptions: 'v1.CreateOptions', UpdateOptions: 'v1.UpdateOptions', Status: 'v1.Status',
  APIVersions: 'v1.APIVersions', APIGroupList: 'v1.APIGroupList', APIGroup: 'v1.APIGroup', APIResourceList: 'v1.APIResourceList',
};
const metaKinds: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'meta.k8s.io/v1': {
    ListOptions: 'v1.ListOptions', GetOptions: 'v1.GetOptions', PatchOptions: 'v1.PatchOptions', WatchEvent: 'v1.WatchEvent',
    Table: 'v1.Table', TableOptions: 'v1.TableOptions', PartialObjectMetadata: 'v1.PartialObjectMetadata', PartialObjectMetadataList: 'v1.PartialObjectMetadataList',
  },
  // v1beta1's views are v1's types, but for its list.
  'meta.k8s.io/v1beta1': {
    Table: 'v1.Table', TableOptions: 'v1.TableOptions', PartialObjectMetadata: 'v1.PartialObjectMetadata', PartialObjectMetadataList: 'v1beta1.PartialObjectMetadataList',
  },
  'meta.k8s.io/__internal': {
    ListOptions: 'internalversion.ListOptions', GetOptions: 'v1.GetOptions', WatchEvent: 'v1.InternalEvent',
    Table: 'v1.Table', TableOptions: 'v1.TableOptions', PartialObjectMetadata: 'v1.PartialObjectMetadata', PartialObjectMetadataList: 'v1beta1.PartialObjectMetadataList',
  },
};

/**
 * Why a DELETE body of another kind than DeleteOptions does not decode, in the words of
 * upstream's decoding into a DeleteOptions: what the body leaves out is meta.k8s.io/v1's
 * DeleteOptions (json.go's gvkWithDefaults from the handler's MetaGroupVersion); any group
 * version's DeleteOptions converts (the kind is unversioned); a kind the scheme knows decodes
 * and then has no conversion; any other is not registered. Undefined for a DeleteOptions.
 */
function deleteOptionsKindError(value: unknown, body: Uint8Array): string | undefined {
  if (!isObject(value)) return undefined;
  const apiVersion = typeof value.apiVersion === 'string' && value.apiVersion !== '/' ? value.apiVersion : '';
  const kind = typeof value.kind === 'string' && value.kind !== '' ? value.kind : 'DeleteOptions';
  const slash = apiVersion.indexOf('/');
  let group = slash < 0 ? '' : apiVersion.slice(0, slash);
  let version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (version === '' && (group === '' || group === 'meta.k8s.io')) [group, version] = ['meta.k8s.io', 'v1'];
  if (version === '') return `Object 'apiVersion' is missing in '${Buffer.from(body).toString('utf8')}'`;
  if (kind === 'DeleteOptions') return undefined;
  const groupVersion = group === '' ? version : `${group}/${version}`;
  const goType = Object.hasOwn(unversionedKinds, kind) ? unversionedKinds[kind]
    : Object.hasOwn(metaKinds, groupVersion) && Object.hasOwn(metaKinds[groupVersion]!, kind) ? metaKinds[groupVersion]![kind] : undefined;
  if (goType !== undefined) return `converting (${goType}) to (v1.DeleteOptions): unknown conversion`;
  if (version === '__internal') return `no kind ${goQuote(kind)} is registered for the internal version of group ${goQuote(group)} in scheme ${goQuote(metaSchemeName)}`;
  return `no kind ${goQuote(kind)} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(metaSchemeName)}`;
}

/**
 * A Protobuf body's envelope of a kind the codec has no message for is refused in the name of
 * the scheme built-in objects decode with; a DELETE body decodes with meta.k8s.io's.
 */
function inMetaScheme(err: unknown): unknown {
  if (!isStatusError(err) || !err.message.startsWith('no kind ')) return err;
  return badRequest(err.message.replace(/in scheme "[^"]*"$/, `in scheme ${goQuote(metaSchemeName)}`));
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
    // Errors as 400s in the decoder's words, as upstream's handler answers them since 1.35.
    const { value } = await decodeBodyLoading(scope.req.headers['content-type'], body, { cbor: scope.cbor, kind: 'DeleteOptions', unwrappedErrors: true })
      .catch((err: unknown) => { throw inMetaScheme(err); });
    const kindError = deleteOptionsKindError(value, body);
    if (kindError !== undefined) throw badRequest(kindError);
    fromBody = decodeDeleteOptions(value);
  }
  // The query counts only without a body, as upstream.
  const query = fromBody === undefined ? scope.query : new URLSearchParams();
  for (const value of fromBody?.dryRun ?? []) query.append('dryRun', value);
  const propagationPolicy = fromBody === undefined ? query.get('propagationPolicy') ?? undefined : fromBody.propagationPolicy;
  const orphanDependents = fromBody === undefined ? queryBool(query.get('orphanDependents')) : fromBody.orphanDependents;
  // Without the AllowUnsafeMalformedObjectDeletion gate the option is dropped before validation, as upstream.
  const ignoreStoreReadError = !scope.unsafeMalformedObjectDeletion ? undefined
    : fromBody === undefined ? queryBool(query.get('ignoreStoreReadErrorWithClusterBreakingPotential')) : fromBody.ignoreStoreReadErrorWithClusterBreakingPotential;
  const gracePeriodSeconds = fromBody === undefined ? parseInteger(query, 'gracePeriodSeconds') : fromBody.gracePeriodSeconds;
  // Without a body, `uid` and `resourceVersion` in the query are preconditions (upstream's
  // url.Values conversion), a collection's too: its `resourceVersion` is then also its list's.
  const preconditions = fromBody === undefined ? queryPreconditions(query) : fromBody.preconditions;
  // Upstream's ValidateDeleteOptions, its causes in its order; the policy quoted as Go's %#v does.
  const causes: StatusCause[] = [];
  if (orphanDependents !== undefined && propagationPolicy !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid', field: 'propagationPolicy',
      message: `Invalid value: ${goQuote(propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (propagationPolicy !== undefined && !propagationPolicies.includes(propagationPolicy)) {
    causes.push({
      reason: 'FieldValueNotSupported', field: 'propagationPolicy',
      message: `Unsupported value: ${goQuote(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
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
  // The unsafe deletion is of one object only (upstream's DeleteCollection handler, with the gate on).
  if (collection && ignoreStoreReadError === true) {
    throw invalid('DeleteOptions', '', [{
      reason: 'FieldValueInvalid', field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
      message: 'Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
    }], 'meta.k8s.io');
  }
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
  if (ignoreStoreReadError === true) {
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
