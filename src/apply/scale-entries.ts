// Managed fields through the scale subresource, as upstream's managedfields.ScaleHandler:
// a write through /scale is a write of an autoscaling/v1 Scale, whose field manager sees
// the object's managers that own its replicas as owning the Scale's `.spec.replicas`, and
// whose managers are carried back to the object as owning its replicas field.

import type { ManagedFieldsEntry } from '../api/types.ts';
import { fieldElement, type Path } from './field-path.ts';
import { FieldSet } from './field-set.ts';
import { decodeManagedFields, encodeManagedFields, type Managed } from './managed-fields.ts';

export const scaleApiVersion = 'autoscaling/v1';
const replicasInScale: Path = [fieldElement('spec'), fieldElement('replicas')];

/**
 * The object's replicas field as `apiVersion` names it (field names: `['spec', 'replicas']`):
 * null for a version without the scale subresource, undefined for a version the object is
 * not served at.
 */
export type ReplicasPathAt = (apiVersion: string) => readonly string[] | null | undefined;

function pathOf(names: readonly string[]): Path {
  return names.map(fieldElement);
}

/**
 * The Scale's managed fields (upstream's ToSubresource): every manager of the object that
 * owns its replicas, owning the Scale's `.spec.replicas` as of autoscaling/v1. Throws
 * when the object's entries do not decode.
 */
export function scaleEntriesOf(parent: readonly ManagedFieldsEntry[] | undefined, replicasPathAt: ReplicasPathAt): ManagedFieldsEntry[] | undefined {
  const managed = decodeManagedFields(parent);
  const out: Managed = { fields: new Map(), times: new Map(), original: new Map() };
  for (const [id, vs] of managed.fields) {
    const names = replicasPathAt(vs.apiVersion);
    if (names === undefined || names === null || !vs.set.has(pathOf(names))) continue;
    out.fields.set(id, { set: FieldSet.of(replicasInScale), apiVersion: scaleApiVersion, applied: vs.applied });
    out.times.set(id, managed.times.get(id));
  }
  return encodeManagedFields(out);
}

/**
 * The object's managed fields after a write through /scale left the Scale's `scale`
 * entries (upstream's ToParent): a manager of the object that owns its replicas and is
 * no longer among the Scale's managers loses them; the Scale's managers that own its
 * replicas own the object's, as `apiVersion` (the object's version written through)
 * names them; the rest stay as they were. Entries of versions the object is not served
 * at are dropped. A Scale's manager gets the time of the object's entry of the same
 * identity, which for a new manager is none, as upstream's handler does.
 */
export function parentEntriesOf(
  parent: readonly ManagedFieldsEntry[] | undefined,
  scale: readonly ManagedFieldsEntry[] | undefined,
  replicasPathAt: ReplicasPathAt,
  apiVersion: string,
): ManagedFieldsEntry[] | undefined {
  const decodedParent = decodeManagedFields(parent);
  const scaleFields = new Map(decodeManagedFields(scale).fields);
  const out: Managed = { fields: new Map(), times: new Map(), original: decodedParent.original };
  for (const [id, vs] of decodedParent.fields) {
    const names = replicasPathAt(vs.apiVersion);
    if (names === undefined) continue;
    const time = decodedParent.times.get(id);
    if (names === null || !vs.set.has(pathOf(names))) {
      out.fields.set(id, vs);
      out.times.set(id, time);
      continue;
    }
    if (scaleFields.has(id)) {
      // Its replicas were not taken: the entry stays as it is.
      out.fields.set(id, vs);
      out.times.set(id, time);
      scaleFields.delete(id);
      continue;
    }
    const set = vs.set.difference(FieldSet.of(pathOf(names)));
    if (!set.isEmpty()) {
      out.fields.set(id, { set, apiVersion: vs.apiVersion, applied: vs.applied });
      out.times.set(id, time);
    }
  }
  const own = replicasPathAt(apiVersion);
  for (const [id, vs] of scaleFields) {
    if (!vs.set.has(replicasInScale) || own === undefined || own === null) continue;
    out.fields.set(id, { set: FieldSet.of(pathOf(own)), apiVersion, applied: vs.applied });
    out.times.set(id, decodedParent.times.get(id));
  }
  return encodeManagedFields(out);
}
