// NodeDeclaredFeatureValidator admission (upstream's plugin/pkg/admission/nodedeclaredfeatures,
// on by default in v1.36 with its NodeDeclaredFeatures gate): an update of a pod bound to a
// node that changed its spec (the generation moved), through the pod or pods/resize, must not
// need a feature the node does not declare in `status.declaredFeatures` (resizing pod-level
// resources, or an init container that is no sidecar).
//
// Upstream's plugin waits for its node informer and refuses with "not yet ready to handle
// request" until it has synced; here nodes are read from the watch cache, as PodResizeValidator
// and PodTopologyLabels read them, which is never behind in that way. Its ResourceSlice checks
// (DRANodeAllocatableResources) came after v1.36.
import { nodeNameOf } from '../api/pod-references.ts';
import { featuresNeededByUpdate, missingFeatures } from '../api/node-declared-features.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';
import type { NodeLookup } from './pod-resize-validator.ts';

/** Updates of a bound pod, itself or through pods/resize, that changed its spec. */
function applies(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== 'UPDATE' || attrs.group !== '' || attrs.resource !== 'pods') return false;
  if (attrs.subresource !== '' && attrs.subresource !== 'resize') return false;
  const { object, oldObject } = attrs;
  return object !== undefined && oldObject !== undefined && nodeNameOf(object) !== '' && object.metadata.generation !== oldObject.metadata.generation;
}

async function validate(nodes: NodeLookup, attrs: AdmissionAttributes): Promise<void> {
  const needed = featuresNeededByUpdate(attrs.oldObject!, attrs.object!);
  // As upstream, the node is looked up only when the update needs something of it.
  if (needed.length === 0) return;
  const name = nodeNameOf(attrs.object!);
  let node;
  try {
    node = await nodes.get(name);
  } catch (err) {
    throw admissionForbidden(attrs, `failed to get node "${name}": ${(err as Error).message}`);
  }
  if (node === undefined) throw admissionForbidden(attrs, `node "${name}" not found`);
  let missing: string[];
  try {
    missing = missingFeatures(needed, node);
  } catch (err) {
    throw admissionForbidden(attrs, `failed to match pod requirements against node "${name}": ${(err as Error).message}`);
  }
  if (missing.length > 0) throw admissionForbidden(attrs, `pod update requires features ${missing.join(', ')} which are not available on node "${name}"`);
}

/** `enabled`: the NodeDeclaredFeatures gate; off, the plugin is in the chain and checks nothing, as upstream's. */
export function nodeDeclaredFeatureValidator(nodes: NodeLookup, enabled: boolean): AdmissionPlugin {
  return {
    name: 'NodeDeclaredFeatureValidator',
    ...(enabled ? { validate: unless((attrs) => !applies(attrs), (attrs) => validate(nodes, attrs)) } : {}),
  };
}
