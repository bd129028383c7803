// What a valid pod or pod template is warned of, after kubernetes pkg/api/pod/warnings.go
// (GetWarningsForPod, GetWarningsForPodTemplate): deprecated node labels, annotations and
// volume plugins, values that are likely mistakes (duplicates, fractional bytes, ports that
// overlap), and IP addresses a later release will refuse. The order is upstream's, map
// keys (nodeSelector) sorted where upstream's order is a Go map's.

import type { KubeObject } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { appendAll, child, goQuote, index, key, type FieldPath } from '../validation/field.ts';
import { isDNS1123Label } from '../validation/names.ts';
import { ipWarnings } from '../validation/ip.ts';
import { nodeLabelDeprecatedMessage, nodeSelectorTermWarnings } from './node-label-warnings.ts';
import { arrayAt, itemsAt, numberAt, objectAt, present, stringAt } from './object.ts';
import { deprecatedVolumePluginWarnings, fractionalBytesWarnings, isWholeBytes, persistentVolumeClaimSpecWarnings } from './storage-warnings.ts';
import { overlappingVolumePathWarnings } from './volume-path-warnings.ts';

/** The annotation that once set a container's AppArmor profile, by container name. */
export const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';
const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';
const seccompAnnotationMessage = 'non-functional in v1.27+; use the "seccompProfile" field instead';

const deprecatedAnnotations: readonly (readonly [annotation: string, message: string])[] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

const nullLabelSelector = 'a null labelSelector results in matching no pod';

/** The resources counted in bytes, which should be whole numbers. */
const fractionalResources = ['memory', 'ephemeral-storage'];

/** A pod spec's containers with their paths, in upstream's VisitContainersWithPath order: init, regular, ephemeral. */
export function podContainers(spec: unknown, specPath: FieldPath): { container: JsonObject; path: FieldPath }[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((list) =>
    itemsAt(spec, list).map((container, i) => ({ container, path: index(child(specPath, list), i) })));
}

/** A pod's or template's spec and annotations, and `path`, the template's ("" for a Pod), which their warnings' paths start with. */
interface PodShape {
  path: FieldPath;
  spec: JsonObject;
  annotations: Record<string, unknown>;
  /** The AppArmor annotations are warned of in templates only (a Pod's are turned into fields, see pod-apparmor.ts). */
  isTemplate: boolean;
}

