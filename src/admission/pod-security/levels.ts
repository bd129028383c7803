// Pod Security levels, policy versions and the namespace labels that choose them
// (upstream's k8s.io/pod-security-admission/api: constants.go, helpers.go).
import type { StatusCause } from '../../api/index.ts';
import { invalid, key } from '../../api/field-errors.ts';

export type Level = 'privileged' | 'baseline' | 'restricted';

const levels: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: `latest` or `v1.<minor>`; `text` is how upstream prints it. */
export interface Version {
  readonly text: string;
  /** The minor number; Infinity for `latest`, which is newer than every version. */
  readonly minor: number;
}

export const latestVersion: Version = { text: 'latest', minor: Number.POSITIVE_INFINITY };

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export const labelPrefix = 'pod-security.kubernetes.io/';

/**
 * kube-apiserver with no PodSecurity configuration file: every mode privileged at latest,
 * no exemptions (admission/api/v1 defaults.go).
 */
export const defaultPolicy: Policy = {
  enforce: { level: 'privileged', version: latestVersion },
  audit: { level: 'privileged', version: latestVersion },
  warn: { level: 'privileged', version: latestVersion },
};

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${lv.version.text}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.text === b.version.text;
}

/** Upstream's CompareLevels: -1, 0 or 1 as `a` is less, as or more strict than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(levels.indexOf(a) - levels.indexOf(b));
}

/** Upstream's Policy.FullyPrivileged. */
export function fullyPrivileged(policy: Policy): boolean {
  return policy.enforce.level === 'privileged' && policy.audit.level === 'privileged' && policy.warn.level === 'privileged';
}

type Parsed<T> = { value: T; error?: undefined } | { value: T; error: string };

/** Upstream's ParseLevel: an unknown level reads as restricted, with an error. */
export function parseLevel(text: string): Parsed<Level> {
  if ((levels as readonly string[]).includes(text)) return { value: text as Level };
  return { value: 'restricted', error: `must be one of ${levels.join(', ')}` };
}

// Go's int: a minor beyond int64 fails strconv.Atoi.
const maxGoInt = 9223372036854775807n;

/** Upstream's ParseVersion: `latest` or `v1.<minor>`; anything else reads as latest, with an error. */
export function parseVersion(text: string): Parsed<Version> {
  if (text === 'latest') return { value: latestVersion };
  const match = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(text);
  const minor = match?.[1];
  if (minor === undefined || BigInt(minor) > maxGoInt) return { value: latestVersion, error: 'must be "latest" or "v1.x"' };
  return { value: { text, minor: Number(minor) } };
}

const modes = ['enforce', 'audit', 'warn'] as const;

/**
 * Upstream's PolicyToEvaluate: the namespace's labels over the defaults (the configuration's,
 * privileged:latest without one), and a field error per invalid label. An invalid enforce
 * level fails closed (restricted); an invalid audit or warn level fails open (privileged).
 * A valid enforce label stricter than the warn level, with no warn label, raises warn to it
 * (and its version too unless a warn-version label is set), as upstream does since v1.26.
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy = defaultPolicy): { policy: Policy; errors: StatusCause[] } {
  const errors: StatusCause[] = [];
  const policy: Record<(typeof modes)[number], LevelVersion> = { ...defaults };
  if (labels === undefined) return { policy, errors };
  const has = (label: string) => Object.hasOwn(labels, labelPrefix + label);
  let validEnforceLevel = false;
  for (const mode of modes) {
    let { level, version } = policy[mode];
    const levelLabel = labelPrefix + mode;
    const versionLabel = `${levelLabel}-version`;
    const levelText = Object.hasOwn(labels, levelLabel) ? labels[levelLabel] : undefined;
    if (levelText !== undefined) {
      const parsed = parseLevel(levelText);
      level = parsed.value;
      if (parsed.error !== undefined) {
        errors.push(invalid(key('metadata.labels', levelLabel), levelText, parsed.error));
        if (mode !== 'enforce') level = 'privileged';
      } else if (mode === 'enforce') {
        validEnforceLevel = true;
      }
    }
    const versionText = Object.hasOwn(labels, versionLabel) ? labels[versionLabel] : undefined;
    if (versionText !== undefined) {
      const parsed = parseVersion(versionText);
      version = parsed.value;
      if (parsed.error !== undefined) errors.push(invalid(key('metadata.labels', versionLabel), versionText, parsed.error));
    }
    policy[mode] = { level, version };
  }
  if (validEnforceLevel && !has('warn') && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn = { level: policy.enforce.level, version: has('warn-version') ? policy.warn.version : policy.enforce.version };
  }
  return { policy, errors };
}

/** Upstream's LevelVersion.Equivalent: both privileged (at any version), or the same level and version. */
export function equivalentLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

/** Upstream's Policy.Equivalent: every mode equivalent. */
export function equivalentPolicy(a: Policy, b: Policy): boolean {
  return modes.every((mode) => equivalentLevelVersion(a[mode], b[mode]));
}

/** A field error list as Go prints its aggregate: one error alone, several in brackets. */
export function aggregateMessage(errors: readonly StatusCause[]): string {
  const messages = [...new Set(errors.map((e) => `${e.field}: ${e.message}`))];
  return messages.length === 1 ? messages.join('') : `[${messages.join(', ')}]`;
}
