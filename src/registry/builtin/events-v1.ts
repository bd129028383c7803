// events.k8s.io/v1 Events: the core/v1 Events' stored objects (/registry/events/), converted
// as upstream's pkg/apis/events/v1/conversion.go (note↔message, regarding↔involvedObject,
// reportingController↔reportingComponent, deprecated*↔source/firstTimestamp/lastTimestamp/count),
// with the stricter validation upstream's ValidateEventCreate/Update apply to this API.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { clone, deepEqual, isObject, type JsonObject } from '../../api/json.ts';
import type { ResourceType, StorageConversion, Strategy } from '../resource-type.ts';
import { appendAll, fieldImmutable, goJson, type GoValue, invalid, required } from '../validation/field.ts';
import { validateEvent } from './events.ts';
import { objectAt, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';
import { eventColumns } from './table-columns.ts';

function set(out: JsonObject, key: string, value: unknown): void {
  if (value !== undefined && value !== null && value !== '' && value !== 0) out[key] = clone(value);
}

/** A time field as Go holds it: the zero time (JSON null) when absent or empty. */
function timeOrNull(value: unknown): unknown {
  return value === undefined || value === '' ? null : clone(value);
}

/**
 * A core/v1 Event as events.k8s.io/v1 shows it (Convert_core_Event_To_v1_Event), with the
 * fields Go's encoder writes at their zero values: eventTime and the deprecated timestamps
 * (metav1 times, null), regarding and deprecatedSource (structs, {}).
 */
export function eventFromCore(core: KubeObject): KubeObject {
  const c = core as JsonObject;
  const out: JsonObject = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: clone(core.metadata) };
  out.eventTime = timeOrNull(c.eventTime);
  set(out, 'series', c.series);
  set(out, 'reportingController', c.reportingComponent);
  set(out, 'reportingInstance', c.reportingInstance);
  set(out, 'action', c.action);
  set(out, 'reason', c.reason);
  out.regarding = clone(isObject(c.involvedObject) ? c.involvedObject : {});
  set(out, 'related', c.related);
  set(out, 'note', c.message);
  set(out, 'type', c.type);
  out.deprecatedSource = clone(isObject(c.source) ? c.source : {});
  out.deprecatedFirstTimestamp = timeOrNull(c.firstTimestamp);
  out.deprecatedLastTimestamp = timeOrNull(c.lastTimestamp);
  set(out, 'deprecatedCount', c.count);
  return out as KubeObject;
}

/**
 * An events.k8s.io/v1 Event as core/v1 stores it (Convert_v1_Event_To_core_Event), with the
 * fields core/v1's Go type always writes: the times (null when zero), involvedObject and
 * source ({}), reportingComponent and reportingInstance ("": no omitempty there).
 */
export function eventToCore(event: KubeObject): KubeObject {
  const e = event as JsonObject;
  const out: JsonObject = { kind: 'Event', apiVersion: 'v1', metadata: clone(event.metadata) };
  out.involvedObject = clone(isObject(e.regarding) ? e.regarding : {});
  set(out, 'reason', e.reason);
  set(out, 'message', e.note);
  out.source = clone(isObject(e.deprecatedSource) ? e.deprecatedSource : {});
  out.firstTimestamp = timeOrNull(e.deprecatedFirstTimestamp);
  out.lastTimestamp = timeOrNull(e.deprecatedLastTimestamp);
  set(out, 'count', e.deprecatedCount);
  set(out, 'type', e.type);
  out.eventTime = timeOrNull(e.eventTime);
  set(out, 'series', e.series);
  set(out, 'action', e.action);
  set(out, 'related', e.related);
  out.reportingComponent = clone(e.reportingController ?? '');
  out.reportingInstance = clone(e.reportingInstance ?? '');
  return out as KubeObject;
}

function validateSeries(core: JsonObject): StatusCause[] {
  const series = objectAt(core, 'series');
  if (series === undefined) return [];
  const causes: StatusCause[] = [];
  if (typeof series.count !== 'number' || series.count < 2) causes.push(invalid('series.count', '', 'should be at least 2'));
  if (stringAt(series, 'lastObservedTime') === '') causes.push(required('series.lastObservedTime'));
  return causes;
}

/** legacyValidateEvent, which every write passes, named as upstream names the fields. */
function validateLegacy(event: KubeObject): StatusCause[] {
  return validateEvent(eventToCore(event), 'reportingController');
}

