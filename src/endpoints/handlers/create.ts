// POST of an object to a collection.
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody } from '../object-body.ts';
import { fieldManagerOf, writeOptions } from '../query.ts';
import type { RequestScope } from './scope.ts';

export async function createHandler(scope: RequestScope): Promise<void> {
  const { dryRun, directive } = writeOptions(scope.query, 'CreateOptions');
  const { object, duplicateFields, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat } = await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { findDuplicates: directive !== 'Ignore', cbor: scope.cbor, kind: scope.served.type.kind, version: scope.served.type.version, customResource: scope.served.type.customResource === true });
  const created = await scope.served.store.create(scope.info.namespace, object, { dryRun, fieldValidation: { directive, duplicateFields }, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat, fieldManager: fieldManagerOf(scope.query, scope.req.headers['user-agent'], 'CreateOptions') });
  await writeAnswer(scope, 201, created);
}
