// GET of one object.
import { writeAnswer } from '../answer.ts';
import { writeBody } from '../http.ts';
import { getConsistency } from '../read-options.ts';
import type { RequestScope } from './scope.ts';

export async function getHandler(scope: RequestScope): Promise<void> {
  const { object: obj, json } = await scope.served.store.getForAnswer(scope.info.namespace, scope.info.name, getConsistency(scope.query));
  const { table, metadata, serializer, pretty, contentType } = scope.negotiated;
  if (table === undefined && metadata === undefined && json !== undefined && serializer === 'json' && !pretty) {
    // The cache's bytes of the object, written as they are.
    await writeBody(scope.res, 200, contentType, json, {}, { gzip: scope.gzip });
    return;
  }
  await writeAnswer(scope, 200, obj, { gzip: scope.gzip });
}
