// Server-side Tables (meta.k8s.io/v1 and v1beta1 Table), what `kubectl get` prints.
// Field names and JSON shapes are those of k8s.io/apimachinery/pkg/apis/meta/v1.

import type { KubeObject, ListMeta, ObjectMeta } from './types.ts';

/** The Table API group and the versions a Table is served in. */
export const tableGroup = 'meta.k8s.io';
export const tableVersions = ['v1', 'v1beta1'] as const;
export type TableVersion = (typeof tableVersions)[number];

export interface TableColumnDefinition {
  name: string;
  /** An OpenAPI type: string, integer, number, boolean, or "date". */
  type: string;
  /** An OpenAPI format; "name" marks the column that names the object. */
  format: string;
  description: string;
  /** 0 for the default view; higher columns show only with `-o wide`. */
  priority: number;
}

/** Extra state of a row for a human reader; upstream marks finished pods `Completed`. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** A cell: a string, a number or a boolean (upstream's cells are JSON scalars). */
export type TableCell = string | number | boolean | null;

export interface TableRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
  /** The object per `includeObject`: a PartialObjectMetadata, the whole object, or null for None. */
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  /** Null when headers are left out (after a watch's first event). */
  columnDefinitions: TableColumnDefinition[] | null;
  /** Null for an empty list of a type upstream's default table convertor renders. */
  rows: TableRow[] | null;
}

/** What a row carries of its object: `includeObject` (upstream's metav1.IncludeObjectPolicy). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: ObjectMeta;
}

/**
 * One column of a type's Table and how to fill it: upstream's TableColumnDefinition plus
 * a cell function. Built-in types define theirs after upstream's printers; a CRD's
 * additionalPrinterColumns become columns of this shape too (a JSONPath cell each).
 * Optional fields default to upstream's zero values ("" and 0).
 */
export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  /** The cell of one object; `now` (milliseconds since the epoch) anchors ages. Never throws on odd data. */
  cell(obj: KubeObject, now: number): TableCell;
}
