// Node declared features as v1.36 knows them (upstream's component-helpers
// nodedeclaredfeatures): what a kubelet writes into its Node's `status.declaredFeatures`,
// what an update of a pod bound to a node needs the node to declare, and whether it does.
//
// v1.36's registry, and only it: `GuaranteedQoSPodCPUResize` was removed in v1.36
// (kubernetes#136759); `DRANodeAllocatableResources` and `UserNamespacesHostNetworkSupport`
// joined after it. None of v1.36's features has a maximum version, so a v1.36 server
// requires, and a v1.36 kubelet declares, every one of them.
import { deepEqualNullAsAbsent, isObject, type JsonObject } from './json.ts';
import { sameResourceRequirements } from './quantity.ts';
import type { KubeObject } from './types.ts';

export interface DeclaredFeature {
  /** The name a node declares. */
  name: string;
  /** The kubelet feature gate under which the kubelet declares it. */
  gate: string;
  /** The gate's default in v1.36: a kubelet with default gates declares the feature when it is on. */
  gateOnByDefault: boolean;
  /** Whether updating a bound pod from `old` to `updated` needs a node that declares it. */
  neededByUpdate(old: KubeObject, updated: KubeObject): boolean;
}

function specOf(pod: KubeObject): JsonObject {
  return isObject(pod.spec) ? pod.spec : {};
}

function itemsOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

const absent = (value: unknown) => value === undefined || value === null;

/** A pod's own resources (`spec.resources`) change: present in either, and not the same. */
function podLevelResourcesChange(old: KubeObject, updated: KubeObject): boolean {
  const [before, after] = [specOf(old).resources, specOf(updated).resources];
  if (absent(before) && absent(after)) return false;
  if (!isObject(before) || !isObject(after)) return true;
  return !sameResourceRequirements(before, after);
}

/** A sidecar: an init container that keeps running (restartPolicy Always). */
function isSidecar(container: JsonObject): boolean {
  return container.restartPolicy === 'Always';
}

/**
 * An init container that is no sidecar has its resources changed, compared as Go's
 * reflect.DeepEqual compares the decoded structs: no resources and `{}` are one, an empty
 * map differs from none.
 */
function nonSidecarInitContainerResized(old: KubeObject, updated: KubeObject): boolean {
  const after = itemsOf(specOf(updated).initContainers);
  return itemsOf(specOf(old).initContainers).some((container, i) =>
    !isSidecar(container) && !deepEqualNullAsAbsent(container.resources ?? {}, after[i]?.resources ?? {}));
}

const never = () => false;

/** v1.36's features, sorted by name as upstream's framework keeps them. */
export const declaredFeatures: readonly DeclaredFeature[] = [
  // Exec, attach and port-forward streams go to the kubelet over WebSockets; no pod asks for it.
  { name: 'ExtendWebSocketsToKubelet', gate: 'ExtendWebSocketsToKubelet', gateOnByDefault: true, neededByUpdate: never },
  { name: 'InPlacePodLevelResourcesVerticalScaling', gate: 'InPlacePodLevelResourcesVerticalScaling', gateOnByDefault: true, neededByUpdate: podLevelResourcesChange },
  { name: 'InPlacePodVerticalScalingInitContainers', gate: 'InPlacePodVerticalScalingInitContainers', gateOnByDefault: true, neededByUpdate: nonSidecarInitContainerResized },
  // Scheduling needs it (a RestartAllContainers rule); restart rules cannot change on update.
  { name: 'RestartAllContainersOnContainerExits', gate: 'RestartAllContainersOnContainerExits', gateOnByDefault: true, neededByUpdate: never },
];

/** What a kubelet declares with these gates on: the features it discovers, sorted as it writes them. */
export function discoverNodeFeatures(gateOn: (gate: string) => boolean): string[] {
  return declaredFeatures.filter((feature) => gateOn(feature.gate)).map((feature) => feature.name).sort();
}

/** What a v1.36 kubelet with default gates declares. */
export function defaultNodeFeatures(): string[] {
  return discoverNodeFeatures((gate) => declaredFeatures.some((feature) => feature.gate === gate && feature.gateOnByDefault));
}

/** The features (by name, sorted) that updating a bound pod from `old` to `updated` needs of its node. */
export function featuresNeededByUpdate(old: KubeObject, updated: KubeObject): string[] {
  return declaredFeatures.filter((feature) => feature.neededByUpdate(old, updated)).map((feature) => feature.name);
}

/**
 * Which of `needed` a node lacks, in the registry's order; as upstream's framework maps the
 * node's list, it is read as sorted and a name the registry does not know is an error
 * (`unknown feature X`), thrown as an Error.
 */
export function missingFeatures(needed: readonly string[], node: KubeObject): string[] {
  const status = isObject(node.status) ? node.status : {};
  const declared = (Array.isArray(status.declaredFeatures) ? status.declaredFeatures : []).map(String);
  const known = declaredFeatures.map((feature) => feature.name);
  const present = new Set<string>();
  // Both lists walked together, as upstream's FeatureMapper.MapSorted does.
  let [i, j] = [0, 0];
  while (i < declared.length && j < known.length) {
    if (declared[i] === known[j]) {
      present.add(declared[i]!);
      i++;
      j++;
    } else if (declared[i]! < known[j]!) {
      throw new Error(`unknown feature ${declared[i]}`);
    } else {
      j++;
    }
  }
  if (i < declared.length) throw new Error(`unknown feature ${declared[i]}`);
  return known.filter((name) => needed.includes(name) && !present.has(name));
}
