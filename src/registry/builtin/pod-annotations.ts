// The annotations only pods and pod templates have rules for, after kubernetes
// pkg/apis/core/validation (ValidatePodSpecificAnnotations, ValidatePodSpecificAnnotationUpdates):
// the mirror pod annotation, tolerations in the alpha annotation, the deletion cost, the
// seccomp annotations' profiles, and the AppArmor annotations' containers and profiles.
// Go ranges over the annotations as a map: their errors come here in key order.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { goJsonSyntaxError } from '../../api/go-json-syntax.ts';
import { mirrorPodAnnotation } from '../../api/pod-references.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { appendAll, child, forbidden, invalid, key, type FieldPath } from '../validation/field.ts';
import { objectAt, stringAt } from './object.ts';
import { validateTolerations } from './pod-scheduling.ts';
import { localDescendingPath } from './pod-volume-sources.ts';
import { appArmorAnnotationPrefix, podContainers } from './pod-warnings.ts';

const tolerationsAnnotation = 'scheduler.alpha.kubernetes.io/tolerations';
const deletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';
const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';

/** Upstream's GetDeletionCostFromPodAnnotations: whether the annotation, when set, is a canonical 32-bit integer. */
function validDeletionCost(annotations: Record<string, string>): boolean {
  const value = annotations[deletionCostAnnotation];
  if (value === undefined) return true;
  // "+10" and "008" are refused, as Go's ParseInt alone would not.
  if (!/^(-|0$|[1-9])/.test(value) || !/^-?\d+$/.test(value)) return false;
  const n = Number(value);
  return n >= -2147483648 && n <= 2147483647;
}

/**
 * Upstream's AllowInvalidPodDeletionCost for a pod template (GetValidationOptionsFromPodSpecAndMeta):
 * an update whose old template already held an invalid cost may keep one. `oldTemplate` is
 * undefined on create.
 */
export function keepsInvalidDeletionCost(oldTemplate: unknown): boolean {
  const old = objectAt(objectAt(oldTemplate, 'metadata'), 'annotations') ?? {};
  return !validDeletionCost(old as Record<string, string>);
}

/** The Go type of a JSON value, as encoding/json's UnmarshalTypeError names it. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
}

const tolerationStringFields = ['key', 'operator', 'value', 'effect'];

/**
 * json.Unmarshal of the annotation into []core.Toleration: the tolerations, or Go's first
 * error (a syntax error, a value of the wrong type) in its words.
 */
function decodeTolerations(text: string): unknown[] | string {
  const syntax = goJsonSyntaxError(Buffer.from(text));
  if (syntax !== undefined) return syntax;
  const value: unknown = JSON.parse(text);
  if (value === null) return [];
  if (!Array.isArray(value)) return `json: cannot unmarshal ${jsonKind(value)} into Go value of type []core.Toleration`;
  for (const item of value) {
    if (item === null) continue;
    if (!isObject(item)) return `json: cannot unmarshal ${jsonKind(item)} into Go value of type core.Toleration`;
    for (const [field, v] of Object.entries(item)) {
      if (v === null) continue;
      if (tolerationStringFields.includes(field) && typeof v !== 'string') {
        return `json: cannot unmarshal ${jsonKind(v)} into Go struct field Toleration.${field} of type string`;
      }
      if (field === 'tolerationSeconds' && (typeof v !== 'number' || !Number.isInteger(v))) {
        return typeof v === 'number'
          ? `json: cannot unmarshal number ${v} into Go struct field Toleration.${field} of type int64`
          : `json: cannot unmarshal ${jsonKind(v)} into Go struct field Toleration.${field} of type int64`;
      }
    }
  }
  return value;
}

/** Upstream's ValidateSeccompProfile for an annotation's value. */
function validateSeccompProfile(profile: string, path: FieldPath): StatusCause[] {
  if (profile === 'runtime/default' || profile === 'docker/default' || profile === 'unconfined') return [];
  if (profile.startsWith('localhost/')) return localDescendingPath(profile.slice('localhost/'.length), path);
  return [invalid(path, profile, 'must be a valid seccomp profile')];
}

/** Upstream's ValidateAppArmorProfileFormat. */
function appArmorProfileError(profile: string): string | undefined {
  if (profile === '' || profile === 'runtime/default' || profile === 'unconfined' || profile.startsWith('localhost/')) return undefined;
  return `invalid AppArmor profile name: ${JSON.stringify(profile)}`;
}

/**
 * Upstream's ValidatePodSpecificAnnotations for the annotations of a pod or pod template
 * (at `path`) and its spec; `allowInvalidDeletionCost` when an update keeps a cost that
 * was already invalid (upstream's AllowInvalidPodDeletionCost).
 */
