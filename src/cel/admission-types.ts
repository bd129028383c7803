// The static types admission CEL expressions see for `request` and `namespaceObject`, as
// upstream's admission CEL compiler declares them (BuildRequestType, BuildNamespaceType):
// a field an expression reads that they do not have ("undefined field"), or a value of
// theirs used as another type ("found no matching overload for '_==_' applied to
// '(bool, string)'"), is a compile error, refusing the webhook configuration or admission
// policy when it is written. A variable of another object type its caller declares (a
// policy's `variables`) is checked the same way.

import { compile, type ObjectTypes, type Variables } from './environment.ts';
import { undefinedFieldErrors } from './type-check.ts';

type Raw = Record<string, unknown>;

const string = 'string';
const strings = 'list<string>';
const timestamp = 'google.protobuf.Timestamp';
const groupVersionKind = 'kubernetes.GroupVersionKind';
const groupVersionResource = 'kubernetes.GroupVersionResource';

/**
 * Upstream's object types by their cel-go names, each after the types its fields name.
 * kubernetes.AdmissionRequest has no uid, object or oldObject (those are variables of their
 * own) and `options` dyn; kubernetes.Namespace's metadata has no managed fields or owners
 * (`UID` spelt so, as upstream's type has it).
 */
export const admissionTypes: ObjectTypes = {
  [groupVersionKind]: { group: string, version: string, kind: string },
  [groupVersionResource]: { group: string, version: string, resource: string },
  'kubernetes.UserInfo': { username: string, uid: string, groups: strings, extra: `map<string, ${strings}>` },
  'kubernetes.AdmissionRequest': {
    kind: groupVersionKind, resource: groupVersionResource, subResource: string,
    requestKind: groupVersionKind, requestResource: groupVersionResource, requestSubResource: string,
    name: string, namespace: string, operation: string, userInfo: 'kubernetes.UserInfo', dryRun: 'bool', options: 'dyn',
  },
  'kubernetes.NamespaceMetadata': {
    name: string, generateName: string, namespace: string, labels: 'map<string, string>', annotations: 'map<string, string>',
    UID: string, creationTimestamp: timestamp, deletionGracePeriodSeconds: 'int', deletionTimestamp: timestamp,
    generation: 'int', resourceVersion: string, finalizers: strings,
  },
  'kubernetes.NamespaceSpec': { finalizers: strings },
  'kubernetes.NamespaceCondition': { status: string, type: string, lastTransitionTime: timestamp, message: string, reason: string },
  'kubernetes.NamespaceStatus': { conditions: 'list<kubernetes.NamespaceCondition>', phase: string },
  'kubernetes.Namespace': { metadata: 'kubernetes.NamespaceMetadata', spec: 'kubernetes.NamespaceSpec', status: 'kubernetes.NamespaceStatus' },
};

/** The variables upstream always declares with these types. */
const typedVariables: Variables = { request: 'kubernetes.AdmissionRequest', namespaceObject: 'kubernetes.Namespace' };

/** A type's fields as the walk for undefined fields reads them: objects closed to their fields, lists, maps; anything else open. */
function schemaOf(type: string, types: ObjectTypes): Raw {
  const fields = Object.hasOwn(types, type) ? types[type]! : undefined;
  if (fields !== undefined) return { type: 'object', properties: Object.fromEntries(Object.entries(fields).map(([name, t]) => [name, schemaOf(t, types)])) };
  const list = /^list<(.+)>$/.exec(type);
  if (list !== null) return { type: 'array', items: schemaOf(list[1]!, types) };
  const map = /^map<[^<>,]+, (.+)>$/.exec(type);
  if (map !== null) return { type: 'object', additionalProperties: schemaOf(map[1]!, types) };
  return {};
}

/**
 * cel-go's checker errors for an admission expression (empty when none): each field it reads
 * from `request`, `namespaceObject` or a variable of an object type of `types` that the
 * type lacks (in `has()` too), else its first type error with those typed. `variables`:
 * what the expression sees (`request` and `namespaceObject`, when there, typed as upstream
 * types them whatever their type here); `objects`: it may construct objects (a mutating
 * policy's).
 */
export function admissionFieldErrors(expression: string, variables: Variables, opts: { objects?: boolean; types?: ObjectTypes } = {}): string[] {
  const types = opts.types === undefined ? admissionTypes : { ...admissionTypes, ...opts.types };
  const typed = Object.fromEntries(Object.entries(variables).map(([name, type]) => [name, Object.hasOwn(typedVariables, name) ? typedVariables[name]! : type]));
  const roots = Object.entries(typed).filter(([name, type]) => Object.hasOwn(types, type) && new RegExp(`\\b${name}\\b`).test(expression));
  if (roots.length === 0) return [];
  // Every undefined field, as cel-go lists them, found on the expression compiled with those variables dyn.
  const dyn = Object.fromEntries(Object.entries(typed).map(([name, type]) => [name, Object.hasOwn(types, type) ? 'dyn' : type]));
  const objects = opts.objects === true;
  const fields = undefinedFieldErrors(expression, dyn, Object.fromEntries(roots.map(([name, type]) => [name, schemaOf(type, types)])), (s) => s, { nativeFields: true, objects });
  if (fields.length > 0) return fields;
  const { error } = compile(expression, typed, { objects, ...(opts.types === undefined ? {} : { types: opts.types }) });
  return error === undefined ? [] : [error];
}
