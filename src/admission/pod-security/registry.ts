// Which checks a level and version run, and their results together (upstream's
// policy/registry.go and checks.go: AggregateCheckResults, ForbiddenReason, ForbiddenDetail).
import type { JsonObject } from '../../api/json.ts';
import { baselineChecks } from './baseline-checks.ts';
import type { Check, CheckPod, PodMetadata, Violation } from './check.ts';
import type { LevelVersion } from './levels.ts';
import { restrictedChecks } from './restricted-checks.ts';

const allChecks = [...baselineChecks, ...restrictedChecks];

/**
 * The newest policy version any check has a revision for: `latest` and every newer version
 * evaluate as this one (v1.35 in kube-apiserver v1.36).
 */
export const maxPolicyVersion = Math.max(...allChecks.flatMap((c) => c.versions.map((v) => v.minimumVersion)));

// Upstream runs baseline checks first, then restricted ones, each sorted by id (byte order).
const byId = (a: Check, b: Check) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const orderedChecks = [...[...baselineChecks].sort(byId), ...[...restrictedChecks].sort(byId)];

/** A check's revision in force at a version, if it applies yet. */
function revisionAt(check: Check, minor: number) {
  return check.versions.findLast((v) => v.minimumVersion <= minor);
}

function checksAt(level: 'baseline' | 'restricted', minor: number): CheckPod[] {
  const revisions = orderedChecks
    .filter((check) => level === 'restricted' || check.level === 'baseline')
    .map((check) => ({ check, revision: revisionAt(check, minor) }))
    .filter((c) => c.revision !== undefined);
  const overridden = new Set(revisions.filter((c) => c.check.level === 'restricted').flatMap((c) => c.revision!.overrides ?? []));
  return revisions.filter((c) => !(c.check.level === 'baseline' && overridden.has(c.check.id))).map((c) => c.revision!.checkPod);
}

const cache = new Map<string, CheckPod[]>();

function checksFor(lv: LevelVersion): CheckPod[] {
  if (lv.level === 'privileged') return [];
  const minor = Math.min(lv.version.minor, maxPolicyVersion);
  const key = `${lv.level}:${minor}`;
  let checks = cache.get(key);
  if (checks === undefined) {
    checks = checksAt(lv.level, minor);
    cache.set(key, checks);
  }
  return checks;
}

/** The violations of a pod (or pod template) against a level and version, in upstream's order. */
export function evaluatePod(lv: LevelVersion, metadata: PodMetadata, spec: JsonObject): Violation[] {
  return checksFor(lv).flatMap((check) => check(metadata, spec) ?? []);
}

/** "host ports, privileged": what checking a namespace's existing pods reports. */
export function forbiddenReason(violations: readonly Violation[]): string {
  return violations.map((v) => v.reason).join(', ');
}

/** "host ports (8080, 9090), privileged": what a request for one object reports. */
export function forbiddenDetail(violations: readonly Violation[]): string {
  return violations.map((v) => (v.detail === '' ? v.reason : `${v.reason} (${v.detail})`)).join(', ');
}
