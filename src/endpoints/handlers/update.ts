import { readBody, writeObject } from '../http.ts';
import { decodeObjectBody } from '../object-body.ts';
import { parseDryRun, parseFieldValidation } from '../query.ts';
import type { RequestScope } from './scope.ts';

export async function updateHandler(scope: RequestScope): Promise<void> {
  const dryRun = parseDryRun(scope.query, 'UpdateOptions');
  parseFieldValidation(scope.query, 'UpdateOptions');
  const obj = decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req));
  const { object, created } = await scope.served.store.update(scope.info.namespace, scope.info.name, obj, { dryRun });
  await writeObject(scope.res, created ? 201 : 200, scope.negotiated, object);
}
