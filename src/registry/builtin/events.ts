// core/v1 events, after kubernetes pkg/registry/core/event/strategy.go and the legacy
// event validation (core/v1 events get no stricter rules, for old clients' sake).

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { invalid, required } from '../validation/field.ts';
import { isDNS1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { objectAt, stringAt } from './object.ts';
import { eventColumns } from './table-columns.ts';

const reportingInstanceLengthLimit = 128;
const actionLengthLimit = 128;
const reasonLengthLimit = 128;
const noteLengthLimit = 1024;

/** Go's len() of a string: its UTF-8 bytes, which upstream's limits count (the messages say "characters"). */
function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * legacyValidateEvent, on the core/v1 form; `reportingField` names reportingComponent in
 * causes (events.k8s.io requests name it reportingController, upstream's internal field).
 */
export function validateEvent(event: KubeObject, reportingField = 'reportingComponent'): StatusCause[] {
  const causes: StatusCause[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involvedNamespace = stringAt(objectAt(event, 'involvedObject'), 'namespace');
  const eventTime = event.eventTime;
  if (eventTime === undefined || eventTime === null || eventTime === '') {
    // Old-style events: the namespaces must agree ("default" stands for cluster-scoped objects).
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') causes.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    } else if (namespace !== involvedNamespace) {
      causes.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') {
      causes.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
    const reportingController = stringAt(event, 'reportingComponent');
    if (reportingController === '') causes.push(required(reportingField));
    for (const msg of isQualifiedName(reportingController)) causes.push(invalid(reportingField, reportingController, msg));
    const limited: [string, number][] = [['reportingInstance', reportingInstanceLengthLimit], ['action', actionLengthLimit], ['reason', reasonLengthLimit]];
    for (const [field, limit] of limited) {
      const value = stringAt(event, field);
      if (value === '') causes.push(required(field));
      if (byteLength(value) > limit) causes.push(invalid(field, '', `can have at most ${limit} characters`));
    }
    if (byteLength(stringAt(event, 'message')) > noteLengthLimit) causes.push(invalid('message', '', `can have at most ${noteLengthLimit} characters`));
  }
  for (const msg of isDNS1123Subdomain(namespace)) causes.push(invalid('namespace', namespace, msg));
  return causes;
}

const eventStrategy: Strategy = {
  validate: (event) => validateEvent(event),
  // Events own nothing: a delete never leaves garbage-collection finalizers on them (upstream).
  defaultGarbageCollectionPolicy: 'Unsupported',

  selectableFields(event) {
    const involved = objectAt(event, 'involvedObject');
    const source = stringAt(objectAt(event, 'source'), 'component') || stringAt(event, 'reportingComponent');
    return {
      'involvedObject.kind': stringAt(involved, 'kind'),
      'involvedObject.namespace': stringAt(involved, 'namespace'),
      'involvedObject.name': stringAt(involved, 'name'),
      'involvedObject.uid': stringAt(involved, 'uid'),
      'involvedObject.apiVersion': stringAt(involved, 'apiVersion'),
      'involvedObject.resourceVersion': stringAt(involved, 'resourceVersion'),
      'involvedObject.fieldPath': stringAt(involved, 'fieldPath'),
      reason: stringAt(event, 'reason'),
      reportingComponent: stringAt(event, 'reportingComponent'),
      source,
      type: stringAt(event, 'type'),
    };
  },

  fieldLabels: [
    'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion',
    'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type',
    'metadata.namespace', 'metadata.name',
  ],
};

export function eventsType(): ResourceType {
  return builtinType('', 'v1', 'events', {
    subresources: [],
    strategy: eventStrategy,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    // core/v1 events only get the generic name check.
    nameRule: 'path-segment',
    tableColumns: eventColumns,
  });
}
