import { writeObject } from '../http.ts';
import { getConsistency } from '../read-options.ts';
import { tableAnswer } from '../table-answer.ts';
import type { RequestScope } from './scope.ts';

export async function getHandler(scope: RequestScope): Promise<void> {
  const obj = await scope.served.store.get(scope.info.namespace, scope.info.name, getConsistency(scope.query));
  const { table } = scope.negotiated;
  const answer = table === undefined ? obj : tableAnswer(scope, table, [obj], { resourceVersion: obj.metadata.resourceVersion });
  await writeObject(scope.res, 200, scope.negotiated, answer, {}, { gzip: scope.gzip });
}
