// metadata.managedFields on the wire and in memory, as upstream's
// k8s.io/apimachinery/pkg/util/managedfields/internal (managedfields.go, capmanagers.go,
// fieldmanager.go): entries keyed by manager identifier, sorted for output, capped at ten
// Update entries.

import { isObject } from '../api/json.ts';
import type { ManagedFieldsEntry } from '../api/types.ts';
import type { FieldSet } from './field-set.ts';
import { decodeFieldsV1, encodeFieldsV1 } from './fields-v1.ts';
import { compareStrings, goString } from './field-path.ts';
import type { VersionedSet } from './updater.ts';

type Operation = 'Apply' | 'Update';

/** Managers with their sets and the time of their last change, as read from an object. */
export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
  /** Entries as read and the sets they decoded to, by identifier: an unchanged entry is written back as it came. */
  original: Map<string, { entry: ManagedFieldsEntry; set: FieldSet }>;
}

export interface ManagerInfo {
  manager: string;
  operation: Operation;
  /** Part of an Update manager's identity; an applier keeps its identity across versions. */
  apiVersion?: string;
  subresource?: string;
}

/**
 * The identifier of a manager (upstream BuildManagerIdentifier): the JSON of its entry's
 * manager, operation, subresource and, for Update only, apiVersion.
 */
export function managerIdentifier(info: ManagerInfo): string {
  let out = '{';
  const add = (name: string, value: string | undefined): void => {
    if (value === undefined || value === '') return;
    if (out.length > 1) out += ',';
    out += `"${name}":${goString(value)}`;
  };
  add('manager', info.manager);
  add('operation', info.operation);
  if (info.operation === 'Update') add('apiVersion', info.apiVersion);
  add('subresource', info.subresource);
  return out + '}';
}

/**
 * Identifiers read before: every write that records managed fields reads its entries'
 * identifiers back, and they are few (a handful of managers) but for a client that names a
 * new manager on every write, hence the bound.
 */
const parsedIdentifiers = new Map<string, Readonly<ManagerInfo>>();
const parsedIdentifiersAtMost = 1_000;

export function parseIdentifier(id: string): Readonly<ManagerInfo> {
  let info = parsedIdentifiers.get(id);
  if (info === undefined) {
    info = Object.freeze(readIdentifier(id));
    if (parsedIdentifiers.size >= parsedIdentifiersAtMost) parsedIdentifiers.clear();
    parsedIdentifiers.set(id, info);
  }
  return info;
}

function readIdentifier(id: string): ManagerInfo {
  try {
    const parsed = JSON.parse(id) as Partial<ManagerInfo>;
    const info: ManagerInfo = { manager: parsed.manager ?? '', operation: parsed.operation === 'Apply' ? 'Apply' : 'Update' };
    if (parsed.apiVersion !== undefined) info.apiVersion = parsed.apiVersion;
    if (parsed.subresource !== undefined) info.subresource = parsed.subresource;
    return info;
  } catch {
    return { manager: id, operation: 'Update' };
  }
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map(), original: new Map() };
}

/**
 * Upstream resets managed fields when a write sets them to `[{}]` (one entry with no
 * field set) or to an empty list. Plinth deliberately resets only on `[{}]`: a client that
 * does not know the field and sends `managedFields: []` (or drops them) must not erase
 * everyone's ownership. The README notes this difference from kube-apiserver.
 */
export function isResetManagedFields(managedFields: unknown): boolean {
  if (!Array.isArray(managedFields) || managedFields.length !== 1) return false;
  const entry: unknown = managedFields[0];
  if (!isObject(entry)) return false;
  for (const value of Object.values(entry as Record<string, unknown>)) {
    if (value !== undefined && value !== null && value !== '') return false;
  }
  return true;
}

/**
 * Reads managedFields (upstream DecodeManagedFields); throws on an entry upstream refuses.
 * Field sets decode lazily (see FieldSet.fromFieldsV1), a malformed one throwing when
 * used, unless `validate` reads them all now (for entries a client sent).
 */
