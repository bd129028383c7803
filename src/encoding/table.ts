// Server-side Tables: which Accept entries ask for one, the Table options of a request,
// and building a Table from objects and columns. Pure: the columns' cell functions and
// the clock are passed in. Upstream: apiserver pkg/endpoints/handlers/response.go
// (asTable, optionsForTransform) and pkg/endpoints/handlers/rest.go (AllowsMediaTypeTransform).

import {
  badRequest, tableGroup, tableVersions,
  type IncludeObject, type KubeObject, type ListMeta, type Table, type TableColumn,
  type TableColumnDefinition, type TableRow, type TableRowCondition, type TableVersion,
} from '../api/index.ts';
import type { MediaType } from './media-type.ts';
import { partialObjectMetadata } from './partial-metadata.ts';

/** The Table an answer is: `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as the Accept entry asked. */
export interface TableTarget {
  apiVersion: string;
}

/**
 * The Table an Accept entry asks for: `as=Table;g=meta.k8s.io;v=v1` (or `v1beta1`).
 * Any other group or version is not one upstream serves, and the entry is passed over.
 * The caller checks the media type (JSON or YAML, as upstream).
 */
export function tableTargetOf(m: MediaType): TableTarget | undefined {
  const { as, g, v } = m.params;
  if (as !== 'Table' || g !== tableGroup || !tableVersions.includes(v as TableVersion)) return undefined;
  return { apiVersion: `${tableGroup}/${v}` };
}

export interface TableOptions {
  includeObject: IncludeObject;
}

const includeObjectValues = ['', 'Metadata', 'None', 'Object'];

/** `includeObject` from the query (default Metadata), 400 for another value as upstream's ValidateTableOptions. */
export function tableOptionsFromQuery(query: URLSearchParams): TableOptions {
  const value = query.get('includeObject') ?? '';
  if (!includeObjectValues.includes(value)) {
    const supported = includeObjectValues.map((s) => JSON.stringify(s)).join(', ');
    throw badRequest(`Unable to convert to Table as requested: includeObject: Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`);
  }
  return { includeObject: value === '' ? 'Metadata' : (value as IncludeObject) };
}

/** A type's table: its columns and, optionally, conditions of each row. */
export interface TableSource {
  columns: readonly TableColumn[];
  rowConditions?: (obj: KubeObject) => TableRowCondition[] | undefined;
  /**
   * The type has no columns of its own: upstream's default table convertor makes its Table,
   * appending rows to a nil slice, so an empty list's rows are null (a printer's are []).
   */
  defaultConvertor?: boolean;
}

export interface BuildTableOptions {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`; PartialObjectMetadata rows use the same. */
  apiVersion: string;
  includeObject: IncludeObject;
  /** The list's metadata, or `{resourceVersion}` of the one object. */
  metadata: ListMeta;
  /** Leave out the column definitions (null), as upstream does after a watch's first event. */
  noHeaders?: boolean;
  /** Milliseconds since the epoch; ages are relative to it. */
  now: number;
}

export function columnDefinitions(columns: readonly TableColumn[]): TableColumnDefinition[] {
  return columns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description ?? '',
    priority: c.priority ?? 0,
  }));
}


function rowObject(obj: KubeObject, opts: BuildTableOptions): unknown {
  switch (opts.includeObject) {
    case 'None':
      // Upstream's empty RawExtension encodes as null.
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      return partialObjectMetadata(obj, opts.apiVersion);
  }
}

function tableRow(source: TableSource, obj: KubeObject, opts: BuildTableOptions): TableRow {
  const row: TableRow = { cells: source.columns.map((c) => c.cell(obj, opts.now)) };
  const conditions = source.rowConditions?.(obj);
  if (conditions !== undefined && conditions.length > 0) row.conditions = conditions;
  row.object = rowObject(obj, opts);
  return row;
}

/** A Table of the objects (one for a get or a watch event, the page of a list). */
export function buildTable(source: TableSource, objects: readonly KubeObject[], opts: BuildTableOptions): Table {
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: opts.metadata,
    columnDefinitions: opts.noHeaders ? null : columnDefinitions(source.columns),
    rows: objects.length === 0 && source.defaultConvertor === true ? null : objects.map((obj) => tableRow(source, obj, opts)),
  };
}
