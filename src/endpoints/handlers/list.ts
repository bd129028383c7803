// GET of a collection: lists, chunked and at a resourceVersion.
import { listJsonParts } from '../../registry/read-path.ts';
import { shapeList } from '../answer.ts';
import { writeBody, writeObject, writeParts } from '../http.ts';
import { loadCborObjectCodec } from '../../encoding/cbor-loader.ts';
import { loadProtobufCodec } from '../../encoding/protobuf-loader.ts';
import { cborListOf } from '../cbor-answers.ts';
import { protobufListOf } from '../protobuf-answers.ts';
import { listParams, listsFromStorageUpstream } from '../read-options.ts';
import { filterFromQuery } from '../selectors.ts';
import type { RequestScope } from './scope.ts';

export async function listHandler(scope: RequestScope): Promise<void> {
  const { query, served, negotiated } = scope;
  const params = listParams(query, { fromStorage: listsFromStorageUpstream(served.type) });
  const list = await served.store.list(scope.info.namespace, { ...params, filter: filterFromQuery(query, served.type) });
  const { items, ...rest } = list;
  if (negotiated.table === undefined && negotiated.metadata === undefined) {
    // Assembled from each object's cached encoding: the objects are not encoded again.
    if (negotiated.serializer === 'json' && !negotiated.pretty) {
      await writeParts(scope.res, 200, negotiated.contentType, listJsonParts(list), { gzip: scope.gzip });
      return;
    }
    if (negotiated.serializer === 'protobuf') {
      await writeBody(scope.res, 200, negotiated.contentType, protobufListOf(await loadProtobufCodec(), rest, items), {}, { gzip: scope.gzip });
      return;
    }
    if (negotiated.serializer === 'cbor') {
      await writeBody(scope.res, 200, negotiated.contentType, cborListOf(await loadCborObjectCodec(), rest, items), {}, { gzip: scope.gzip });
      return;
    }
  }
  await writeObject(scope.res, 200, negotiated, shapeList(scope, rest, items.map((item) => item.object)), {}, { gzip: scope.gzip });
}