/** What ValidateEventCreate adds for requests through events.k8s.io/v1 (metadata is the Store's). */
function validateCreate(event: KubeObject): StatusCause[] {
  const core = eventToCore(event) as JsonObject;
  const causes = validateSeries(core);
  if (stringAt(core, 'eventTime') === '') causes.push(required('eventTime'));
  const type = stringAt(core, 'type');
  if (type !== 'Normal' && type !== 'Warning') causes.push(invalid('type', '', `has invalid value: ${type}`));
  if (stringAt(core, 'firstTimestamp') !== '') causes.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (stringAt(core, 'lastTimestamp') !== '') causes.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof core.count === 'number' && core.count !== 0) causes.push(invalid('count', '', 'needs to be unset'));
  const source = objectAt(core, 'source');
  if (stringAt(source, 'component') !== '' || stringAt(source, 'host') !== '') causes.push(invalid('source', '', 'needs to be unset'));
  return causes;
}

/** An internal core.ObjectReference as upstream's field errors print it (Go field names, declaration order). */
function goObjectReference(ref: unknown): GoValue | null {
  if (!isObject(ref)) return null;
  return goJson({
    Kind: stringAt(ref, 'kind'), Namespace: stringAt(ref, 'namespace'), Name: stringAt(ref, 'name'), UID: stringAt(ref, 'uid'),
    APIVersion: stringAt(ref, 'apiVersion'), ResourceVersion: stringAt(ref, 'resourceVersion'), FieldPath: stringAt(ref, 'fieldPath'),
  });
}

/** A core Event field's value as upstream's "field is immutable" error prints it: Go's value, zero when unset. */
function immutableValue(core: JsonObject, field: string): unknown {
  const value = core[field];
  switch (field) {
    case 'involvedObject': return goObjectReference(isObject(value) ? value : {});
    case 'related': return goObjectReference(value);
    case 'source': return goJson({ Component: stringAt(value, 'component'), Host: stringAt(value, 'host') });
    case 'count': return typeof value === 'number' ? value : 0;
    case 'firstTimestamp': case 'lastTimestamp': case 'eventTime': return value ?? null;
    default: return typeof value === 'string' ? value : '';
  }
}

/**
 * ValidateEventUpdate's immutable fields, in its order; `reason` is checked twice there, so a
 * changed reason has two causes (the message, an aggregate, says it once).
 */
const immutableFields = [
  'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'reason', 'type', 'eventTime',
  'action', 'related', 'reportingComponent', 'reportingInstance',
];

/** ValidateEventUpdate for requests through events.k8s.io/v1: what was reported stays. */
function validateUpdate(event: KubeObject, old: KubeObject): StatusCause[] {
  const core = eventToCore(event) as JsonObject;
  const before = eventToCore(old) as JsonObject;
  const causes: StatusCause[] = [];
  if (!deepEqual(core.series, before.series)) appendAll(causes, validateSeries(core));
  for (const field of immutableFields) {
    if (!deepEqual(core[field] ?? null, before[field] ?? null)) {
      const path = field === 'reportingComponent' ? 'reportingController' : field;
      causes.push(invalid(path, immutableValue(core, field), fieldImmutable));
    }
  }
  return causes;
}

/** Upstream's field label conversion of events.k8s.io/v1 Events. */
const fieldLabels = [
  'reason', 'regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'regarding.apiVersion', 'regarding.resourceVersion',
  'regarding.fieldPath', 'reportingController', 'source', 'type', 'metadata.namespace', 'metadata.name',
];

const eventV1Strategy: Strategy = {
  // Served by core/v1 events' storage upstream, with its garbage-collection policy.
  defaultGarbageCollectionPolicy: 'Unsupported',
  validate: validateLegacy,
  validateCreate,
  validateUpdate,
  selectableFields(event) {
    const regarding = objectAt(event, 'regarding');
    const source = stringAt(objectAt(event, 'deprecatedSource'), 'component') || stringAt(event, 'reportingController');
    return {
      reason: stringAt(event, 'reason'),
      'regarding.kind': stringAt(regarding, 'kind'),
      'regarding.namespace': stringAt(regarding, 'namespace'),
      'regarding.name': stringAt(regarding, 'name'),
      'regarding.uid': stringAt(regarding, 'uid'),
      'regarding.apiVersion': stringAt(regarding, 'apiVersion'),
      'regarding.resourceVersion': stringAt(regarding, 'resourceVersion'),
      'regarding.fieldPath': stringAt(regarding, 'fieldPath'),
      reportingController: stringAt(event, 'reportingController'),
      source,
      type: stringAt(event, 'type'),
    };
  },
  fieldLabels,
};

const storedAsCore: StorageConversion = { group: '', resource: 'events', version: 'v1', kind: 'Event', toStorage: eventToCore, fromStorage: eventFromCore };

export function eventsV1Type(): ResourceType {
  return builtinType('events.k8s.io', 'v1', 'events', {
    strategy: eventV1Strategy,
    storage: storedAsCore,
    // Upstream prints the converted core event.
    tableColumns: eventColumns.map((c) => ({ ...c, cell: (obj, now) => c.cell(eventToCore(obj), now) })),
    allowCreateOnUpdate: true,
  });
}
