// Answers a get or list as a meta.k8s.io Table when the client asked for one.
import type { KubeObject, ListMeta, Table } from '../api/index.ts';
import { buildTable, tableOptionsFromQuery, type TableTarget } from '../encoding/table.ts';
import { tableSourceOf } from '../registry/table-columns.ts';
import type { RequestScope } from './handlers/scope.ts';

/**
 * The Table answering a get or a list that asked for one (`Accept: ...;as=Table`),
 * with the rows' objects per `includeObject`, as upstream's transformResponseObject.
 */
export function tableAnswer(scope: RequestScope, target: TableTarget, objects: readonly KubeObject[], metadata: ListMeta): Table {
  const { includeObject } = tableOptionsFromQuery(scope.query);
  return buildTable(tableSourceOf(scope.served.type), objects, { apiVersion: target.apiVersion, includeObject, metadata, now: Date.now() });
}
