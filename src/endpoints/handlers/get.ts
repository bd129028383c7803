// GET of one object.
import { writeAnswer } from '../answer.ts';
import { writeBody } from '../http.ts';
import { loadCborObjectCodec } from '../../encoding/cbor-loader.ts';
import { loadProtobufCodec } from '../../encoding/protobuf-loader.ts';
import { cborObject } from '../cbor-answers.ts';
import { protobufObject } from '../protobuf-answers.ts';
import { getConsistency } from '../read-options.ts';
import type { RequestScope } from './scope.ts';

export async function getHandler(scope: RequestScope): Promise<void> {
  const item = await scope.served.store.getForAnswer(scope.info.namespace, scope.info.name, getConsistency(scope.query));
  // item.object only where it is needed: a cached object may have to be decoded for it.
  const { json } = item;
  const { table, metadata, serializer, pretty, contentType } = scope.negotiated;
  if (table === undefined && metadata === undefined) {
    // The cache's bytes of the object, written as they are.
    if (json !== undefined && serializer === 'json' && !pretty) {
      await writeBody(scope.res, 200, contentType, json, {}, { gzip: scope.gzip });
      return;
    }
    if (serializer === 'protobuf') {
      await writeBody(scope.res, 200, contentType, protobufObject(await loadProtobufCodec(), item), {}, { gzip: scope.gzip });
      return;
    }
    if (serializer === 'cbor') {
      await writeBody(scope.res, 200, contentType, cborObject(await loadCborObjectCodec(), item), {}, { gzip: scope.gzip });
      return;
    }
  }
  await writeAnswer(scope, 200, item.object, { gzip: scope.gzip });
}
