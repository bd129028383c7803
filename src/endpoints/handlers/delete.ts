import { badRequest } from '../../api/index.ts';
import { parseJson } from '../../encoding/decode.ts';
import type { DeleteOptions } from '../../registry/store.ts';
import { readBody, writeObject } from '../http.ts';
import { parseDryRun, parseInteger } from '../query.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

interface DeleteOptionsBody {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body (kubectl sends one) and the query. */
async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const body = await readBody(scope.req);
  let fromBody: DeleteOptionsBody = {};
  if (body.byteLength > 0) {
    const parsed = parseJson(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('DeleteOptions must be an object');
    fromBody = parsed as DeleteOptionsBody;
  }
  const query = new URLSearchParams(scope.query);
  for (const value of fromBody.dryRun ?? []) query.append('dryRun', value);
  const dryRun = parseDryRun(query, 'DeleteOptions');
  const propagationPolicy = scope.query.get('propagationPolicy') ?? fromBody.propagationPolicy;
  if (propagationPolicy !== undefined && !propagationPolicies.includes(propagationPolicy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  return {
    dryRun,
    preconditions: fromBody.preconditions,
    gracePeriodSeconds: parseInteger(scope.query, 'gracePeriodSeconds') ?? fromBody.gracePeriodSeconds,
    propagationPolicy,
  };
}

export async function deleteHandler(scope: RequestScope): Promise<void> {
  const { served, info } = scope;
  const opts = await deleteOptions(scope);
  const { object, deleted } = await served.store.delete(info.namespace, info.name, opts);
  // 202 when finalizers keep the object for now; the object, not a Status, is the answer then (upstream).
  if (!deleted) await writeObject(scope.res, 202, scope.negotiated, object);
  else if (served.type.deleteReturnsObject) await writeObject(scope.res, 200, scope.negotiated, object);
  else await writeObject(scope.res, 200, scope.negotiated, served.store.deletedStatus(object));
}

export async function deleteCollectionHandler(scope: RequestScope): Promise<void> {
  const opts = await deleteOptions(scope);
  const filter = filterFromQuery(scope.query, scope.served.type);
  const list = await scope.served.store.deleteCollection(scope.info.namespace, filter, opts);
  await writeObject(scope.res, 200, scope.negotiated, list);
}
