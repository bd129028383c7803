// What kube-apiserver's legacy scheme (pkg/api/legacyscheme) holds, and how a built-in body's group, version and kind decode into the type a URL takes.
import { goQuote } from '../api/field-errors.ts';
import { apiVersionOf, parseGroupVersion } from '../api/index.ts';
import { servedKinds } from './protobuf/roots.ts';

/** The scheme's name, as runtime's not-registered errors give it. */
export const legacySchemeName = 'pkg/api/legacyscheme/scheme.go:30';

/** metav1's unversioned kinds: created whatever the group version says (their Go types). */
const unversionedKinds: Readonly<Record<string, string>> = {
  Status: 'v1.Status', APIVersions: 'v1.APIVersions', APIGroupList: 'v1.APIGroupList', APIGroup: 'v1.APIGroup', APIResourceList: 'v1.APIResourceList',
};

/** What metav1.AddToGroupVersion registers in each group version of the scheme (metav1's Go types). */
const groupVersionKinds: Readonly<Record<string, string>> = {
  WatchEvent: 'v1.WatchEvent', ListOptions: 'v1.ListOptions', GetOptions: 'v1.GetOptions', DeleteOptions: 'v1.DeleteOptions',
  CreateOptions: 'v1.CreateOptions', UpdateOptions: 'v1.UpdateOptions', PatchOptions: 'v1.PatchOptions',
};

/**
 * Kinds the scheme registers besides the served ones (roots.ts): core v1's that no resource
 * takes, and group versions installed though not served. From k8s.io/api's register.go of
 * each (addKnownTypes); flowcontrol's versions from pkg/apis/flowcontrol/install. A group
 * version not listed here is answered as not registered.
 */
const unservedKinds: Readonly<Record<string, string>> = {
  'v1': 'PodStatusResult ServiceProxyOptions NodeConfigSource NodeProxyOptions List PodAttachOptions PodLogOptions PodExecOptions PodPortForwardOptions PodProxyOptions SerializedReference RangeAllocation',
  'apps/v1beta1': 'Deployment DeploymentList DeploymentRollback Scale StatefulSet StatefulSetList ControllerRevision ControllerRevisionList',
  'apps/v1beta2': 'Deployment DeploymentList Scale StatefulSet StatefulSetList DaemonSet DaemonSetList ReplicaSet ReplicaSetList ControllerRevision ControllerRevisionList',
  'autoscaling/v2beta2': 'HorizontalPodAutoscaler HorizontalPodAutoscalerList',
  'batch/v1beta1': 'JobTemplate CronJob CronJobList',
  'coordination.k8s.io/v1beta1': 'Lease LeaseList',
  'flowcontrol.apiserver.k8s.io/v1beta1': 'FlowSchema FlowSchemaList PriorityLevelConfiguration PriorityLevelConfigurationList',
  'flowcontrol.apiserver.k8s.io/v1beta2': 'FlowSchema FlowSchemaList PriorityLevelConfiguration PriorityLevelConfigurationList',
  'flowcontrol.apiserver.k8s.io/v1beta3': 'FlowSchema FlowSchemaList PriorityLevelConfiguration PriorityLevelConfigurationList',
  'networking.k8s.io/v1beta1': 'Ingress IngressList IngressClass IngressClassList IPAddress IPAddressList ServiceCIDR ServiceCIDRList',
  'policy/v1beta1': 'PodDisruptionBudget PodDisruptionBudgetList Eviction',
};

const unservedSets = new Map(Object.entries(unservedKinds).map(([groupVersion, kinds]) => [groupVersion, new Set(kinds.split(' '))]));

