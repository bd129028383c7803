// A CRD's additionalPrinterColumns as Table columns, after apiextensions-apiserver's
// pkg/registry/customresource/tableconvertor: Name first, then each column's JSONPath
// value, typed by the column; a version without columns gets Age (upstream's
// serveDefaultColumnsIfEmpty, applied when serving, not stored in the CRD).

import type { TableCell, TableColumn } from '../../api/index.ts';
import { goEscaped } from '../../api/field-errors.ts';
import { canonicalGoTime } from '../../api/go-time.ts';
import { isObject } from '../../api/json.ts';
import { creationTimestampDescription, humanDuration, nameColumn } from '../table-columns.ts';
import { compileJsonPath } from './jsonpath.ts';
import type { CustomResourceColumnDefinition } from './types.ts';

/** The column a version without printer columns shows. */
const defaultPrinterColumns: CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: creationTimestampDescription, jsonPath: '.metadata.creationTimestamp' },
];

/** 2^63: int64's bounds as doubles; an integral JSON number within them decodes to an int64. */
const maxInt64Double = 2 ** 63;

/**
 * fmt.Fprint of a decoded JSON number: an int64 in decimal; a float64 as %v (strconv 'g',
 * shortest, in exponent form below 1e-4 and from 1e6: 1234567.5 is "1.2345675e+06").
 */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) <= maxInt64Double) return String(n);
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** JSON with object keys sorted and Go's escapes, as Go's json.Marshal writes maps. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${goEscaped(JSON.stringify(k))}:${sortedJson(value[k])}`).join(',')}}`;
  }
  return goEscaped(JSON.stringify(value ?? null));
}

/**
 * What jsonpath's PrintResults writes for one value: JSON for maps and lists, else the
 * value as fmt.Fprint prints it; a null is no value to its template printer ("<no value>").
 */
function printed(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return sortedJson(value);
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

/**
 * A date cell: the string read as metav1.Time reads a query parameter (RFC 3339, Go's
 * parser; empty or "null" is the zero time), then its age, "<unknown>" for the zero time.
 */
function dateCell(text: string, now: number): string {
  if (text === '' || text === 'null') return '<unknown>';
  const parsed = canonicalGoTime(text);
  if (parsed.error !== undefined) return '<invalid>';
  return parsed.value === null ? '<unknown>' : humanDuration(now - Date.parse(parsed.value));
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
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
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
