import { writeObject } from '../http.ts';
import { parseInteger } from '../query.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

export async function listHandler(scope: RequestScope): Promise<void> {
  const { query, served } = scope;
  const filter = filterFromQuery(query, served.type);
  const list = await served.store.list(scope.info.namespace, {
    filter,
    limit: parseInteger(query, 'limit'),
    continue: query.get('continue') ?? undefined,
  });
  writeObject(scope.res, 200, scope.negotiated, list);
}
