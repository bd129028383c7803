// The scale subresource: an autoscaling/v1 Scale view of a scalable object, read and
// written through the object itself (upstream's ScaleREST, e.g.
// pkg/registry/apps/deployment/storage/storage.go).

import { badRequest, conflict, invalid, notFound, type KubeObject, type StatusCause } from '../api/index.ts';
import { objectMetaDecodeError } from '../api/go-object-meta.ts';
import type { NumberForms } from '../api/number-forms.ts';
import { clone } from '../api/json.ts';
import { apply, applyConflictError, compileTopology, parentEntriesOf, scaleApiVersion, scaleEntriesOf, updateManagedFields, type ManagedFieldsScope } from '../apply/index.ts';
import { builtinDefinitions, goDecoding, goTypeError, prune, schemaRef, type GoDecoding } from '../schema/index.ts';
import { strictDecodingErrors } from './field-validation.ts';
import type { ScaleAccess } from './resource-type.ts';
import type { AdmissionView, Store, WriteOptions } from './store.ts';

const scaleGroupVersion = { group: 'autoscaling', version: 'v1' };
const scaleSchema = { $ref: schemaRef('io.k8s.api.autoscaling.v1.Scale') };

let scaleManagedFields: ManagedFieldsScope | undefined;

/** The Scale's field manager scope (compiled on the first scale write): its managers are the object's owning replicas, as autoscaling/v1 names them. */
function scaleScope(): ManagedFieldsScope {
  scaleManagedFields ??= {
    topology: compileTopology(scaleSchema, builtinDefinitions),
    apiVersion: scaleApiVersion,
    kind: 'Scale',
    subresource: 'scale',
    versions: { has: (apiVersion) => apiVersion === scaleApiVersion, convert: (obj) => obj, topology: () => scaleManagedFields!.topology },
  };
  return scaleManagedFields;
}

function scaleAccess(store: Store): ScaleAccess {
  const access = store.type.strategy.scale;
  if (access === undefined) throw notFound(store.groupResource, '');
  return access;
}

/** The Scale of an object: its identity, spec.replicas, status.replicas and selector. */
function scaleOf(access: ScaleAccess, obj: KubeObject): KubeObject {
  const { replicas, statusReplicas, selector } = access.get(obj);
  const meta = obj.metadata;
  const metadata: KubeObject['metadata'] = { name: meta.name };
  if (meta.namespace !== undefined) metadata.namespace = meta.namespace;
  metadata.uid = meta.uid;
  metadata.resourceVersion = meta.resourceVersion;
  metadata.creationTimestamp = meta.creationTimestamp;
  // autoscaling/v1 ScaleSpec.replicas and ScaleStatus.selector are omitempty; status.replicas is not.
  const status: Record<string, unknown> = { replicas: statusReplicas };
  if (selector !== '') status.selector = selector;
  return { kind: 'Scale', apiVersion: scaleApiVersion, metadata, spec: replicas === 0 ? {} : { replicas }, status };
}

export async function getScale(store: Store, namespace: string, name: string): Promise<KubeObject> {
  const access = scaleAccess(store);
  return scaleOf(access, await store.get(namespace, name));
}

/** Compiled on the first scale write, not at start-up. */
let scaleGoDecoding: GoDecoding | undefined | null = null;

/**
 * Go's error decoding a Scale as written (a PUT's body, a patch's result), before it is
 * carried to its object: `replicas: 3000000000` names ScaleSpec, not the object's spec.
 * `floatNumbers`: a JSON body's numbers written with a fraction or an exponent.
 */
export function scaleDecodeError(scale: KubeObject, floatNumbers?: NumberForms): string | undefined {
  if (scaleGoDecoding === null) scaleGoDecoding = goDecoding(builtinDefinitions, scaleSchema);
  const texts = floatNumbers?.textsIn(scale);
  return objectMetaDecodeError(scale.metadata, texts) ?? scaleGoDecoding?.(scale, texts) ?? goTypeError(builtinDefinitions, scaleSchema, scale);
}

/**
 * What strict decoding of a Scale finds (fields given twice, then fields a Scale does not
 * have), for `fieldValidation` to refuse or warn of as upstream's update handler and
 * patcher do with the Scale's strict codec.
 */
export function scaleStrictErrors(scale: KubeObject, duplicateFields: readonly string[]): string[] {
  const unknownFields = prune(builtinDefinitions, scaleSchema, clone(scale), { isResourceRoot: true, keepUnknown: true, goValue: true });
  return strictDecodingErrors(duplicateFields, unknownFields);
}

function replicasOf(scale: KubeObject): unknown {
  const spec = scale.spec;
  if (spec === undefined || spec === null) return 0;
  if (typeof spec !== 'object' || Array.isArray(spec)) throw badRequest('the body of the request could not be decoded: spec must be an object');
  return (spec as { replicas?: unknown }).replicas ?? 0;
}

/** Upstream's ValidateScale: spec.replicas is a non-negative integer. */
function validateScale(scale: KubeObject): StatusCause[] {
  const replicas = replicasOf(scale);
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    return [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be an integer` }];
  }
  if (replicas < 0) return [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${replicas}: must be greater than or equal to 0` }];
  return [];
}