/** Deprecated node labels in the node selector, node affinity and topology spread constraints, and null selectors there. */
function schedulingWarnings({ path, spec }: PodShape): string[] {
  const warnings: string[] = [];
  const nodeSelector = objectAt(spec, 'nodeSelector') ?? {};
  for (const label of Object.keys(nodeSelector).sort()) {
    const deprecated = nodeLabelDeprecatedMessage(label);
    if (deprecated !== undefined) warnings.push(`${key(child(path, 'spec', 'nodeSelector'), label)}: ${deprecated}`);
  }
  const nodeAffinity = objectAt(objectAt(spec, 'affinity'), 'nodeAffinity');
  const nodeAffinityPath = child(path, 'spec', 'affinity', 'nodeAffinity');
  const required = objectAt(nodeAffinity, 'requiredDuringSchedulingIgnoredDuringExecution');
  itemsAt(required, 'nodeSelectorTerms').forEach((term, i) => {
    appendAll(warnings, nodeSelectorTermWarnings(term, false, index(child(nodeAffinityPath, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'), i)));
  });
  itemsAt(nodeAffinity, 'preferredDuringSchedulingIgnoredDuringExecution').forEach((term, i) => {
    appendAll(warnings, nodeSelectorTermWarnings(term.preference, true, child(index(child(nodeAffinityPath, 'preferredDuringSchedulingIgnoredDuringExecution'), i), 'preference')));
  });
  itemsAt(spec, 'topologySpreadConstraints').forEach((constraint, i) => {
    const p = index(child(path, 'spec', 'topologySpreadConstraints'), i);
    const topologyKey = stringAt(constraint, 'topologyKey');
    const deprecated = nodeLabelDeprecatedMessage(topologyKey);
    if (deprecated !== undefined) warnings.push(`${child(p, 'topologyKey')}: ${topologyKey} is ${deprecated}`);
    if (!present(constraint.labelSelector)) warnings.push(`${child(p, 'labelSelector')}: ${nullLabelSelector}`);
  });
  return warnings;
}

/** Deprecated and removed volume plugins, an ephemeral volume's claim, files mapped onto each other. */
function volumeWarnings({ path, spec }: PodShape): string[] {
  const volumes = itemsAt(spec, 'volumes');
  const warnings = volumes.flatMap((volume, i) => {
    const p = index(child(path, 'spec', 'volumes'), i);
    const claimTemplate = objectAt(objectAt(volume, 'ephemeral'), 'volumeClaimTemplate');
    return [
      ...deprecatedVolumePluginWarnings(volume, ['photonPersistentDisk', 'gitRepo', 'scaleIO', 'flocker', 'storageos', 'quobyte', 'glusterfs'], p),
      ...(claimTemplate === undefined ? [] : persistentVolumeClaimSpecWarnings(claimTemplate.spec, child(p, 'ephemeral', 'volumeClaimTemplate', 'spec'))),
      ...deprecatedVolumePluginWarnings(volume, ['cephfs', 'rbd'], p),
    ];
  });
  return [...warnings, ...overlappingVolumePathWarnings(volumes)];
}

/** The indices of the items whose `field` repeats an earlier item's, as upstream's duplicate checks find them. */
function repeatedAt(list: readonly JsonObject[], field: string): number[] {
  const seen = new Set<string>();
  return list.flatMap((item, i) => {
    const value = stringAt(item, field);
    if (seen.has(value)) return [i];
    seen.add(value);
    return [];
  });
}

/** Duplicate host alias IPs and image pull secrets, pull secrets without a name. */
function duplicateWarnings({ path, spec }: PodShape): string[] {
  const aliases = itemsAt(spec, 'hostAliases');
  const aliasesPath = child(path, 'spec', 'hostAliases');
  const secrets = itemsAt(spec, 'imagePullSecrets');
  const secretsPath = child(path, 'spec', 'imagePullSecrets');
  return [
    ...repeatedAt(aliases, 'ip').map((i) => `${child(index(aliasesPath, i), 'ip')}: duplicate ip ${goQuote(stringAt(aliases[i], 'ip'))}`),
    ...repeatedAt(secrets, 'name').map((i) => `${child(index(secretsPath, i), 'name')}: duplicate name ${goQuote(stringAt(secrets[i], 'name'))}`),
    ...secrets.flatMap((secret, i) => (stringAt(secret, 'name') === '' ? [`${child(index(secretsPath, i), 'name')}: invalid empty name ""`] : [])),
  ];
}

/** An env var that hides an earlier one of its name, unless it refers to it (`X=$(X)suffix`). */
function duplicateEnvWarnings(container: JsonObject, path: FieldPath): string[] {
  const env = itemsAt(container, 'env');
  return repeatedAt(env, 'name').flatMap((i) => {
    const name = stringAt(env[i], 'name');
    const value = stringAt(env[i], 'value');
    const ref = `$(${name})`;
    const hides = present(env[i]!.valueFrom) || value === ref || !value.includes(ref);
    return hides ? [`${index(child(path, 'env'), i)}: hides previous definition of ${goQuote(name)}, which may be dropped when using apply`] : [];
  });
}

/** Seccomp and AppArmor annotations without their fields, fractional resources, hidden env vars: each container's. */
function containerWarnings({ path, spec, annotations, isTemplate }: PodShape): string[] {
  const annotationsPath = child(path, 'metadata', 'annotations');
  const podSecurity = objectAt(spec, 'securityContext');
  return podContainers(spec, child(path, 'spec')).flatMap(({ container, path: p }) => {
    const warnings: string[] = [];
    const name = stringAt(container, 'name');
    const security = objectAt(container, 'securityContext');
    const seccompAnnotation = seccompContainerAnnotationPrefix + name;
    if (!present(security?.seccompProfile) && Object.hasOwn(annotations, seccompAnnotation)) {
      warnings.push(`${key(annotationsPath, seccompAnnotation)}: ${seccompAnnotationMessage}`);
    }
    const appArmorAnnotation = appArmorAnnotationPrefix + name;
    const hasAppArmorField = present(podSecurity?.appArmorProfile) || present(security?.appArmorProfile);
    if (isTemplate && !hasAppArmorField && Object.hasOwn(annotations, appArmorAnnotation)) {
      warnings.push(`${key(annotationsPath, appArmorAnnotation)}: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    const resources = objectAt(container, 'resources');
    for (const resource of fractionalResources) {
      for (const kind of ['limits', 'requests']) {
        const value = objectAt(resources, kind)?.[resource];
        if (!isWholeBytes(value)) appendAll(warnings, fractionalBytesWarnings(value, key(child(p, 'resources', kind), resource)));
      }
    }
    return [...warnings, ...duplicateEnvWarnings(container, p)];
  });
}

/** Go's %+v of a core.ContainerPort, the fields in declaration order. */
function goContainerPort(port: JsonObject): string {
  const fields = [
    `Name:${stringAt(port, 'name')}`, `HostPort:${numberAt(port, 'hostPort') ?? 0}`, `ContainerPort:${numberAt(port, 'containerPort') ?? 0}`,
    `Protocol:${stringAt(port, 'protocol')}`, `HostIP:${stringAt(port, 'hostIP')}`,
  ];
  return `{${fields.join(' ')}}`;
}

/** A host IP without host port, ports that duplicate, overlap or ambiguously share a container port, names used twice. */
function portWarnings({ path, spec }: PodShape): string[] {
  const warnings: string[] = [];
  const ports = podContainers(spec, child(path, 'spec')).flatMap(({ container, path: p }) =>
    itemsAt(container, 'ports').map((port, i) => ({ port, path: index(child(p, 'ports'), i) })));
  const byContainerPort = new Map<string, typeof ports>();
  for (const entry of ports) {
    const { port, path: p } = entry;
    const hostIP = stringAt(port, 'hostIP');
    const hostPort = numberAt(port, 'hostPort') ?? 0;
    if (hostIP !== '' && hostPort === 0) warnings.push(`${p}: hostIP set without hostPort: ${goContainerPort(port)}`);
    const containerPort = `${numberAt(port, 'containerPort') ?? 0}/${stringAt(port, 'protocol')}`;
    const others = byContainerPort.get(containerPort) ?? [];
    for (const other of others) {
      const otherHostIP = stringAt(other.port, 'hostIP');
      const otherHostPort = numberAt(other.port, 'hostPort') ?? 0;
      if (hostIP === otherHostIP && hostPort === otherHostPort) warnings.push(`${p}: duplicate port definition with ${other.path}`);
      else if (hostPort === 0 || otherHostPort === 0) warnings.push(`${p}: overlapping port definition with ${other.path}`);
      else if (hostPort === otherHostPort && (hostIP === '') !== (otherHostIP === '')) warnings.push(`${p}: dangerously ambiguous port definition with ${other.path}`);
    }
    byContainerPort.set(containerPort, [...others, entry]);
  }
  const byName = new Map<string, FieldPath>();
  for (const { port, path: p } of ports) {
    const name = stringAt(port, 'name');
    if (name === '') continue;
    const first = byName.get(name);
    if (first === undefined) byName.set(name, p);
    else warnings.push(`${p}: duplicate port name ${goQuote(name)} with ${first}, services and probes that select ports by name will use ${first}`);
  }
  return warnings;
}

/** Pod (anti-)affinity terms whose null label selector matches no pod. */
function podAffinityWarnings({ path, spec }: PodShape): string[] {
  const affinity = objectAt(spec, 'affinity');
  return ['podAffinity', 'podAntiAffinity'].flatMap((kind) => {
    const terms = objectAt(affinity, kind);
    const termsPath = child(path, 'spec', 'affinity', kind);
    return [
      ...itemsAt(terms, 'requiredDuringSchedulingIgnoredDuringExecution').flatMap((term, i) => (present(term.labelSelector)
        ? [] : [`${child(index(child(termsPath, 'requiredDuringSchedulingIgnoredDuringExecution'), i), 'labelSelector')}: ${nullLabelSelector}`])),
      ...itemsAt(terms, 'preferredDuringSchedulingIgnoredDuringExecution').flatMap((term, i) => (present(objectAt(term, 'podAffinityTerm')?.labelSelector)
        ? [] : [`${child(index(child(termsPath, 'preferredDuringSchedulingIgnoredDuringExecution'), i), 'podAffinityTerm', 'labelSelector')}: ${nullLabelSelector}`])),
    ];
  });
}

/** Upstream's warningsForPodSpecAndMeta, in its order. */
function podShapeWarnings(shape: PodShape): string[] {
  const { path, spec, annotations } = shape;
  const annotationsPath = child(path, 'metadata', 'annotations');
  const overhead = objectAt(spec, 'overhead');
  const seccompAnnotationWithoutField = !present(objectAt(spec, 'securityContext')?.seccompProfile) && Object.hasOwn(annotations, seccompPodAnnotation);
  const gracePeriod = numberAt(spec, 'terminationGracePeriodSeconds');
  return [
    ...schedulingWarnings(shape),
    ...deprecatedAnnotations.flatMap(([annotation, message]) => (Object.hasOwn(annotations, annotation) ? [`${key(annotationsPath, annotation)}: ${message}`] : [])),
    ...volumeWarnings(shape),
    ...duplicateWarnings(shape),
    ...fractionalResources.flatMap((resource) => fractionalBytesWarnings(overhead?.[resource], key(child(path, 'spec', 'overhead'), resource))),
    ...(seccompAnnotationWithoutField ? [`${key(annotationsPath, seccompPodAnnotation)}: ${seccompAnnotationMessage}`] : []),
    ...containerWarnings(shape),
    ...portWarnings(shape),
    ...(gracePeriod !== undefined && gracePeriod < 0
      ? [`${child(path, 'spec', 'terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`] : []),
    ...podAffinityWarnings(shape),
    // KEP-4858: IPs in forms a later release will refuse, or IPv6 not in canonical form.
    ...arrayAt(objectAt(spec, 'dnsConfig'), 'nameservers').flatMap((ns, i) => ipWarnings(index(child(path, 'spec', 'dnsConfig', 'nameservers'), i), String(ns))),
    ...itemsAt(spec, 'hostAliases').flatMap((alias, i) => ipWarnings(child(index(child(path, 'spec', 'hostAliases'), i), 'ip'), stringAt(alias, 'ip'))),
  ];
}

/** Upstream's GetWarningsForPodTemplate; `path` is the template's ("template", "spec.template"). */
export function podTemplateWarnings(template: unknown, path: FieldPath): string[] {
  if (!isObject(template)) return [];
  return podShapeWarnings({
    path,
    spec: objectAt(template, 'spec') ?? {},
    annotations: objectAt(objectAt(template, 'metadata'), 'annotations') ?? {},
    isTemplate: true,
  });
}

/** `metadata.name` that is no DNS label, which a hostname made of it must be; `usage` says how it is used. */
function hostnameWarnings(name: string, usage: string): string[] {
  const msgs = isDNS1123Label(name);
  return msgs.length === 0 ? [] : [`metadata.name: this is used in ${usage}, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
}

/** A Pod's WarningsOnCreate (pkg/registry/core/pod/strategy.go): its name, then GetWarningsForPod. Upstream warns of no Pod update. */
export function podWarnings(pod: KubeObject): string[] {
  return [
    ...hostnameWarnings(pod.metadata.name ?? '', "the Pod's hostname"),
    ...podShapeWarnings({ path: '', spec: objectAt(pod, 'spec') ?? {}, annotations: pod.metadata.annotations ?? {}, isTemplate: false }),
  ];
}

/** The name warning of controllers whose pods are named after them (ReplicaSets, Deployments, Jobs, ...). */
export function podNamePrefixWarnings(obj: KubeObject): string[] {
  return hostnameWarnings(obj.metadata.name ?? '', 'Pod names and hostnames');
}

/** Controllers warn of an update only when it bumped the generation (upstream's WarningsOnUpdate of their strategies). */
export function whenGenerationChanged(obj: KubeObject, old: KubeObject, warnings: () => string[]): string[] {
  return obj.metadata.generation === old.metadata.generation ? [] : warnings();
}
