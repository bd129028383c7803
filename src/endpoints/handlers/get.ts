// GET of one object.
import { writeBody, writeObject } from '../http.ts';
import { getConsistency } from '../read-options.ts';
import { tableAnswer } from '../table-answer.ts';
import type { RequestScope } from './scope.ts';

export async function getHandler(scope: RequestScope): Promise<void> {
  const { object: obj, json } = await scope.served.store.getForAnswer(scope.info.namespace, scope.info.name, getConsistency(scope.query));
  const { table } = scope.negotiated;
  if (table === undefined && json !== undefined && scope.negotiated.serializer === 'json') {
    // The cache's bytes of the object, written as they are.
    await writeBody(scope.res, 200, scope.negotiated.contentType, json, {}, { gzip: scope.gzip });
    return;
  }
  const answer = table === undefined ? obj : tableAnswer(scope, table, [obj], { resourceVersion: obj.metadata.resourceVersion });
  await writeObject(scope.res, 200, scope.negotiated, answer, {}, { gzip: scope.gzip });
}
