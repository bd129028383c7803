import { writeObject } from '../http.ts';
import { getConsistency } from '../read-options.ts';
import type { RequestScope } from './scope.ts';

export async function getHandler(scope: RequestScope): Promise<void> {
  const obj = await scope.served.store.get(scope.info.namespace, scope.info.name, getConsistency(scope.query));
  await writeObject(scope.res, 200, scope.negotiated, obj, {}, { gzip: scope.gzip });
}
