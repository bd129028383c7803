// meta.k8s.io/v1 types every resource shares, plus Quantity, IntOrString and the
// discovery documents' types.

import type { Definitions, Schema } from '../types.ts';
import {
  INT_OR_STRING, META, QUANTITY, atomic, bool, int32, int64, mergeList, object, ref, set, str, stringMap,
  time, typeMetaFields,
} from './build.ts';
import type { GroupVersion } from './build.ts';

/**
 * Group-versions whose endpoints accept DeleteOptions and emit WatchEvents; upstream
 * tags those shared meta types with every group-version that uses them.
 */
const sharedIn: GroupVersion[] = [
  { group: '', version: 'v1' },
  { group: 'apiextensions.k8s.io', version: 'v1' },
  { group: 'apps', version: 'v1' },
  { group: 'autoscaling', version: 'v1' },
  { group: 'coordination.k8s.io', version: 'v1' },
  { group: 'policy', version: 'v1' },
];

function sharedKind(kind: string, schema: Schema): Schema {
  schema['x-kubernetes-group-version-kind'] = sharedIn.map((gv) => ({ group: gv.group, kind, version: gv.version }));
  return schema;
}

function coreKind(kind: string, schema: Schema): Schema {
  schema['x-kubernetes-group-version-kind'] = [{ group: '', kind, version: 'v1' }];
  return schema;
}