export function decodeManagedFields(entries: unknown, opts: { validate?: boolean } = {}): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (!isObject(raw)) throw new Error(`managed fields entry ${i} must be an object`);
    const entry = raw as ManagedFieldsEntry;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (typeof entry.apiVersion !== 'string' || entry.apiVersion === '') throw new Error('apiVersion must not be empty');
    if (entry.fieldsType === undefined || (entry.fieldsType as unknown) === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`);
    const info: ManagerInfo = { manager: entry.manager ?? '', operation: entry.operation, apiVersion: entry.apiVersion };
    if (entry.subresource !== undefined) info.subresource = entry.subresource;
    const id = managerIdentifier(info);
    let set: FieldSet;
    try {
      set = decodeFieldsV1(entry.fieldsV1, opts);
    } catch (err) {
      throw new Error(`error decoding versioned set from entry ${i}: ${(err as Error).message}`);
    }
    managed.fields.set(id, { set, apiVersion: entry.apiVersion, applied: entry.operation === 'Apply' });
    managed.times.set(id, typeof entry.time === 'string' ? entry.time : undefined);
    managed.original.set(id, { entry, set });
  });
  return managed;
}

/** Why upstream's ValidateManagedFields refuses `entries` (the first entry that does not decode), or undefined. */
export function managedFieldsProblem(entries: unknown): string | undefined {
  try {
    decodeManagedFields(entries, { validate: true });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Writes managedFields (upstream encodeManagedFields): undefined when nobody owns anything. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const time = managed.times.get(id);
    const original = managed.original.get(id);
    if (
      original !== undefined && original.set === vs.set && original.entry.apiVersion === vs.apiVersion &&
      original.entry.time === time && (original.entry.operation === 'Apply') === vs.applied
    ) {
      out.push(original.entry);
      continue;
    }
    const info = parseIdentifier(id);
    const entry: ManagedFieldsEntry = {};
    if (info.manager !== '') entry.manager = info.manager;
    entry.operation = vs.applied ? 'Apply' : info.operation;
    entry.apiVersion = vs.apiVersion;
    if (time !== undefined) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = encodeFieldsV1(vs.set);
    if (info.subresource !== undefined && info.subresource !== '') entry.subresource = info.subresource;
    out.push(entry);
  }
  return out.sort(compareEntries);
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Upstream's order: Apply before Update, then oldest first, then manager, apiVersion, subresource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  if (p.operation !== q.operation) return compareStrings(p.operation ?? '', q.operation ?? '');
  const ps = seconds(p.time);
  const qs = seconds(q.time);
  if (ps !== qs) return ps - qs;
  if (p.manager !== q.manager) return compareStrings(p.manager ?? '', q.manager ?? '');
  if (p.apiVersion !== q.apiVersion) return compareStrings(p.apiVersion ?? '', q.apiVersion ?? '');
  return compareStrings(p.subresource ?? '', q.subresource ?? '');
}

/** How many Update entries upstream keeps before merging the oldest into "ancient-changes". */
const maxUpdateManagers = 10;

/**
 * Merges the oldest Update entries into one "ancient-changes" entry per API version until
 * at most `maxUpdateManagers` Update entries remain (upstream capManagersManager).
 */
export function capUpdateManagers(managed: Managed, max = maxUpdateManagers): void {
  const updaters: string[] = [];
  for (const [id, vs] of managed.fields) if (!vs.applied) updaters.push(id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const d = seconds(managed.times.get(a)) - seconds(managed.times.get(b));
    return d !== 0 ? d : compareStrings(a, b);
  });
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const firstSet = managed.fields.get(first)!;
      managed.fields.delete(first);
      managed.times.delete(first);
      managed.fields.set(bucket, firstSet);
    }
    const merged = vs.set.union(managed.fields.get(bucket)!.set);
    managed.fields.set(bucket, { set: merged, apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(id);
    managed.times.delete(id);
    length--;
    managed.times.set(bucket, time);
  }
}
