// PUT of an object.
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody } from '../object-body.ts';
import { fieldManagerOf, writeOptions } from '../query.ts';
import type { RequestScope } from './scope.ts';

export async function updateHandler(scope: RequestScope): Promise<void> {
  const { dryRun, directive } = writeOptions(scope.query, 'UpdateOptions');
  const { object: obj, duplicateFields, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat } = await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { findDuplicates: directive !== 'Ignore', cbor: scope.cbor, kind: scope.served.type.kind, version: scope.served.type.version, customResource: scope.served.type.customResource === true });
  const { object, created } = await scope.served.store.update(scope.info.namespace, scope.info.name, obj, { dryRun, fieldValidation: { directive, duplicateFields }, cborTypeAt, numberOverflow, floatNumbers, cborIntegralFloat, fieldManager: fieldManagerOf(scope.query, scope.req.headers['user-agent'], 'UpdateOptions'), authorizeCreate: scope.authorizeCreate });
  await writeAnswer(scope, created ? 201 : 200, object);
}