export const metaDefinitions: Definitions = {
  [QUANTITY]: {
    description:
      'A fixed-point amount with an optional SI or binary suffix: "100m", "1.5", "2Gi", "1e3". ' +
      'Written as a string; a plain JSON number is accepted too. Serialized in canonical form.',
    oneOf: [{ type: 'string' }, { type: 'number' }],
  },
  [INT_OR_STRING]: {
    description: 'A value that is either a 32-bit integer or a string (a port number or a port name, a count or a percentage).',
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  },

  [META + 'Time']: {
    description: 'A timestamp in RFC 3339 form with second precision, in UTC when the server writes it.',
    type: 'string',
    format: 'date-time',
  },
  [META + 'MicroTime']: {
    description: 'A timestamp in RFC 3339 form with microsecond precision.',
    type: 'string',
    format: 'date-time',
  },
  [META + 'FieldsV1']: {
    description: 'The set of fields a manager owns, as a trie of "f:<name>", "k:<keys>", "v:<value>" and "i:<index>" entries.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [META + 'Patch']: {
    description: 'The body of a PATCH request; its form depends on the Content-Type.',
    type: 'object',
  },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': {
    description: 'An embedded object, kept as the JSON the client or server sent.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  },

  [META + 'ObjectMeta']: object(
    'Metadata every persisted object has: identity, labels and annotations, ownership, lifecycle and field management.',
    {
      annotations: stringMap('Unstructured key/value data for tools and people; not used for selection.'),
      creationTimestamp: time('When the object was created, set by the server. Read-only.'),
      deletionGracePeriodSeconds: int64('Seconds the object has left to terminate gracefully once deletion was requested. Read-only.'),
      deletionTimestamp: time('When deletion was requested; the object goes once its finalizers are gone. Set by the server. Read-only.'),
      finalizers: set(str(), 'Identifiers of components that must clean up before the object is removed from storage.', 'merge'),
      generateName: str('Prefix the server completes with a random suffix when no name is given.'),
      generation: int64('Sequence number of the desired state, bumped by the server when the spec changes. Read-only.'),
      labels: stringMap('Key/value pairs for organising and selecting objects.'),
      managedFields: atomic(ref(META + 'ManagedFieldsEntry'), 'Which manager owns which fields, for server-side apply. Maintained by the server.'),
      name: str('Unique name within the namespace (or cluster, for cluster-scoped kinds). Cannot be updated.'),
      namespace: str('The namespace the object lives in; empty for cluster-scoped kinds. Cannot be updated.'),
      ownerReferences: mergeList(
        ref(META + 'OwnerReference'),
        'uid',
        'Objects this object depends on; when all of them are gone, the garbage collector deletes it. At most one may be the controller.',
      ),
      resourceVersion: str('Opaque version of the object for optimistic concurrency, change detection and watches. Read-only.'),
      selfLink: str('Deprecated and never set by current servers.'),
      uid: str('Unique identifier in time and space, set by the server on create. Read-only.'),
    },
  ),
  [META + 'OwnerReference']: object(
    'Identifies an owner of an object: in the same namespace or cluster-scoped.',
    {
      apiVersion: str('API version of the owner.'),
      blockOwnerDeletion: bool('When true and the owner uses foreground deletion, the owner is not removed before this dependent.'),
      controller: bool('When true, this owner is the managing controller.'),
      kind: str('Kind of the owner.'),
      name: str('Name of the owner.'),
      uid: str('UID of the owner.'),
    },
    { required: ['apiVersion', 'kind', 'name', 'uid'], mapType: 'atomic' },
  ),
  [META + 'ManagedFieldsEntry']: object('The fields one manager owns, for one operation and API version.', {
    apiVersion: str('The version of the object the field set is written against.'),
    fieldsType: str('The format of fieldsV1; only "FieldsV1" exists.'),
    fieldsV1: ref(META + 'FieldsV1', 'The owned fields.'),
    manager: str('Name of the workflow managing these fields.'),
    operation: str('"Apply" or "Update": how the fields came to be owned.'),
    subresource: str('The subresource the fields were written through, empty for the main resource.'),
    time: time('When these fields last changed for this manager.'),
  }),
  [META + 'ListMeta']: object('Metadata of a list response.', {
    continue: str('Token to fetch the next chunk of a paginated list; empty on the last chunk.'),
    remainingItemCount: int64('How many more items exist after this chunk, when the server can tell. An estimate when the list is filtered.'),
    resourceVersion: str('The version of the collection this list was read at; use it to start a watch.'),
    selfLink: str('Deprecated and never set by current servers.'),
  }),
  [META + 'LabelSelector']: object(
    'Selects objects by labels: matchLabels and matchExpressions are ANDed. An empty selector matches everything; a null one matches nothing.',
    {
      matchExpressions: atomic(ref(META + 'LabelSelectorRequirement'), 'Requirements on label values.'),
      matchLabels: stringMap('Each pair is equivalent to a matchExpressions entry with operator In and that single value.'),
    },
    { mapType: 'atomic' },
  ),
  [META + 'LabelSelectorRequirement']: object(
    'A requirement on one label key.',
    {
      key: str('The label key.'),
      operator: str('In, NotIn, Exists or DoesNotExist.'),
      values: atomic(str(), 'Values for In and NotIn (non-empty); must be empty for Exists and DoesNotExist.'),
    },
    { required: ['key', 'operator'] },
  ),
  [META + 'Condition']: object(
    'One aspect of an object\'s current state.',
    {
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable details about the transition.'),
      observedGeneration: int64('The metadata.generation the condition was computed from.'),
      reason: str('A CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('The condition type, in CamelCase or as a qualified name.'),
    },
    { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  ),

  [META + 'Status']: coreKind('Status', object('The result of an operation that does not return an object, and of every error.', {
    ...typeMetaFields(),
    code: int32('HTTP status code of the result.'),
    details: ref(META + 'StatusDetails', 'Extra data about the result; its meaning depends on reason.'),
    message: str('Human-readable description.'),
    metadata: ref(META + 'ListMeta', 'Standard list metadata.'),
    reason: str('Machine-readable reason ("NotFound", "Conflict", ...); empty when nothing more is known.'),
    status: str('"Success" or "Failure".'),
  })),
  [META + 'StatusDetails']: object('Details of a Status: which object, and which causes.', {
    causes: atomic(ref(META + 'StatusCause'), 'The individual problems behind a failure.'),
    group: str('Group of the object concerned.'),
    kind: str('Kind (or resource) of the object concerned.'),
    name: str('Name of the object concerned.'),
    retryAfterSeconds: int32('Seconds to wait before retrying, when the error is temporary.'),
    uid: str('UID of the object concerned.'),
  }),
  [META + 'StatusCause']: object('One cause of an error.', {
    field: str('Path of the field at fault, such as "spec.containers[0].name".'),
    message: str('Human-readable description of the cause.'),
    reason: str('Machine-readable cause, such as "FieldValueInvalid".'),
  }),
  [META + 'DeleteOptions']: sharedKind('DeleteOptions', object('Options of a delete request.', {
    ...typeMetaFields(),
    dryRun: atomic(str(), 'When "All", validate and report without persisting.'),
    gracePeriodSeconds: int64('Seconds before the object is deleted; 0 means now. Defaults to the type\'s own period.'),
    ignoreStoreReadErrorWithClusterBreakingPotential: bool('Delete an object that cannot be read from storage (corrupt), skipping finalizers and admission. Dangerous.'),
    orphanDependents: bool('Deprecated: use propagationPolicy. When true, dependents are orphaned.'),
    preconditions: ref(META + 'Preconditions', 'Must hold for the deletion to go ahead.'),
    propagationPolicy: str('How dependents are handled: "Orphan", "Background" or "Foreground".'),
  })),
  [META + 'Preconditions']: object('Conditions an operation requires of the stored object.', {
    resourceVersion: str('The resourceVersion the object must have.'),
    uid: str('The UID the object must have.'),
  }),
  [META + 'WatchEvent']: sharedKind('WatchEvent', object(
    'One event of a watch stream.',
    {
      object: ref('io.k8s.apimachinery.pkg.runtime.RawExtension', 'The object as of the event (ADDED, MODIFIED), its last state (DELETED), a Status (ERROR) or a bookmark carrying only metadata.resourceVersion (BOOKMARK).'),
      type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    },
    { required: ['type', 'object'] },
  )),

  // Discovery documents (GET /api, /apis, /apis/{group}, /api/v1, /apis/{group}/{version}).
  [META + 'APIVersions']: coreKind('APIVersions', object(
    'The versions of the core group (GET /api).',
    {
      ...typeMetaFields(),
      serverAddressByClientCIDRs: atomic(ref(META + 'ServerAddressByClientCIDR'), 'Addresses clients should use, by client network.'),
      versions: atomic(str(), 'The versions served.'),
    },
    { required: ['versions', 'serverAddressByClientCIDRs'] },
  )),
  [META + 'APIGroupList']: coreKind('APIGroupList', object(
    'The groups served under /apis.',
    { ...typeMetaFields(), groups: atomic(ref(META + 'APIGroup'), 'The groups.') },
    { required: ['groups'] },
  )),
  [META + 'APIGroup']: coreKind('APIGroup', object(
    'A group and the versions it serves.',
    {
      ...typeMetaFields(),
      name: str('Name of the group.'),
      preferredVersion: ref(META + 'GroupVersionForDiscovery', 'The version clients should prefer.'),
      serverAddressByClientCIDRs: atomic(ref(META + 'ServerAddressByClientCIDR'), 'Addresses clients should use, by client network.'),
      versions: atomic(ref(META + 'GroupVersionForDiscovery'), 'The versions served.'),
    },
    { required: ['name', 'versions'] },
  )),
  [META + 'GroupVersionForDiscovery']: object(
    'One version of a group.',
    { groupVersion: str('"group/version".'), version: str('The version alone.') },
    { required: ['groupVersion', 'version'] },
  ),
  [META + 'ServerAddressByClientCIDR']: object(
    'The server address to use for clients in a network.',
    { clientCIDR: str('The client network, in CIDR form.'), serverAddress: str('host, host:port or IP:port.') },
    { required: ['clientCIDR', 'serverAddress'] },
  ),
  [META + 'APIResourceList']: coreKind('APIResourceList', object(
    'The resources of one group-version.',
    {
      ...typeMetaFields(),
      groupVersion: str('The group-version these resources belong to.'),
      resources: atomic(ref(META + 'APIResource'), 'The resources.'),
    },
    { required: ['groupVersion', 'resources'] },
  )),
  [META + 'APIResource']: object(
    'One resource of a group-version.',
    {
      categories: atomic(str(), 'Groupings such as "all".'),
      group: str('Preferred group of the resource, when it differs from the containing group-version (subresources).'),
      kind: str('Kind of the resource.'),
      name: str('Plural name, with "/subresource" for a subresource.'),
      namespaced: bool('Whether the resource is namespaced.'),
      shortNames: atomic(str(), 'Short aliases.'),
      singularName: str('Singular name.'),
      storageVersionHash: str('Hash of the storage version, to detect storage migrations.'),
      verbs: atomic(str(), 'The verbs supported.'),
      version: str('Preferred version of the resource, when it differs from the containing group-version.'),
    },
    { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
  ),
};
