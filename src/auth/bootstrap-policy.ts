// RBAC's bootstrap policy: upstream's default ClusterRoles and ClusterRoleBindings (data
// in bootstrap-policy/, see its README for provenance) and how a stored object is
// reconciled with them at start (upstream's pkg/registry/rbac/reconciliation, in its
// union mode: missing rules, selectors, subjects, labels and annotations are added,
// nothing is removed, and objects annotated autoupdate=false are left alone).
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../api/index.ts';
import { deepEqual } from '../api/json.ts';
import { covers, type PolicyRule, type RoleRef, type Subject } from './rbac-rules.ts';

export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';
export interface BootstrapPolicy {
  clusterRoles: KubeObject[];
  clusterRoleBindings: KubeObject[];
}

/**
 * A fresh copy of the bootstrap policy (callers may change what they get), from
 * bootstrap-policy/policy.json: upstream's YAML made JSON by tools/generate-bootstrap-policy.ts,
 * as parsing the YAML at every start would cost more than the rest of RBAC's start-up.
 */
export function bootstrapPolicy(): BootstrapPolicy {
  return JSON.parse(readFileSync(new URL('./bootstrap-policy/policy.json', import.meta.url), 'utf8')) as BootstrapPolicy;
}

/** What to do with a stored object to bring it in line with the bootstrap policy. */
export type Reconciliation =
  | { operation: 'none' }
  | { operation: 'update'; object: KubeObject }
  /** A binding whose roleRef differs: roleRef cannot change, so it is deleted and made again. */
  | { operation: 'recreate'; object: KubeObject };

function isProtected(existing: KubeObject): boolean {
  return existing.metadata.annotations?.[autoUpdateAnnotation] === 'false';
}

/** Upstream's merge(expected, existing): the existing values win. */
function mergeMaps(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (expected === undefined && existing === undefined) return undefined;
  return { ...expected, ...existing };
}

/**
 * The labels and annotations `existing` should have (the expected ones added), when that
 * adds any; undefined when it has them all. The existing object is not changed: it may be
 * a watch cache's frozen copy.
 */
function missingMetadata(existing: KubeObject, expected: KubeObject): Pick<KubeObject['metadata'], 'annotations' | 'labels'> | undefined {
  const annotations = mergeMaps(expected.metadata.annotations, existing.metadata.annotations);
  const labels = mergeMaps(expected.metadata.labels, existing.metadata.labels);
  if (deepEqual(annotations, existing.metadata.annotations) && deepEqual(labels, existing.metadata.labels)) return undefined;
  return { ...(annotations !== undefined ? { annotations } : {}), ...(labels !== undefined ? { labels } : {}) };
}

/** An update to a copy of `existing` with `changes` made (an undefined value removes its field) and `metadata` merged in: nothing shared with `existing`. */
function changed(existing: KubeObject, metadata: Pick<KubeObject['metadata'], 'annotations' | 'labels'> | undefined, changes: Record<string, unknown>): Reconciliation {
  const object = structuredClone(existing);
  if (metadata !== undefined) Object.assign(object.metadata, structuredClone(metadata));
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete object[key];
    else object[key] = structuredClone(value);
  }
  return { operation: 'update', object };
}

interface AggregationRule {
  clusterRoleSelectors?: unknown[];
}

/** Upstream's computeReconciledRole in union mode. */
export function reconcileClusterRole(existing: KubeObject, expected: KubeObject): Reconciliation {
  if (isProtected(existing)) return { operation: 'none' };
  const metadata = missingMetadata(existing, expected);
  const changes: Record<string, unknown> = {};
  const existingRules = (existing.rules ?? []) as PolicyRule[];
  const { missing } = covers(existingRules, (expected.rules ?? []) as PolicyRule[]);
  if (missing.length > 0) changes.rules = [...existingRules, ...missing];
  const expectedAggregation = (expected.aggregationRule ?? undefined) as AggregationRule | undefined;
  const existingAggregation = (existing.aggregationRule ?? undefined) as AggregationRule | undefined;
  if (expectedAggregation === undefined && existingAggregation !== undefined) {
    changes.aggregationRule = undefined;
  } else if (expectedAggregation !== undefined) {
    const have = existingAggregation?.clusterRoleSelectors ?? [];
    const missingSelectors = (expectedAggregation.clusterRoleSelectors ?? []).filter((s) => !have.some((h) => deepEqual(h, s)));
    if (missingSelectors.length > 0) changes.aggregationRule = { ...existingAggregation, clusterRoleSelectors: [...have, ...missingSelectors] };
  }
  return metadata !== undefined || Object.keys(changes).length > 0 ? changed(existing, metadata, changes) : { operation: 'none' };
}

function sameRoleRef(a: unknown, b: unknown): boolean {
  const x = (a ?? {}) as Partial<RoleRef>;
  const y = (b ?? {}) as Partial<RoleRef>;
  return (x.apiGroup ?? '') === (y.apiGroup ?? '') && (x.kind ?? '') === (y.kind ?? '') && (x.name ?? '') === (y.name ?? '');
}

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
}

/** Upstream's computeReconciledRoleBinding in union mode. */
export function reconcileClusterRoleBinding(existing: KubeObject, expected: KubeObject): Reconciliation {
  if (isProtected(existing)) return { operation: 'none' };
  if (!sameRoleRef(existing.roleRef, expected.roleRef)) return { operation: 'recreate', object: structuredClone(expected) };
  const metadata = missingMetadata(existing, expected);
  const have = (existing.subjects ?? []) as Subject[];
  const missing = ((expected.subjects ?? []) as Subject[]).filter((s) => !have.some((h) => sameSubject(h, s)));
  const changes = missing.length > 0 ? { subjects: [...have, ...missing] } : {};
  return metadata !== undefined || missing.length > 0 ? changed(existing, metadata, changes) : { operation: 'none' };
}
