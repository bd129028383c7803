// The rules of a delete that keeps the object for now: garbage-collection finalizers from the propagation policy, graceful deletion, marking as deleting (upstream's store.go and rest/delete.go).
import { conflict, type KubeObject } from '../api/index.ts';
import type { GarbageCollectionPolicy, PropagationOptions, ResourceType } from './resource-type.ts';
import { rfc3339Seconds } from '../api/time.ts';

/** The garbage collector orphans the object's dependents, then removes this finalizer. */
export const orphanFinalizer = 'orphan';
/** The garbage collector deletes the object's dependents (waiting for those that block), then removes this finalizer. */
export const foregroundFinalizer = 'foregroundDeletion';

/**
 * Whether the `orphan` finalizer belongs on a deleted object: the request's options first,
 * then the finalizers it already has, then the type's default (upstream's shouldOrphanDependents).
 */
export function shouldOrphanDependents(obj: KubeObject, opts: PropagationOptions, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy === 'Orphan') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Foreground') return false;
  for (const f of obj.metadata.finalizers ?? []) {
    if (f === orphanFinalizer) return true;
    if (f === foregroundFinalizer) return false;
  }
  return policy === 'OrphanDependents';
}

/** Whether the `foregroundDeletion` finalizer belongs on a deleted object (upstream's shouldDeleteDependents). */
export function shouldDeleteDependents(obj: KubeObject, opts: PropagationOptions, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy === 'Foreground') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Orphan') return false;
  for (const f of obj.metadata.finalizers ?? []) {
    if (f === foregroundFinalizer) return true;
    if (f === orphanFinalizer) return false;
  }
  return false;
}

/**
 * The finalizers a delete leaves on `obj` (upstream's deletionFinalizersForGarbageCollection):
 * the others as they are, then `orphan` and/or `foregroundDeletion` as the policy says.
 */
export function garbageCollectionFinalizers(obj: KubeObject, opts: PropagationOptions, policy: GarbageCollectionPolicy): string[] {
  const current = obj.metadata.finalizers ?? [];
  const next = current.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (shouldOrphanDependents(obj, opts, policy)) next.push(orphanFinalizer);
  if (shouldDeleteDependents(obj, opts, policy)) next.push(foregroundFinalizer);
  // Compared as sets, as upstream: the same finalizers in another order are no change.
  return sameSet(current, next) ? current : next;
}