/** Groups whose types other servers' schemes decode (apiextensions-apiserver's, kube-aggregator's): none of the legacy scheme's. */
const otherSchemes = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** Whether the legacy scheme decodes bodies of this group (the other servers' groups are decoded by their own schemes). */
export function inLegacyScheme(group: string): boolean {
  return !otherSchemes.has(group);
}

function hasKind(groupVersion: string, kind: string): boolean {
  return (Object.hasOwn(servedKinds, groupVersion) && Object.hasOwn(servedKinds[groupVersion]!, kind)) || unservedSets.get(groupVersion)?.has(kind) === true;
}

/** Whether the scheme installs the group version at all (served or not). */
function installed(groupVersion: string): boolean {
  return Object.hasOwn(servedKinds, groupVersion) || unservedSets.has(groupVersion);
}

/**
 * The Go package of a group's internal types (k8s.io/kubernetes/pkg/apis/<package>), by
 * kind: events.k8s.io's Event is core's, apps' Scale autoscaling's.
 */
function internalPackage(group: string, kind: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  if (group === 'apps' && kind === 'Scale') return 'autoscaling';
  if (group === 'internal.apiserver.k8s.io') return 'apiserverinternal';
  return group.split('.')[0]!;
}

/** The internal Go type a built-in kind of a group is handled as (`core.ConfigMap`, `apps.Deployment`). */
export function internalType(group: string, kind: string): string {
  return `${internalPackage(group, kind)}.${kind}`;
}

/** Whether a kind is one of the group's internal version (any of its versions has it). */
function hasInternalKind(group: string, kind: string): boolean {
  const prefix = group === '' ? '' : `${group}/`;
  for (const groupVersion of [...Object.keys(servedKinds), ...unservedSets.keys()]) {
    const inGroup = group === '' ? !groupVersion.includes('/') : groupVersion.startsWith(prefix);
    if (inGroup && hasKind(groupVersion, kind)) return true;
  }
  return false;
}

/** The Go type the scheme decodes (group, version, kind) into; undefined when it has none. */
function schemeType(group: string, version: string, kind: string): string | undefined {
  if (Object.hasOwn(unversionedKinds, kind)) return unversionedKinds[kind];
  if (otherSchemes.has(group)) return undefined;
  if (version === '__internal') return hasInternalKind(group, kind) ? internalType(group, kind) : undefined;
  const groupVersion = apiVersionOf(group, version);
  if (!installed(groupVersion)) return undefined;
  if (Object.hasOwn(groupVersionKinds, kind)) return groupVersionKinds[kind];
  // A versioned type's package is named for its version (k8s.io/api/<group>/<version>).
  return hasKind(groupVersion, kind) ? `${version}.${kind}` : undefined;
}

/** The type a URL takes: its group, version and kind, and the group versions it accepts besides its own. */
export interface SchemeTarget {
  group: string;
  version: string;
  kind: string;
  /** Other apiVersions the endpoint takes (upstream's AcceptsGroupVersion): pods/eviction's policy/v1beta1. */
  accepts?: readonly string[];
}

export interface BodyTypeRefusal {
  /** The 400's message. */
  message: string;
  /** The body's kind and version as decoded (what it leaves out, the URL's): decoding errors name them. */
  kind: string;
  version: string;
  /** Refused before the body's fields are decoded (its kind is not in the scheme, or it names no version); else after, in conversion. */
  beforeFields: boolean;
}

/**
 * A body of another kind or version than the URL's, refused as upstream's create and update
 * handlers refuse it (400): the body's type, what it leaves out taken from the URL's (json.go's
 * gvkWithDefaults), is looked up in the scheme; a type it has not is refused before decoding
 * (transformDecodeError's words); one it has decodes, and converts into the URL's internal type
 * only if it is that kind in the group (another is an unknown conversion); one that converts
 * must be of a group version the URL accepts. An apiVersion of another group without a
 * version is missing its apiVersion (in the body's words, `bodyText`; undefined where those
 * are not known: nothing is refused then). Undefined when the body decodes into the URL's type,
 * or the URL's type is not in the tables.
 */
export function bodyTypeRefusal(apiVersion: unknown, kind: unknown, target: SchemeTarget, bodyText: () => string | undefined): BodyTypeRefusal | undefined {
  // The body of the URL's own type (nearly every one): nothing to look up.
  if (kind === target.kind && apiVersion === apiVersionOf(target.group, target.version)) return undefined;
  // A type the tables do not know (none served today) is left to the Store's check.
  if (schemeType(target.group, target.version, target.kind) === undefined) return undefined;
  const bodyKind = typeof kind === 'string' && kind !== '' ? kind : target.kind;
  // An apiVersion of more than one '/' (or not a string) was refused in decoding already.
  let { group, version } = (typeof apiVersion === 'string' ? parseGroupVersion(apiVersion) : undefined) ?? { group: '', version: '' };
  if (version === '' && (group === '' || group === target.group)) [group, version] = [target.group, target.version];
  const into = internalType(target.group, target.kind);
  const cannotHandle = (why: string, beforeFields: boolean): BodyTypeRefusal => ({
    message: `${bodyKind} in version ${goQuote(version)} cannot be handled as a ${target.kind}: ${why}`, beforeFields, kind: bodyKind, version,
  });
  if (version === '') {
    const text = bodyText();
    return text === undefined ? undefined : cannotHandle(`Object 'apiVersion' is missing in '${text}'`, true);
  }
  const goType = schemeType(group, version, bodyKind);
  if (goType === undefined) {
    const where = version === '__internal' ? `the internal version of group ${goQuote(group)}` : `version ${goQuote(apiVersionOf(group, version))}`;
    return cannotHandle(`no kind ${goQuote(bodyKind)} is registered for ${where} in scheme ${goQuote(legacySchemeName)}`, true);
  }
  // The internal type itself (group/__internal) is decoded into without conversion.
  const converts = goType === into || (!Object.hasOwn(unversionedKinds, bodyKind) && !Object.hasOwn(groupVersionKinds, bodyKind) && internalType(group, bodyKind) === into);
  if (!converts) return cannotHandle(`converting (${goType}) to (${into}): unknown conversion`, false);
  const bodyVersion = apiVersionOf(group, version);
  if (bodyVersion === apiVersionOf(target.group, target.version) || target.accepts?.includes(bodyVersion) === true) return undefined;
  const expected = apiVersionOf(target.group, target.version);
  return { message: `the API version in the data (${bodyVersion}) does not match the expected API version (${expected})`, beforeFields: false, kind: bodyKind, version };
}
