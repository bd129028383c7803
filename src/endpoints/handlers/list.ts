// GET of a collection: lists, chunked and at a resourceVersion.
import { encodeListJson } from '../../registry/read-path.ts';
import { shapeList } from '../answer.ts';
import { writeBody, writeObject } from '../http.ts';
import { listParams } from '../read-options.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

export async function listHandler(scope: RequestScope): Promise<void> {
  const { query, served, negotiated } = scope;
  const params = listParams(query);
  const list = await served.store.list(scope.info.namespace, { ...params, filter: filterFromQuery(query, served.type) });
  if (negotiated.table === undefined && negotiated.metadata === undefined && negotiated.serializer === 'json' && !negotiated.pretty) {
    // Assembled from each object's cached JSON: the objects are not encoded again.
    await writeBody(scope.res, 200, negotiated.contentType, encodeListJson(list), {}, { gzip: scope.gzip });
    return;
  }
  const { items, ...rest } = list;
  await writeObject(scope.res, 200, negotiated, shapeList(scope, rest, items.map((item) => item.object)), {}, { gzip: scope.gzip });
}