/** The finalizers a delete leaves on `obj` for its type: the type's own rules (namespaces), else the generic ones. */
export function deletionFinalizers(type: ResourceType, obj: KubeObject, opts: PropagationOptions): string[] {
  const strategy = type.strategy;
  if (strategy.deletionFinalizers !== undefined) return strategy.deletionFinalizers(obj, opts);
  return garbageCollectionFinalizers(obj, opts, strategy.defaultGarbageCollectionPolicy ?? 'DeleteDependents');
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function timestamp(ms: number): string {
  return rfc3339Seconds(ms);
}

/**
 * `ms` moved by a grace period as upstream's time.Second * time.Duration(seconds) moves it:
 * the nanoseconds wrap in int64 past ~292 years (a grace period of 9e18 seconds is valid),
 * where a plain product would leave the range of a Date.
 */
function afterSeconds(ms: number, seconds: number): number {
  if (Math.abs(seconds) < 9e9) return ms + seconds * 1000;
  return ms + Number(BigInt.asIntN(64, BigInt(Math.trunc(seconds)) * 1_000_000_000n) / 1_000_000n);
}

/**
 * Marks an object kept by finalizers as deleting (upstream's markAsDeleting): a first
 * mark bumps a generation the type keeps; deletionTimestamp is now unless already set
 * earlier; deletionGracePeriodSeconds 0.
 */
export function markAsDeleting(obj: KubeObject, now: number): void {
  const meta = obj.metadata;
  if (meta.deletionTimestamp === undefined && (meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  if (meta.deletionTimestamp === undefined || Date.parse(meta.deletionTimestamp) > now) meta.deletionTimestamp = timestamp(now);
  meta.deletionGracePeriodSeconds = 0;
}

/** What upstream's rest.BeforeDelete decides for one delete. */
export interface GracefulDecision {
  /** The object gets (or keeps, shortened) a deletionTimestamp in the future: `obj` was changed so. */
  graceful: boolean;
  /** It is already being deleted gracefully, no sooner than asked: the delete answers it as it is. */
  pending: boolean;
  /** The grace period the delete goes with (seconds), when graceful. */
  gracePeriodSeconds?: number;
}

/**
 * Upstream's rest.BeforeDelete after its validation: the preconditions (409 in its words,
 * on the kind; namespaces and CRDs in their registries' words), then graceful deletion for
 * the types that have it, which sets deletionTimestamp and deletionGracePeriodSeconds on
 * `obj` (a copy the caller may write). A grace period can only shorten, and not into the
 * past; an object already deleting with grace 0 (or none) is deleted at once.
 */
export function beforeDelete(
  type: ResourceType, obj: KubeObject,
  opts: { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string } }, now: number,
): GracefulDecision {
  const meta = obj.metadata;
  checkPreconditions(type, meta, opts.preconditions);
  // A negative grace period counts as 1 second, the one asked for and the one recorded.
  let grace = opts.gracePeriodSeconds;
  if (grace !== undefined && grace < 0) grace = 1;
  if (meta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1;

  const check = type.strategy.checkGracefulDelete;
  if (check === undefined) return { graceful: false, pending: false };
  if (meta.deletionTimestamp !== undefined) {
    const recorded = meta.deletionGracePeriodSeconds;
    // Marked with no grace left (or a delete that failed after marking): delete now.
    if (recorded === undefined || recorded === 0) return { graceful: false, pending: false };
    if (grace === undefined || grace >= recorded) return { graceful: false, pending: true, gracePeriodSeconds: recorded };
    let shortened = afterSeconds(afterSeconds(Date.parse(meta.deletionTimestamp), -recorded), grace);
    let period = grace;
    // Never into the past (upstream since 1.33): a grace that has run out already leaves
    // now, and 1 second for whoever finishes it, unless the delete asked for none.
    if (shortened < now) {
      shortened = now;
      if (period !== 0) period = 1;
    }
    meta.deletionTimestamp = timestamp(shortened);
    meta.deletionGracePeriodSeconds = period;
    // The request's grace still decides whether the object goes now (upstream's lastGraceful).
    return { graceful: true, pending: false, gracePeriodSeconds: grace };
  }
  const period = check(obj, grace);
  if (period === undefined) return { graceful: false, pending: false };
  meta.deletionTimestamp = timestamp(afterSeconds(now, period));
  meta.deletionGracePeriodSeconds = period;
  if ((meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  return { graceful: true, pending: false, gracePeriodSeconds: period };
}

/** The delete's preconditions against the object read: 409 in upstream's words when one does not hold. */
function checkPreconditions(type: ResourceType, meta: KubeObject['metadata'], pre: { uid?: string; resourceVersion?: string } | undefined): void {
  if (pre === undefined || pre === null) return;
  const uidMismatch = pre.uid !== undefined && pre.uid !== null && pre.uid !== meta.uid;
  const versionMismatch = pre.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== meta.resourceVersion;
  if (!uidMismatch && !versionMismatch) return;
  const name = meta.name ?? '';
  if (type.strategy.ownDelete === true) {
    const onResource = { group: type.group, resource: type.resource };
    if (uidMismatch) throw conflict(onResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
    throw conflict(onResource, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  }
  const onKind = { group: type.group, resource: type.kind };
  if (uidMismatch) {
    throw conflict(onKind, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`);
  }
  throw conflict(onKind, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`);
}
