// An answer in the shape the client negotiated: the object or list itself, its Table, or
// its metadata-only view; a Status always as itself (upstream's transformResponseObject).
import type { KubeObject, ListMeta, Status } from '../api/index.ts';
import { listAsMetadata, objectAsMetadata } from '../encoding/partial-metadata.ts';
import { buildTable, tableOptionsFromQuery, type TableSource } from '../encoding/table.ts';
import { CustomResourceStore } from '../registry/crd/custom-resource-store.ts';
import { tableSourceOf } from '../registry/table-columns.ts';
import type { RequestScope } from './handlers/scope.ts';
import { writeBody, writeObject } from './http.ts';
import { storedJsonWithResourceVersion, writtenJson } from '../registry/codec.ts';

function isStatus(obj: KubeObject | Status): obj is Status {
  return obj.kind === 'Status' && obj.apiVersion === 'v1';
}

/** Whether the scope's objects are custom resources (Go's Unstructured, in upstream's messages). */
export function isCustomResource(scope: RequestScope): boolean {
  return scope.served.store instanceof CustomResourceStore;
}

/**
 * A Table of objects for the scope's negotiated Table target, with the rows' objects per
 * `includeObject`; `source` gives the columns (the resource's own by default).
 */
function tableOf(scope: RequestScope, objects: readonly KubeObject[], metadata: ListMeta, source: TableSource): unknown {
  const target = scope.negotiated.table!;
  const { includeObject } = tableOptionsFromQuery(scope.query);
  return buildTable(source, objects, { apiVersion: target.apiVersion, includeObject, metadata, now: Date.now() });
}

/** One object (or a Status) in the negotiated shape. */
export function shapeObject(scope: RequestScope, obj: KubeObject | Status, source?: TableSource): unknown {
  if (isStatus(obj)) return obj;
  const { table, metadata } = scope.negotiated;
  if (table !== undefined) return tableOf(scope, [obj], { resourceVersion: obj.metadata.resourceVersion }, source ?? tableSourceOf(scope.served.type));
  if (metadata !== undefined) return objectAsMetadata(obj, metadata, isCustomResource(scope));
  return obj;
}

/** A list in the negotiated shape: `list` carries kind, apiVersion and metadata; `items` the objects. */
export function shapeList(scope: RequestScope, list: { kind: string; apiVersion: string; metadata: ListMeta }, items: readonly KubeObject[]): unknown {
  const { table, metadata } = scope.negotiated;
  if (table !== undefined) return tableOf(scope, items, list.metadata, tableSourceOf(scope.served.type));
  if (metadata !== undefined) return listAsMetadata(list, items, metadata, isCustomResource(scope));
  return { ...list, items };
}

/**
 * A write's answer: the JSON of the bytes it stored when that is the negotiated form and
 * the write has them without its object decoded (an apply run on the worker thread, see
 * UpdateResult.stored), else writeAnswer with its object.
 */
export function writeStoredAnswer(scope: RequestScope, status: number, result: { object: KubeObject; stored?: { value: Uint8Array; revision: number } }): Promise<void> {
  const { serializer, pretty, table, metadata, contentType } = scope.negotiated;
  const stored = result.stored;
  if (stored !== undefined && serializer === 'json' && !pretty && table === undefined && metadata === undefined) {
    const json = storedJsonWithResourceVersion({ key: '', value: stored.value, createRevision: 0, modRevision: stored.revision });
    if (json !== undefined) return writeBody(scope.res, status, contentType, json, {}, { gzip: false });
  }
  return writeAnswer(scope, status, result.object);
}

/** Writes one object (a write's or a get's answer) in the negotiated serializer and shape. */
export function writeAnswer(scope: RequestScope, status: number, obj: KubeObject | Status, opts: { source?: TableSource; gzip?: boolean } = {}): Promise<void> {
  const { serializer, pretty, table, metadata, contentType } = scope.negotiated;
  // A write's object as plain JSON: the bytes it was stored as, with its resourceVersion.
  const stored = serializer === 'json' && !pretty && table === undefined && metadata === undefined ? writtenJson(obj as KubeObject) : undefined;
  if (stored !== undefined) return writeBody(scope.res, status, contentType, stored, {}, { gzip: opts.gzip ?? false });
  return writeObject(scope.res, status, scope.negotiated, shapeObject(scope, obj, opts.source), {}, { gzip: opts.gzip ?? false });
}
