// Managed fields on every write, as upstream's FieldManager with its default layers
// (k8s.io/apimachinery/pkg/util/managedfields/internal/fieldmanager.go): version check,
// last-applied upgrade for kubectl, "before-first-apply" for objects nobody tracked,
// capping Update entries, manager identifiers, entry times, and stripping the metadata
// nobody owns.

import { StatusError, badRequest } from '../api/errors.ts';
import type { KubeObject, ManagedFieldsEntry } from '../api/types.ts';
import { parseApiVersion } from '../api/types.ts';
import type { Conflict } from './conflicts.ts';
import { describeConflicts } from './conflicts.ts';
import { FieldSet, FieldsV1Error } from './field-set.ts';
import { fieldsFromLastApplied, lastAppliedOf, lastAppliedValue, upgradingManager, withLastApplied } from './last-applied.ts';
import type { Managed } from './managed-fields.ts';
import { capUpdateManagers, decodeManagedFields, emptyManaged, encodeManagedFields, isResetManagedFields, managerIdentifier } from './managed-fields.ts';
import { fieldElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { deepEqual, deepEqualNullAsAbsent, goJsonKind, isObject, type JsonObject } from '../api/json.ts';
import { TypedError } from './typed.ts';
import type { OwnershipConflict, UpdaterOptions, Versions } from './updater.ts';
import { rememberInLine } from './reconcile.ts';
import { applyOwnership, ConversionPending, updateOwnership } from './updater.ts';
import { configurationErrors, goValueOf } from './validate.ts';
import { rfc3339Seconds } from '../api/time.ts';

/** What the Store knows about the endpoint being written. */
export interface ManagedFieldsScope {
  /** The type's topology: compileTopology(schema, definitions), once per type. */
  topology: Topology;
  /** The group/version written: "apps/v1", "v1". */
  apiVersion: string;
  kind: string;
  /** The subresource written through ("status", "scale"); absent for the main resource. */
  subresource?: string;
  /**
   * Fields this endpoint resets (upstream's ResetFieldsStrategy: `status` for a main
   * resource with a status subresource, `spec` for the status subresource). Changes to them
   * are not recorded and applying them owns nothing.
   */
  resetFields?: FieldSet;
  /**
   * The type's objects are plain data that keep nulls (custom resources). A built-in
   * type's objects are Go values, which have no null where nothing is set: a null an apply
   * leaves where the live object has nothing changes nothing (the Store drops it).
   */
  keepsNulls?: boolean;
  /**
   * A new object of the type, what a create and the first apply to an object without managed
   * fields are compared with, as upstream's handlers make a new Go object (Creater.New): the
   * zero values decoding gave what the writer left out (`source: {}`, `rules: null`) are then
   * no one's. Only read. Absent: `{}`.
   */
  emptyObject?: JsonObject;
  /**
   * The API versions the object is served at: managers that wrote through another version
   * own fields as that version names them, and lose them by what a write changed there;
   * managers of a version the object is not served at are dropped. Absent: every manager's
   * fields are read as of `apiVersion`.
   */
  versions?: Versions;
  /** The clock for entry times; now by default. */
  now?: () => Date;
}

/** Fields nobody owns (upstream stripMetaManager); removed as members only, not with what is below. */
const stripped = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((f) => [fieldElement('metadata'), fieldElement(f)]),
);

const currentOperation = 'current-operation';
const beforeFirstApply = 'before-first-apply';

function timestamp(scope: ManagedFieldsScope): string {
  return scope.now === undefined ? rfc3339Seconds() : rfc3339Seconds(scope.now().getTime());
}

/** The object without metadata.managedFields, sharing everything else. */
function withoutManagedFields(obj: unknown): JsonObject {
  if (!isObject(obj)) return {};
  const metadata = obj.metadata;
  if (!isObject(metadata) || !('managedFields' in metadata)) return obj;
  const { managedFields: _, ...rest } = metadata;
  return { ...obj, metadata: rest };
}

function uidOf(obj: KubeObject | undefined): string {
  const uid = obj?.metadata?.uid;
  return typeof uid === 'string' ? uid : '';
}

function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

