// The static types admission CEL expressions see for `request` and `namespaceObject`, as
// upstream's admission CEL compiler declares them (BuildRequestType, BuildNamespaceType): a
// field an expression reads that they do not have is a compile error ("undefined field"),
// refusing the webhook configuration or admission policy when it is written.

import { undefinedFieldErrors } from './type-check.ts';

type Raw = Record<string, unknown>;

const string = { type: 'string' };
const strings = { type: 'array', items: string };
const object = (properties: Raw): Raw => ({ type: 'object', properties });
const groupVersionKind = object({ group: string, version: string, kind: string });
const groupVersionResource = object({ group: string, version: string, resource: string });

/** kubernetes.AdmissionRequest: no uid, object or oldObject (those are variables of their own); `options` dyn. */
const admissionRequest = object({
  kind: groupVersionKind, resource: groupVersionResource, subResource: string,
  requestKind: groupVersionKind, requestResource: groupVersionResource, requestSubResource: string,
  name: string, namespace: string, operation: string,
  userInfo: object({ username: string, uid: string, groups: strings, extra: { type: 'object', additionalProperties: strings } }),
  dryRun: { type: 'boolean' }, options: {},
});

const time = { type: 'string', format: 'date-time' };

/** kubernetes.Namespace: its metadata without managed fields or owners (`UID` spelt so, as upstream's type has it), spec and status. */
const namespace = object({
  metadata: object({
    name: string, generateName: string, namespace: string,
    labels: { type: 'object', additionalProperties: string }, annotations: { type: 'object', additionalProperties: string },
    UID: string, creationTimestamp: time, deletionGracePeriodSeconds: { type: 'integer' }, deletionTimestamp: time,
    generation: { type: 'integer' }, resourceVersion: string, finalizers: strings,
  }),
  spec: object({ finalizers: strings }),
  status: object({
    conditions: { type: 'array', items: object({ status: string, type: string, lastTransitionTime: time, message: string, reason: string }) },
    phase: string,
  }),
});

/**
 * cel-go's checker errors for the fields an admission expression reads from `request` or
 * `namespaceObject` that their types lack (empty when none). `objects`: the expression may
 * construct objects (a mutating policy's).
 */
export function admissionFieldErrors(expression: string, variables: Readonly<Record<string, string>>, opts: { objects?: boolean } = {}): string[] {
  if (!expression.includes('request') && !expression.includes('namespaceObject')) return [];
  return undefinedFieldErrors(expression, variables, { request: admissionRequest, namespaceObject: namespace }, (s) => s, { nativeFields: true, objects: opts.objects === true });
}