export function validatePodSpecificAnnotations(annotations: Record<string, string>, spec: JsonObject, path: FieldPath, allowInvalidDeletionCost = false): StatusCause[] {
  const causes: StatusCause[] = [];
  const mirror = annotations[mirrorPodAnnotation];
  if (mirror !== undefined && stringAt(spec, 'nodeName') === '') {
    causes.push(invalid(key(path, mirrorPodAnnotation), mirror, 'must set spec.nodeName if mirror pod annotation is set'));
  }
  const tolerations = annotations[tolerationsAnnotation];
  if (tolerations !== undefined && tolerations !== '') {
    const decoded = decodeTolerations(tolerations);
    if (typeof decoded === 'string') causes.push(invalid(path, tolerationsAnnotation, decoded));
    else appendAll(causes, validateTolerations(decoded, child(path, tolerationsAnnotation)));
  }
  if (!allowInvalidDeletionCost && !validDeletionCost(annotations)) {
    causes.push(invalid(key(path, deletionCostAnnotation), annotations[deletionCostAnnotation], 'must be a 32bit integer'));
  }
  const keys = Object.keys(annotations).sort();
  // The seccomp annotations' paths are children (`metadata.annotations.seccomp…/pod`), as upstream's.
  if (annotations[seccompPodAnnotation] !== undefined) causes.push(...validateSeccompProfile(annotations[seccompPodAnnotation], child(path, seccompPodAnnotation)));
  for (const k of keys) {
    if (k.startsWith(seccompContainerAnnotationPrefix)) causes.push(...validateSeccompProfile(annotations[k]!, child(path, k)));
  }
  const containers = new Set(podContainers(spec, '').map(({ container }) => stringAt(container, 'name')));
  for (const k of keys) {
    if (!k.startsWith(appArmorAnnotationPrefix)) continue;
    const container = k.slice(appArmorAnnotationPrefix.length);
    if (!containers.has(container)) causes.push(invalid(key(path, k), container, 'container not found'));
    const error = appArmorProfileError(annotations[k]!);
    if (error !== undefined) causes.push(invalid(key(path, k), annotations[k], error));
  }
  return causes;
}

/** A security profile field as the annotation of the old form should say it: `type` or `localhostProfile` when it does not. */
function profileMismatch(annotation: string, profile: JsonObject, names: { unconfined: string; runtimeDefault: readonly string[] }): 'type' | 'localhostProfile' | undefined {
  switch (stringAt(profile, 'type')) {
    case 'Unconfined': return annotation === names.unconfined ? undefined : 'type';
    case 'RuntimeDefault': return names.runtimeDefault.includes(annotation) ? undefined : 'type';
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return 'type';
      return annotation.slice('localhost/'.length) === profile.localhostProfile ? undefined : 'localhostProfile';
    default: return undefined;
  }
}

const seccompNames = { unconfined: 'unconfined', runtimeDefault: ['runtime/default', 'docker/default'] };
const appArmorNames = { unconfined: 'unconfined', runtimeDefault: ['runtime/default'] };

/**
 * Upstream's validateSeccompAnnotationsAndFields and validateAppArmorAnnotationsAndFieldsMatchOnCreate
 * (a new pod, every pod template): where both the old annotation and the field give a
 * container's (or the pod's) seccomp or AppArmor profile, they must say the same.
 */
export function validateSecurityAnnotationsMatchFields(annotations: Record<string, string>, spec: JsonObject, specPath: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const podSecurity = objectAt(spec, 'securityContext');
  const podSeccomp = objectAt(podSecurity, 'seccompProfile');
  const podAnnotation = annotations[seccompPodAnnotation];
  if (podSeccomp !== undefined && podAnnotation !== undefined) {
    const field = profileMismatch(podAnnotation, podSeccomp, seccompNames);
    if (field !== undefined) causes.push(forbidden(child(specPath, 'securityContext', 'seccompProfile', field), `seccomp ${field === 'type' ? 'type' : 'profile'} in annotation and field must match`));
  }
  const containers = podContainers(spec, specPath);
  for (const { container, path } of containers) {
    const seccomp = objectAt(objectAt(container, 'securityContext'), 'seccompProfile');
    const annotation = annotations[seccompContainerAnnotationPrefix + stringAt(container, 'name')];
    if (seccomp === undefined || annotation === undefined) continue;
    const field = profileMismatch(annotation, seccomp, seccompNames);
    if (field !== undefined) causes.push(forbidden(child(path, 'securityContext', 'seccompProfile', field), `seccomp ${field === 'type' ? 'type' : 'profile'} in annotation and field must match`));
  }
  if (stringAt(objectAt(spec, 'os'), 'name') === 'windows') return causes;
  const podAppArmor = objectAt(podSecurity, 'appArmorProfile');
  for (const { container, path } of containers) {
    const appArmor = objectAt(objectAt(container, 'securityContext'), 'appArmorProfile') ?? podAppArmor;
    const annotation = annotations[appArmorAnnotationPrefix + stringAt(container, 'name')];
    if (appArmor === undefined || annotation === undefined) continue;
    const field = profileMismatch(annotation, appArmor, appArmorNames);
    if (field !== undefined) causes.push(forbidden(child(path, 'securityContext', 'appArmorProfile', field), `apparmor ${field === 'type' ? 'type' : 'profile'} in annotation and field must match`));
  }
  return causes;
}

/**
 * Upstream's ValidatePodSpecificAnnotationUpdates: the mirror pod and AppArmor annotations
 * may be neither added, changed nor removed; then the new annotations' own rules, a deletion
 * cost already invalid before allowed to stay so.
 */
export function validatePodSpecificAnnotationUpdates(pod: KubeObject, old: KubeObject): StatusCause[] {
  const path = 'metadata.annotations';
  const next = pod.metadata.annotations ?? {};
  const prev = old.metadata.annotations ?? {};
  const causes: StatusCause[] = [];
  for (const [k, value] of Object.entries(prev)) {
    if (next[k] === value) continue;
    if (k.startsWith(appArmorAnnotationPrefix)) causes.push(forbidden(key(path, k), 'may not remove or update AppArmor annotations'));
    if (k === mirrorPodAnnotation) causes.push(forbidden(key(path, k), 'may not remove or update mirror pod annotation'));
  }
  for (const k of Object.keys(next)) {
    if (k in prev) continue;
    if (k.startsWith(appArmorAnnotationPrefix)) causes.push(forbidden(key(path, k), 'may not add AppArmor annotations'));
    if (k === mirrorPodAnnotation) causes.push(forbidden(key(path, k), 'may not add mirror pod annotation'));
  }
  appendAll(causes, validatePodSpecificAnnotations(next, objectAt(pod, 'spec') ?? {}, path, !validDeletionCost(prev)));
  return causes;
}