/** Upstream decodeLiveOrNew: which managed fields a non-apply write starts from. */
function startingManaged(scope: ManagedFieldsScope, live: KubeObject | undefined, obj: KubeObject): Managed {
  const liveEntries = live?.metadata?.managedFields;
  // A write through a subresource cannot set managedFields.
  if (scope.subresource) return decodeOrEmpty(liveEntries);
  const sent = obj.metadata?.managedFields;
  if (isResetManagedFields(sent)) return emptyManaged();
  // Fields the client sent replace the stored ones (kubectl's client-side to server-side
  // upgrade writes them); none sent, or unreadable ones, keep the stored ones so that
  // clients unaware of managedFields never drop them. Sending back what it read (a PUT of
  // a GET) is the stored ones, which need no checking.
  if (!Array.isArray(sent) || sent.length === 0 || deepEqual(sent, liveEntries)) return decodeOrEmpty(liveEntries);
  try {
    const managed = decodeManagedFields(sent, { validate: true });
    if (managed.fields.size > 0) return managed;
  } catch {
    // fall through to the stored fields, as upstream does
  }
  return decodeOrEmpty(liveEntries);
}

/**
 * The entries of managed fields a write made, each remembered as fitting the schema of its
 * version (reconcile.ts): the write reconciled every set it started from.
 */
function encodedInLine(scope: ManagedFieldsScope, managed: Managed): ManagedFieldsEntry[] | undefined {
  const entries = encodeManagedFields(managed);
  for (const entry of entries ?? []) {
    const version = entry.apiVersion ?? scope.apiVersion;
    const versions = scope.versions;
    if (version === scope.apiVersion || versions === undefined) rememberInLine(entry.fieldsV1, scope.topology);
    else if (versions.has(version)) rememberInLine(entry.fieldsV1, versions.topology(version));
  }
  return entries;
}

function updaterOptions(scope: ManagedFieldsScope): UpdaterOptions {
  const opts: UpdaterOptions = {};
  if (scope.resetFields !== undefined) opts.ignored = scope.resetFields;
  if (scope.versions !== undefined) opts.versions = scope.versions;
  return opts;
}

/** Records a non-apply write by `manager` (upstream's Update chain below the version check). */
function recordUpdate(scope: ManagedFieldsScope, live: unknown, obj: unknown, managed: Managed, manager: string): Managed {
  const id = managerIdentifier({ manager: manager || 'unknown', operation: 'Update', apiVersion: scope.apiVersion, subresource: scope.subresource });
  const opts = updaterOptions(scope);
  const fields = updateOwnership(live, obj, scope.topology, managed.fields, currentOperation, scope.apiVersion, opts);
  const taken = fields.get(currentOperation);
  fields.delete(currentOperation);
  const times = new Map(managed.times);
  const kept = taken === undefined ? undefined : taken.set.difference(stripped);
  if (kept !== undefined && !kept.isEmpty()) {
    const previous = fields.get(id);
    const set = previous === undefined ? kept : kept.union(previous.set);
    fields.set(id, { set, apiVersion: scope.apiVersion, applied: false });
    times.set(id, timestamp(scope));
  }
  const out: Managed = { fields, times, original: managed.original };
  capUpdateManagers(out);
  return out;
}

/**
 * The managedFields to store after a create, update or non-apply patch, computed from the
 * object before (`live`, undefined on create) and after the write (`obj`, defaulted, as it
 * will be validated and stored). Undefined means none.
 *
 * - The writer (`manager`: fieldManager, else managerOrUserAgent) takes every field it
 *   changed or added, from whoever owned it, without conflicts; its entry has operation
 *   Update, the written apiVersion, the subresource, and the write's time. A write that
 *   changes nothing changes no entry.
 * - `obj.metadata.managedFields`, when set and readable, replaces the stored entries; when
 *   absent, empty or unreadable the stored ones carry on. `[{}]` resets them: the write then
 *   stores none, and later non-apply writes record nothing until the next apply (as upstream,
 *   which skips tracking for objects that have none). Writes through a subresource keep the
 *   stored entries whatever they send.
 * - When the fields cannot be worked out (a list-map item missing its key, stored entries
 *   that do not decode) the stored entries are kept unchanged, as upstream's UpdateNoErrors does.
 */
export function updateManagedFields(scope: ManagedFieldsScope, live: KubeObject | undefined, obj: KubeObject, manager: string): ManagedFieldsEntry[] | undefined {
  const managed = startingManaged(scope, live, obj);
  // Upstream's skipNonAppliedManager: an existing object without managed fields stays so.
  if (managed.fields.size === 0 && uidOf(live) !== '') return undefined;
  try {
    const after = recordUpdate(scope, withoutManagedFields(live ?? scope.emptyObject ?? {}), withoutManagedFields(obj), managed, manager);
    return encodedInLine(scope, after);
  } catch (err) {
    if (err instanceof ConversionPending) throw err;
    // Upstream's UpdateNoErrors: a write never fails for its managed fields.
    return live?.metadata?.managedFields;
  }
}

