// The column model of server-side Tables: the columns every type shares, the default
// table of a type without its own (apiserver pkg/registry/rest/table.go), and the
// time formatting upstream's printers use (apimachinery pkg/util/duration).

import type { KubeObject, TableColumn, TableRowCondition } from '../api/index.ts';
import type { ResourceType } from './resource-type.ts';

/** metav1.ObjectMeta's documentation of `name`, which upstream uses for every Name column. */
const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** metav1.ObjectMeta's documentation of `creationTimestamp` (Age and Created At columns). */
export const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** Go's zero metav1.Time in RFC 3339, what upstream prints for an unset timestamp. */
const zeroTime = '0001-01-01T00:00:00Z';

/**
 * Upstream's duration.HumanDuration: about two significant figures ("45s", "5m3s",
 * "15m", "3h20m", "10h", "2d3h", "30d", "2y45d", "9y"). Up to a second in the future
 * counts as now (clock skew); further is "<invalid>".
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Milliseconds since the epoch of an RFC 3339 timestamp; undefined when unset or unreadable. */
export function timestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) || value.startsWith('0001-01-01') ? undefined : ms;
}

/** Upstream's translateTimestampSince: the age of a timestamp, "<unknown>" when unset. */
export function translateTimestampSince(value: unknown, now: number): string {
  const ms = timestampMs(value);
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}

/** The Name column, first in (nearly) every table. */
export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: nameDescription,
  cell: (obj) => obj.metadata.name ?? '',
};

/** The Age column of the built-in types' tables. */
export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description: creationTimestampDescription,
  cell: (obj, now) => translateTimestampSince(obj.metadata.creationTimestamp, now),
};

/** The timestamp itself, as the default table shows it (kubectl prints it as is). */
export const createdAtColumn: TableColumn = {
  name: 'Created At',
  type: 'date',
  description: creationTimestampDescription,
  cell: (obj) => {
    const ms = timestampMs(obj.metadata.creationTimestamp);
    return ms === undefined ? zeroTime : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  },
};

/** Upstream's default table convertor: what a type without columns of its own gets. */
export const defaultTableColumns: readonly TableColumn[] = Object.freeze([nameColumn, createdAtColumn]);

/** The columns a type's Tables have. */
export function tableColumnsOf(type: ResourceType): readonly TableColumn[] {
  return type.tableColumns ?? defaultTableColumns;
}

/** What the Table builder (encoding/table.ts) needs of a type: its columns and row conditions. */
export function tableSourceOf(type: ResourceType): { columns: readonly TableColumn[]; rowConditions?: (obj: KubeObject) => TableRowCondition[] | undefined; defaultConvertor: boolean } {
  const conditions = type.tableRowConditions;
  return {
    columns: tableColumnsOf(type), rowConditions: conditions === undefined ? undefined : (obj) => conditions.call(type, obj),
    defaultConvertor: type.tableColumns === undefined,
  };
}

/** A column of the common shape: a cell function, type "string" unless told. */
export function column(
  name: string,
  cell: TableColumn['cell'],
  opts: { type?: string; format?: string; description?: string; priority?: number } = {},
): TableColumn {
  return { name, type: opts.type ?? 'string', format: opts.format, description: opts.description, priority: opts.priority, cell };
}
