import { badRequest, invalid } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import { parseJson } from '../../encoding/decode.ts';
import type { DeleteOptions } from '../../registry/store.ts';
import { readBody, writeObject } from '../http.ts';
import { parseDryRun, parseInteger } from '../query.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

interface DeleteOptionsBody {
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

/** Go's strconv.ParseBool, which decodes a query parameter upstream. */
const queryBooleans: Record<string, boolean> = {
  1: true, t: true, T: true, true: true, TRUE: true, True: true,
  0: false, f: false, F: false, false: false, FALSE: false, False: false,
};

/** The deprecated orphanDependents, from the body or the query; undefined when not given. */
function orphanDependentsOf(scope: RequestScope, fromBody: DeleteOptionsBody): boolean | undefined {
  if (fromBody.orphanDependents !== undefined && fromBody.orphanDependents !== null) {
    if (typeof fromBody.orphanDependents !== 'boolean') throw badRequest('orphanDependents must be a boolean');
    return fromBody.orphanDependents;
  }
  const raw = scope.query.get('orphanDependents');
  if (raw === null) return undefined;
  const value = queryBooleans[raw];
  if (value === undefined) throw badRequest(`strconv.ParseBool: parsing "${raw}": invalid syntax`);
  return value;
}

/** DeleteOptions from the body (kubectl sends one) and the query, and the deprecated orphanDependents. */
async function deleteOptions(scope: RequestScope): Promise<DeleteOptions & { orphanDependents?: boolean }> {
  const body = await readBody(scope.req);
  let fromBody: DeleteOptionsBody = {};
  if (body.byteLength > 0) {
    const parsed = parseJson(body.toString('utf8'));
    if (!isObject(parsed)) throw badRequest('DeleteOptions must be an object');
    fromBody = parsed as DeleteOptionsBody;
  }
  const query = new URLSearchParams(scope.query);
  for (const value of fromBody.dryRun ?? []) query.append('dryRun', value);
  const dryRun = parseDryRun(query, 'DeleteOptions');
  const propagationPolicy = scope.query.get('propagationPolicy') ?? fromBody.propagationPolicy;
  if (propagationPolicy !== undefined && !propagationPolicies.includes(propagationPolicy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const orphanDependents = orphanDependentsOf(scope, fromBody);
  if (orphanDependents !== undefined && propagationPolicy !== undefined) {
    throw invalid('DeleteOptions', '', [{
      reason: 'FieldValueInvalid', field: 'propagationPolicy',
      message: `Invalid value: "${propagationPolicy}": orphanDependents and deletionPropagation cannot be both set`,
    }], 'meta.k8s.io');
  }
  return {
    orphanDependents,
    dryRun,
    preconditions: fromBody.preconditions,
    gracePeriodSeconds: parseInteger(scope.query, 'gracePeriodSeconds') ?? fromBody.gracePeriodSeconds,
    propagationPolicy,
  };
}

/**
 * Upstream's delete handler: an object that stays (finalizers, a terminating namespace, a
 * CRD awaiting its cleanup) is answered with 200 and the object, and with 202 only when the
 * client set orphanDependents to false; one that is gone with the object for the types
 * whose registry returns it (ReturnDeletedObject), else a Success Status.
 */
export async function deleteHandler(scope: RequestScope): Promise<void> {
  const { served, info } = scope;
  const { orphanDependents, ...opts } = await deleteOptions(scope);
  const { object, deleted } = await served.store.delete(info.namespace, info.name, opts);
  if (!deleted) await writeObject(scope.res, orphanDependents === false ? 202 : 200, scope.negotiated, object);
  else if (served.type.deleteReturnsObject) await writeObject(scope.res, 200, scope.negotiated, object);
  else await writeObject(scope.res, 200, scope.negotiated, served.store.deletedStatus(object));
}

/** Always 200 with the list of the objects it set out to delete, as upstream. */
export async function deleteCollectionHandler(scope: RequestScope): Promise<void> {
  const { orphanDependents: _, ...opts } = await deleteOptions(scope);
  const filter = filterFromQuery(scope.query, scope.served.type);
  const list = await scope.served.store.deleteCollection(scope.info.namespace, filter, opts);
  await writeObject(scope.res, 200, scope.negotiated, list);
}