export interface ApplyOptions {
  /** Take fields other managers own instead of failing with conflicts. */
  force?: boolean;
}

export type ApplyResult =
  | {
      ok: true;
      /**
       * The merged object with its managedFields, to default, validate and store. It shares
       * no object with `live` except managedFields entries left unchanged (and unchanged
       * parts of fieldsV1), which the Store must treat as immutable, as it does stored objects.
       */
      object: KubeObject;
      /** Whether anything besides managedFields differs from `live`. */
      changed: boolean;
    }
  | { ok: false; conflicts: Conflict[] };

function gvkString(apiVersion: unknown, kind: unknown): string {
  const { group, version } = parseApiVersion(typeof apiVersion === 'string' ? apiVersion : '');
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

function objectName(obj: JsonObject): string {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const name = typeof meta.name === 'string' ? meta.name : '';
  return `${namespace}/${name}`;
}

/** A 500 worded like upstream's for values structured-merge-diff refuses (it is not a Status there). */
function typedObjectError(what: string, obj: JsonObject, scope: ManagedFieldsScope, err: TypedError): StatusError {
  return new StatusError(500, '', `failed to create typed ${what} object (${objectName(obj)}; ${gvkString(scope.apiVersion, scope.kind)}): ${err.message}`);
}

/**
 * ObjectMeta's strings, maps and lists holding another kind of value: structured-merge-diff's
 * typed conversion refuses them ("expected string", "expected map", "expected list"), and
 * every later stage relies on their shape, so they are checked whatever the topology says.
 */
function metadataShapeErrors(meta: unknown): string[] {
  if (meta === undefined || meta === null) return [];
  if (!isObject(meta)) return [`.metadata: expected map, got ${goValueOf(meta)}`];
  const errors: string[] = [];
  for (const field of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp']) {
    const v = meta[field];
    if (v === undefined || v === null || typeof v === 'string') continue;
    const shown = typeof v === 'object' ? JSON.stringify(v) : String(v);
    errors.push(`.metadata.${field}: expected string, got &value.valueUnstructured{Value:${shown}}`);
  }
  for (const [field, want] of [['labels', 'map'], ['annotations', 'map'], ['finalizers', 'list'], ['ownerReferences', 'list']] as const) {
    const v = meta[field];
    if (v === undefined || v === null) continue;
    if (want === 'map' ? !isObject(v) : !Array.isArray(v)) {
      errors.push(`.metadata.${field}: expected ${want}, got ${goValueOf(v)}`);
    } else if (want === 'map') {
      // Label and annotation values are strings; Go's %#v names the value's holder.
      for (const [key, value] of Object.entries(v as JsonObject)) {
        if (value === null || typeof value === 'string') continue;
        const shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
        errors.push(`.metadata.${field}.${key}: expected string, got &value.valueUnstructured{Value:${shown}}`);
      }
    } else if (field === 'finalizers') {
      // A set of strings: a scalar element is named by its value ([=true]); maps and lists are the list walk's errors.
      for (const value of v as unknown[]) {
        if (value === null || typeof value === 'string' || typeof value === 'object') continue;
        errors.push(`.metadata.finalizers[=${String(value)}]: expected string, got &value.valueUnstructured{Value:${String(value)}}`);
      }
    }
  }
  return errors;
}

/**
 * Server-side apply of the configuration `applied` by `manager` to `live` (undefined when
 * the object does not exist yet). On success the object carries its new managedFields; the
 * Store then defaults, validates and stores it as for any update (or create). Conflicts
 * come back as a list (applyConflictError makes the 409). Throws a StatusError: 400 when
 * the configuration has managedFields or names another kind or version, 500 (as upstream)
 * when a list item has no identity or repeats one.
 *
 * - The applier owns exactly the fields it applies (entry operation Apply, keyed by manager
 *   and subresource, so it keeps its entry when it applies another apiVersion).
 * - A field another manager owns with a different value is a conflict; `force` takes it
 *   from them. Applying the value it already has makes the field shared.
 * - Fields the applier applied before and omits now are removed unless another manager
 *   owns them. Managers left owning nothing disappear.
 * - An object that has no managed fields first gets an Update entry "before-first-apply"
 *   owning all its fields, as upstream.
 * - For manager "kubectl", conflicts on fields the last-applied annotation of client-side
 *   apply still describes are not conflicts, and that annotation, when present, is set to
 *   the applied configuration.
 */
export function apply(
  scope: ManagedFieldsScope,
  live: KubeObject | undefined,
  applied: unknown,
  manager: string,
  opts: ApplyOptions = {},
): ApplyResult {
  // Upstream decodes the configuration into a map: null leaves it empty (and then names no
  // type), anything else that is not a mapping fails to decode.
  if (applied === null) applied = {};
  if (!isObject(applied)) {
    throw badRequest(`error decoding YAML: json: cannot unmarshal ${goJsonKind(applied)} into Go value of type map[string]interface {}`);
  }
  if (applied.apiVersion !== scope.apiVersion || applied.kind !== scope.kind) {
    throw badRequest(`invalid object type: ${gvkString(applied.apiVersion, applied.kind)}`);
  }
  const appliedMeta = applied.metadata;
  if (isObject(appliedMeta) && appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }

  let managed: Managed;
  try {
    managed = decodeManagedFields(live?.metadata?.managedFields);
  } catch (err) {
    throw new StatusError(500, 'InternalError', `failed to decode managed fields: ${(err as Error).message}`);
  }
  // Upstream makes the configuration a typed value first: what its schema refuses fails the apply.
  const faults = [...metadataShapeErrors(applied.metadata), ...configurationErrors(applied, scope.topology)];
  if (faults.length > 0) throw typedObjectError('patch', applied, scope, new TypedError(faults));
  const liveObj = withoutManagedFields(live ?? {});
  const force = opts.force ?? false;
  let result: AppliedOnce;
  try {
    if (managed.fields.size === 0) managed = recordUpdate(scope, scope.emptyObject ?? {}, liveObj, managed, beforeFirstApply);
    result = applyOnce(scope, liveObj, applied, managed, manager, force);
    if (result.conflicts !== undefined && manager === upgradingManager) {
      const allowed = fieldsFromLastApplied(liveObj, scope.topology, scope.apiVersion);
      if (allowed !== undefined) {
        const remaining = result.conflicts.filter((c) => !allowed.has(c.path));
        result = remaining.length === 0 ? applyOnce(scope, liveObj, applied, managed, manager, true) : { conflicts: remaining };
      }
    }
  } catch (err) {
    if (err instanceof TypedError) throw typedObjectError(err.live ? 'live' : 'patch', err.live ? liveObj : applied, scope, err);
    // A stored entry whose fieldsV1 does not decode (sets decode lazily).
    if (err instanceof FieldsV1Error) throw new StatusError(500, 'InternalError', `failed to decode managed fields: ${err.message}`);
    throw err;
  }
  if (result.conflicts !== undefined) return { ok: false, conflicts: describeConflicts(result.conflicts) };

  let object = result.object;
  let changed = result.changed;
  if (manager === upgradingManager && lastAppliedOf(object) !== undefined) {
    const value = lastAppliedValue(applied);
    if (value !== lastAppliedOf(object)) {
      object = withLastApplied(object, value);
      changed = true;
    }
  }
  const managedFields = encodedInLine(scope, result.managed);
  const metadata: JsonObject = { ...(isObject(object.metadata) ? object.metadata : {}) };
  if (managedFields !== undefined) metadata.managedFields = managedFields;
  else delete metadata.managedFields;
  return { ok: true, object: { ...object, metadata } as KubeObject, changed };
}

type AppliedOnce =
  | { conflicts: OwnershipConflict[]; object?: undefined }
  | { conflicts?: undefined; object: JsonObject; managed: Managed; changed: boolean };

/** One apply through upstream's layers below the last-applied ones. */
function applyOnce(scope: ManagedFieldsScope, live: JsonObject, applied: JsonObject, managed: Managed, manager: string, force: boolean): AppliedOnce {
  const id = managerIdentifier({ manager: manager || 'unknown', operation: 'Apply', subresource: scope.subresource });
  const opts = updaterOptions(scope);
  opts.stripped = stripped;
  const outcome = applyOwnership(live, applied, scope.topology, managed.fields, id, scope.apiVersion, force, opts);
  if (!outcome.ok) return { conflicts: outcome.conflicts };
  const fields = outcome.managers;
  const times = new Map(managed.times);
  // Unchanged, the merge is a copy of the live object (upstream returns the live object).
  const object = outcome.object as JsonObject;
  // kubectl sends `creationTimestamp: null` in pod templates, which a Go value holds as null.
  const changed = outcome.changed && (scope.keepsNulls === true || !deepEqualNullAsAbsent(live, object));
  // Upstream stamps the applier's entry only when the object changed; a new entry gets a time anyway.
  if (fields.has(id) && (changed || !managed.fields.has(id))) times.set(id, timestamp(scope));
  return { object, managed: { fields, times, original: managed.original }, changed };
}
