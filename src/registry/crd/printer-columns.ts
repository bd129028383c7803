// A CRD's additionalPrinterColumns as Table columns, after apiextensions-apiserver's
// pkg/registry/customresource/tableconvertor: Name first, then each column's JSONPath
// value, typed by the column; a version without columns gets Age (upstream's
// serveDefaultColumnsIfEmpty, applied when serving, not stored in the CRD).

import type { TableCell, TableColumn } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import { creationTimestampDescription, humanDuration, nameColumn } from '../table-columns.ts';
import { compileJsonPath } from './jsonpath.ts';
import type { CustomResourceColumnDefinition } from './types.ts';

/** The column a version without printer columns shows. */
const defaultPrinterColumns: CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: creationTimestampDescription, jsonPath: '.metadata.creationTimestamp' },
];

/** Go's %v of a float64 (strconv 'g', shortest, %e beyond 21 digits or below 1e-4). */
function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mantissa, exponent] = n.toExponential().split('e');
    const sign = exponent!.startsWith('-') ? '-' : '+';
    const digits = exponent!.replace(/^[-+]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}

/** JSON with object keys sorted, as Go's json.Marshal writes maps. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What jsonpath's PrintResults writes for one value: JSON for maps and lists, %v otherwise. */
function printed(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'object') return sortedJson(value);
  if (typeof value === 'number') return goFloat(value);
  return String(value);
}

/** Upstream's cellForJSONValue: the cell of a non-string column, or null when the value does not fit. */
function typedCell(type: string, value: unknown, now: number): TableCell {
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const ms = Date.parse(value);
      return Number.isNaN(ms) ? '<invalid>' : humanDuration(now - ms);
    }
    default:
      return null;
  }
}

function printerColumn(col: CustomResourceColumnDefinition): TableColumn {
  const jsonPath = col.jsonPath ?? '';
  const type = col.type ?? 'string';
  let find: (obj: unknown) => unknown[];
  try {
    find = compileJsonPath(jsonPath);
  } catch {
    find = () => [];
  }
  return {
    name: col.name ?? '',
    type,
    format: col.format ?? '',
    description: col.description !== undefined && col.description !== '' ? col.description : `Custom resource definition column (in JSONPath format): ${jsonPath}`,
    priority: col.priority ?? 0,
    cell(obj, now) {
      const results = find(obj);
      // Only simple paths are expected: the first result is the value.
      if (results.length === 0) return null;
      const value = results[0];
      if (type === 'string') return value === undefined ? null : printed(value);
      return value === null || value === undefined ? null : typedCell(type, value, now);
    },
  };
}

/** The Table columns of a version: Name, then its printer columns or the default Age. */
export function printerColumnsOf(columns: CustomResourceColumnDefinition[] | undefined): TableColumn[] {
  const declared = Array.isArray(columns) && columns.length > 0 ? columns : defaultPrinterColumns;
  return [nameColumn, ...declared.map(printerColumn)];
}
