// GET of a collection: lists, chunked and at a resourceVersion.
import { encodeListJson } from '../../registry/read-path.ts';
import { writeBody, writeObject } from '../http.ts';
import { listParams } from '../read-options.ts';
import { filterFromQuery } from '../selectors.ts';
import { tableAnswer } from '../table-answer.ts';
import type { RequestScope } from './scope.ts';

export async function listHandler(scope: RequestScope): Promise<void> {
  const { query, served, negotiated } = scope;
  const params = listParams(query);
  const list = await served.store.list(scope.info.namespace, { ...params, filter: filterFromQuery(query, served.type) });
  if (negotiated.table !== undefined) {
    const table = tableAnswer(scope, negotiated.table, list.items.map((item) => item.object), list.metadata);
    await writeObject(scope.res, 200, negotiated, table, {}, { gzip: scope.gzip });
    return;
  }
  if (negotiated.serializer === 'json') {
    // Assembled from each object's cached JSON: the objects are not encoded again.
    await writeBody(scope.res, 200, negotiated.contentType, encodeListJson(list), {}, { gzip: scope.gzip });
    return;
  }
  const { items, ...rest } = list;
  await writeObject(scope.res, 200, negotiated, { ...rest, items: items.map((item) => item.object) }, {}, { gzip: scope.gzip });
}
