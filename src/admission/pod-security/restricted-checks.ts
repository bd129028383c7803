// The Restricted checks of the Pod Security Standards, with their per-version revisions,
// the Baseline checks each replaces, and upstream's exact reasons and details
// (policy/check_*.go of k8s.io/pod-security-admission as in release-1.36).
import { appendAll } from '../../api/field-errors.ts';
import { isObject } from '../../api/json.ts';
import { explicitlyBadSeccomp, procMountDefaultOnly } from './baseline-checks.ts';
import {
  containersOf, containersPhrase, inUserNamespace, isWindowsPod, joinQuote, nameOf, objectAt, objects, pluralize, securityContextOf, sortedSet, stringAt,
  type Check, type CheckPod,
} from './check.ts';

/** From v1.25 a Windows pod passes the checks of settings Windows has no use for. */
function exceptWindows(check: CheckPod): CheckPod {
  return (metadata, spec) => (isWindowsPod(spec) ? undefined : check(metadata, spec));
}

/** From v1.35 a pod in a user namespace passes the checks of who it runs as (KEP-127). */
function exceptUserNamespace(check: CheckPod): CheckPod {
  return (metadata, spec) => (inUserNamespace(spec) ? undefined : check(metadata, spec));
}

const allowPrivilegeEscalation: CheckPod = (_metadata, spec) => {
  const bad = containersOf(spec).filter((c) => securityContextOf(c)?.allowPrivilegeEscalation !== false).map(nameOf);
  return bad.length === 0 ? undefined : {
    reason: 'allowPrivilegeEscalation != false',
    detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
  };
};

const capabilitiesRestricted: CheckPod = (_metadata, spec) => {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden: string[] = [];
  for (const container of containersOf(spec)) {
    const capabilities = objectAt(container, 'securityContext', 'capabilities');
    if (capabilities === undefined) {
      missingDropAll.push(nameOf(container));
      continue;
    }
    const drop = Array.isArray(capabilities.drop) ? capabilities.drop : [];
    if (!drop.includes('ALL')) missingDropAll.push(nameOf(container));
    const added = (Array.isArray(capabilities.add) ? capabilities.add : []).map(String).filter((c) => c !== 'NET_BIND_SERVICE');
    if (added.length > 0) {
      addingForbidden.push(nameOf(container));
      appendAll(forbidden, added);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  return details.length === 0 ? undefined : { reason: 'unrestricted capabilities', detail: details.join('; ') };
};

/** The inline volume sources restricted allows; anything else is named by the first of `restrictedVolumeTypes` it has. */
const allowedVolumeSources = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
const restrictedVolumeTypes = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs',
  'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];

const restrictedVolumes: CheckPod = (_metadata, spec) => {
  const badVolumes: string[] = [];
  const types: string[] = [];
  for (const volume of objects(spec.volumes)) {
    if (allowedVolumeSources.some((source) => isObject(volume[source]))) continue;
    badVolumes.push(stringAt(volume, 'name'));
    types.push(restrictedVolumeTypes.find((type) => isObject(volume[type])) ?? 'unknown');
  }
  if (badVolumes.length === 0) return undefined;
  const sorted = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', badVolumes.length)} ${joinQuote(badVolumes)} ${pluralize('uses', 'use', badVolumes.length)} ` +
      `${pluralize('restricted volume type', 'restricted volume types', sorted.length)} ${joinQuote(sorted)}`,
  };
};

const runAsNonRoot: CheckPod = (_metadata, spec) => {
  const podSetting = objectAt(spec, 'securityContext')?.runAsNonRoot;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const container of containersOf(spec)) {
    const setting = securityContextOf(container)?.runAsNonRoot;
    if (typeof setting === 'boolean') {
      if (!setting) explicitlyBad.push(nameOf(container));
    } else if (podSetting !== true) {
      implicitlyBad.push(nameOf(container));
    }
  }
  const who = podSetting === false ? ['pod'] : [];
  if (explicitlyBad.length > 0) who.push(containersPhrase(explicitlyBad));
  if (who.length > 0) return { reason: 'runAsNonRoot != true', detail: `${who.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicitlyBad.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: CheckPod = (_metadata, spec) => {
  const who = objectAt(spec, 'securityContext')?.runAsUser === 0 ? ['pod'] : [];
  const bad = containersOf(spec).filter((c) => securityContextOf(c)?.runAsUser === 0).map(nameOf);
  if (bad.length > 0) who.push(containersPhrase(bad));
  return who.length === 0 ? undefined : { reason: 'runAsUser=0', detail: `${who.join(' and ')} must not set runAsUser=0` };
};

const seccompProfileRestricted: CheckPod = (_metadata, spec) => {
  const explicit = explicitlyBadSeccomp(spec);
  if (explicit !== undefined) return explicit;
  // The pod-level profile, valid when set (else it was reported above), covers the containers that set none.
  if (objectAt(spec, 'securityContext', 'seccompProfile') !== undefined) return undefined;
  const unset = containersOf(spec).filter((c) => objectAt(c, 'securityContext', 'seccompProfile') === undefined).map(nameOf);
  return unset.length === 0 ? undefined : {
    reason: 'seccompProfile',
    detail: `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
  };
};

export const restrictedChecks: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation', level: 'restricted',
    versions: [{ minimumVersion: 8, checkPod: allowPrivilegeEscalation }, { minimumVersion: 25, checkPod: exceptWindows(allowPrivilegeEscalation) }],
  },
  {
    id: 'capabilities_restricted', level: 'restricted',
    versions: [
      { minimumVersion: 22, checkPod: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minimumVersion: 25, checkPod: exceptWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  // Baseline relaxes procMount for user namespaces from v1.35; restricted keeps the default only.
  { id: 'procMount_restricted', level: 'restricted', versions: [{ minimumVersion: 35, checkPod: procMountDefaultOnly, overrides: ['procMount'] }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: 0, checkPod: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  {
    id: 'runAsNonRoot', level: 'restricted',
    versions: [{ minimumVersion: 0, checkPod: runAsNonRoot }, { minimumVersion: 35, checkPod: exceptUserNamespace(runAsNonRoot) }],
  },
  {
    id: 'runAsUser', level: 'restricted',
    versions: [{ minimumVersion: 23, checkPod: runAsUser }, { minimumVersion: 35, checkPod: exceptUserNamespace(runAsUser) }],
  },
  {
    id: 'seccompProfile_restricted', level: 'restricted',
    versions: [
      { minimumVersion: 19, checkPod: seccompProfileRestricted, overrides: ['seccompProfile_baseline'] },
      { minimumVersion: 25, checkPod: exceptWindows(seccompProfileRestricted), overrides: ['seccompProfile_baseline'] },
    ],
  },
];
