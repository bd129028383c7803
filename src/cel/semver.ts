// Kubernetes' CEL semver library: semver('1.2.3-rc.1'), as blang/semver parses it (strict
// by default; `normalize` also takes a leading "v", a missing minor or patch, and leading
// zeros), compared by semver precedence (build metadata ignored).

export class CelSemver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: string[];
  constructor(major: bigint, minor: bigint, patch: bigint, pre: string[]) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.pre = pre;
  }
  toString(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.pre.length > 0 ? `-${this.pre.join('.')}` : ''}`;
  }
}

const numeric = /^(0|[1-9]\d*)$/;
const identifier = /^[0-9A-Za-z-]+$/;

export function parseSemver(text: string, normalize: boolean): CelSemver | undefined {
  let s = text;
  if (normalize) {
    s = s.replace(/^v/, '');
    const [core = '', ...rest] = s.split(/(?=[-+])/);
    const parts = core.split('.');
    if (parts.length > 3 || parts.some((p) => !/^\d+$/.test(p))) return undefined;
    while (parts.length < 3) parts.push('0');
    s = parts.map((p) => String(BigInt(p))).join('.') + rest.join('');
  }
  const build = s.indexOf('+');
  if (build >= 0) {
    if (!s.slice(build + 1).split('.').every((p) => identifier.test(p))) return undefined;
    s = s.slice(0, build);
  }
  const dash = s.indexOf('-');
  const core = dash >= 0 ? s.slice(0, dash) : s;
  const pre = dash >= 0 ? s.slice(dash + 1).split('.') : [];
  const parts = core.split('.');
  if (parts.length !== 3 || !parts.every((p) => numeric.test(p))) return undefined;
  if (!pre.every((p) => identifier.test(p) && (!/^\d+$/.test(p) || numeric.test(p)))) return undefined;
  return new CelSemver(BigInt(parts[0]!), BigInt(parts[1]!), BigInt(parts[2]!), pre);
}

export function compareSemver(a: CelSemver, b: CelSemver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i]!, b.pre[i]!];
    if (x === y) continue;
    const [xn, yn] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}
