// A new Pod's deprecated AppArmor annotations turned into the appArmorProfile fields, after
// kubernetes pkg/registry/core/pod/strategy.go (applyAppArmorVersionSkew, which its
// PrepareForCreate runs) and pkg/api/pod/util.go (ApparmorFieldForAnnotation). The warning
// for such an annotation is given here, before the fields are synced, rather than among the
// Pod's other warnings (those skip the AppArmor annotations of Pods).

import type { KubeObject } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { addWarning } from '../../api/request-context.ts';
import { key } from '../validation/field.ts';
import { ensureObject, objectAt, present, semanticEqual, stringAt } from './object.ts';
import { appArmorAnnotationPrefix, podContainers } from './pod-warnings.ts';

/** PATH_MAX - 1: the longest localhost profile validation accepts. */
const maxLocalhostProfileLength = 4095;

/**
 * The profile an annotation stands for (ApparmorFieldForAnnotation), undefined when it names
 * none, or one validation would refuse (ValidateAppArmorProfileField).
 */
function profileOfAnnotation(annotation: string): JsonObject | undefined {
  if (annotation === 'unconfined') return { type: 'Unconfined' };
  if (annotation === 'runtime/default') return { type: 'RuntimeDefault' };
  if (!annotation.startsWith('localhost/')) return undefined;
  const localhostProfile = annotation.slice('localhost/'.length);
  const valid = localhostProfile !== '' && localhostProfile.trim() === localhostProfile && Buffer.byteLength(localhostProfile) <= maxLocalhostProfileLength;
  return valid ? { type: 'Localhost', localhostProfile } : undefined;
}

/**
 * Upstream's applyAppArmorVersionSkew: each container with an AppArmor annotation and no
 * profile field gets the annotation's profile, unless it is the pod's own; the annotation is
 * warned of when it was synced or names no valid profile. Windows pods are left alone.
 */
export function applyAppArmorVersionSkew(pod: KubeObject): void {
  const spec = objectAt(pod, 'spec') ?? {};
  if (stringAt(objectAt(spec, 'os'), 'name') === 'windows') return;
  const annotations = pod.metadata.annotations ?? {};
  const podProfile = objectAt(objectAt(spec, 'securityContext'), 'appArmorProfile');
  for (const { container } of podContainers(spec, 'spec')) {
    const annotation = appArmorAnnotationPrefix + stringAt(container, 'name');
    if (!Object.hasOwn(annotations, annotation) || present(objectAt(container, 'securityContext')?.appArmorProfile)) continue;
    const profile = profileOfAnnotation(String(annotations[annotation]));
    if (profile !== undefined && semanticEqual(profile, podProfile)) continue;
    if (profile !== undefined) ensureObject(container, 'securityContext').appArmorProfile = profile;
    addWarning(`${key('metadata.annotations', annotation)}: deprecated since v1.30; use the "appArmorProfile" field instead`);
  }
}