/** A Scale may omit apiVersion and kind but not contradict them: 400 as upstream's decoder. */
function checkScaleTypeMeta(scale: KubeObject): void {
  if (scale.apiVersion !== undefined && scale.apiVersion !== scaleApiVersion) {
    throw badRequest(`the API version in the data (${scale.apiVersion}) does not match the expected API version (${scaleApiVersion})`);
  }
  if (scale.kind !== undefined && scale.kind !== 'Scale') {
    throw badRequest(`the kind in the data (${scale.kind}) does not match the expected kind (Scale)`);
  }
}

/** What admission sees of a scale write: Scales, and a mutated Scale's replicas carried back. */
function scaleView(access: ScaleAccess): AdmissionView {
  return {
    kind: 'Scale',
    groupVersion: scaleGroupVersion,
    toView: (obj) => scaleOf(access, obj),
    fromView(view, obj) {
      const replicas = replicasOf(view);
      if (typeof replicas === 'number') access.set(obj, replicas);
    },
  };
}

/**
 * Writes spec.replicas from a Scale: `write` gets the current Scale, with the managed
 * fields of the object's managers that own its replicas, and returns the Scale to store
 * with its managers after the write (a PUT's body, the current one patched, or applied).
 * A resourceVersion in the request is a precondition (409 when stale); a uid must match.
 * The object's managed fields take the Scale's back (upstream's ScaleHandler). Answers the
 * resulting Scale.
 */
async function writeScale(
  store: Store,
  namespace: string,
  name: string,
  expectedResourceVersion: string | undefined,
  opts: WriteOptions,
  write: (current: KubeObject) => KubeObject,
): Promise<KubeObject> {
  const access = scaleAccess(store);
  const replicasPathAt = (apiVersion: string) => store.replicasPathAt(apiVersion);
  const { object } = await store.guaranteedUpdate(namespace, name, expectedResourceVersion, { ...opts, managedFieldsSet: true }, (current) => {
    const entries = current!.metadata.managedFields;
    const live = scaleOf(access, current!);
    const liveEntries = scaleEntriesOf(entries, replicasPathAt);
    if (liveEntries !== undefined) live.metadata.managedFields = liveEntries;
    const scale = write(live);
    const uid = scale.metadata?.uid;
    if (uid !== undefined && uid !== '' && uid !== current!.metadata.uid) {
      throw conflict({ group: store.type.group, resource: `${store.type.resource}/scale` }, name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current!.metadata.uid}`);
    }
    const obj = clone(current!);
    access.set(obj, replicasOf(scale) as number);
    const after = parentEntriesOf(entries, scale.metadata?.managedFields, replicasPathAt, store.apiVersion);
    if (after === undefined) delete obj.metadata.managedFields;
    else obj.metadata.managedFields = after;
    return obj;
  }, { createIfMissing: false, subresource: 'scale', admissionView: scaleView(access), mutateArgument: 'copies' });
  return scaleOf(access, object);
}

function checkScale(scale: KubeObject, name: string, store: Store): void {
  checkScaleTypeMeta(scale);
  // A custom resource's Scale is not validated as one (upstream's ScaleREST for custom
  // resources): its own checks of the replicas path decide, in its words.
  if (store.type.customResource === true && Number.isInteger(replicasOf(scale))) return;
  const causes = validateScale(scale);
  if (causes.length > 0) throw invalid('Scale', name, causes, 'autoscaling');
}

/**
 * Writes spec.replicas from a Scale: `desired` gets the current Scale and returns the one
 * to store (a PUT's body, or the current one patched); the writer takes the replicas it
 * changed as a Scale's Update manager.
 */
export async function updateScale(
  store: Store,
  namespace: string,
  name: string,
  expectedResourceVersion: string | undefined,
  opts: WriteOptions,
  desired: (current: KubeObject) => KubeObject,
): Promise<KubeObject> {
  return writeScale(store, namespace, name, expectedResourceVersion, opts, (live) => {
    const scale = desired(live);
    checkScale(scale, name, store);
    const managedFields = opts.fieldManager === undefined ? live.metadata.managedFields : updateManagedFields(scaleScope(), live, scale, opts.fieldManager);
    const metadata = { ...scale.metadata };
    if (managedFields === undefined) delete metadata.managedFields;
    else metadata.managedFields = managedFields;
    return { ...scale, metadata };
  });
}

/**
 * Server-side apply of a Scale configuration (`application/apply-patch+yaml` to /scale):
 * the applier owns the Scale's fields it applies, conflicting (409) with the object's
 * managers that own its replicas unless `force`; the object must exist.
 */
export async function applyScale(
  store: Store,
  namespace: string,
  name: string,
  applied: unknown,
  opts: WriteOptions & { fieldManager: string; force: boolean },
): Promise<KubeObject> {
  return writeScale(store, namespace, name, undefined, opts, (live) => {
    const result = apply(scaleScope(), live, applied, opts.fieldManager, { force: opts.force });
    if (!result.ok) throw applyConflictError(result.conflicts);
    checkScale(result.object, name, store);
    return result.object;
  });
}
