// What a Pod Security check is and the small pieces every check shares (upstream's
// policy/checks.go, helpers.go, visitor.go), over the pod as JSON.
import { isObject, type JsonObject } from '../../api/json.ts';
import type { Level } from './levels.ts';

/** The part of a pod's (or pod template's) metadata the checks read. */
export interface PodMetadata {
  annotations?: Record<string, string>;
}

/** Why a check forbids a pod: a short reason always shown, a detail shown for one object. */
export interface Violation {
  reason: string;
  detail: string;
}

/** Undefined when the pod is allowed. */
export type CheckPod = (metadata: PodMetadata, spec: JsonObject) => Violation | undefined;

export interface VersionedCheck {
  /** The first policy version (v1.<minimumVersion>) this revision applies to. */
  minimumVersion: number;
  checkPod: CheckPod;
  /** Baseline checks this restricted revision replaces. */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  /** Revisions by increasing minimumVersion. */
  versions: readonly VersionedCheck[];
}

export function objectAt(value: unknown, ...path: string[]): JsonObject | undefined {
  let current = value;
  for (const name of path) current = isObject(current) ? current[name] : undefined;
  return isObject(current) ? current : undefined;
}

export function stringAt(object: JsonObject | undefined, name: string): string {
  const value = object?.[name];
  return typeof value === 'string' ? value : '';
}

export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** Upstream's visitContainers: init containers, then containers, then ephemeral containers. */
export function containersOf(spec: JsonObject): JsonObject[] {
  return [...objects(spec.initContainers), ...objects(spec.containers), ...objects(spec.ephemeralContainers)];
}

export function nameOf(container: JsonObject): string {
  return stringAt(container, 'name');
}

export function securityContextOf(container: JsonObject): JsonObject | undefined {
  return objectAt(container, 'securityContext');
}

export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** Go's sets.NewString(...).List(): distinct and sorted. */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

/** "container \"a\"" / "containers \"a\", \"b\"". */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** `spec.os.name: windows`: from policy v1.25, restricted checks that Windows cannot honour pass it. */
export function isWindowsPod(spec: JsonObject): boolean {
  return stringAt(objectAt(spec, 'os'), 'name') === 'windows';
}

/** A pod in a user namespace (`hostUsers: false`), which some v1.35 checks relax for (KEP-127). */
export function inUserNamespace(spec: JsonObject): boolean {
  return spec.hostUsers === false;
}
