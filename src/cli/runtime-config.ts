// `--runtime-config`: which API group versions (and resources) are served, as kube-apiserver's
// APIEnablementOptions and resourceconfig read the flag. Plinth serves exactly upstream's
// default set, so the flag can turn things off (and back on); turning on a version Plinth
// does not have is refused, and the core group (`/v1`) is always served. Errors are upstream's words where upstream has them, thrown as
// Errors for config.ts to report as usage errors.

/** A version's stability as the `api/ga`, `api/beta` and `api/alpha` keys select it. */
const matchers: Array<[key: string, matches: (version: string) => boolean]> = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v\d+$/.test(v)],
  ['api/beta', (v) => /^v\d+beta\d+$/.test(v)],
  ['api/alpha', (v) => /^v\d+alpha\d+$/.test(v)],
];

/** The flag's values as component-base's ConfigurationMap reads them: `key=value` pairs, comma-separated, a bare key meaning an empty value. */
export function parseRuntimeConfig(values: readonly string[]): Map<string, string> {
  const config = new Map<string, string>();
  for (const value of values) {
    for (const pair of value.split(',')) {
      if (pair === '') continue;
      const equals = pair.indexOf('=');
      if (equals < 0) config.set(pair.trim(), '');
      else config.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
    }
  }
  return config;
}

/** A served resource, as the flag addresses it. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Go's strconv.ParseBool. */
function parseBool(key: string, value: string): boolean {
  if (value === '') return true;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/**
 * The `group/version/resource` keys of the served resources the flag turns off. `served` is
 * every built-in resource Plinth serves (upstream's default set). Keys are checked as upstream
 * checks them: `api/all=false` alone, keys that are not `group/version[/resource]`, groups no
 * resource belongs to, values that are not booleans; a version or resource Plinth does not
 * serve may be turned off (nothing to do) but not on.
 */
export function runtimeConfigDisabled(config: Map<string, string>, served: readonly GroupVersionResource[]): Set<string> {
  if (config.get('api/all') === 'false' && config.size === 1) throw new Error('invalid key with only api/all=false');
  const groups = new Set(served.map((r) => r.group));
  const unknown: string[] = [];
  const keys: Array<{ key: string; group: string; version: string; resource?: string }> = [];
  for (const key of config.keys()) {
    if (matchers.some(([name]) => name === key)) continue;
    const tokens = key.split('/');
    // Go's ParseGroupVersion of the first two: "group/version"; a key with another shape is refused.
    if ((tokens.length !== 2 && tokens.length !== 3) || tokens[1] === '') throw new Error(`runtime-config invalid key ${key}`);
    const [group, version, resource] = tokens as [string, string, string | undefined];
    // `/v1`: the core group. Plinth always serves it (the `api/*` keys leave it alone too).
    if (group === '') {
      if (resource !== undefined || version !== 'v1' || !parseBool(key, config.get(key)!)) throw new Error(`runtime-config ${key}: the core group's v1 is always served by Plinth`);
      continue;
    }
    if (!groups.has(group)) {
      if (!unknown.includes(group)) unknown.push(group);
      continue;
    }
    keys.push({ key, group, version, ...(resource !== undefined ? { resource } : {}) });
  }
  if (unknown.length > 0) throw new Error(`unknown api groups ${unknown.join(',')}`);

  const enabled = new Map(served.map((r) => [`${r.group}/${r.version}/${r.resource}`, true]));
  const set = (on: boolean, test: (r: GroupVersionResource) => boolean) => {
    for (const r of served) if (test(r)) enabled.set(`${r.group}/${r.version}/${r.resource}`, on);
  };
  for (const [name, matches] of matchers) {
    const value = config.get(name);
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value ${name}=${value}`);
    set(value === 'true', (r) => r.group !== '' && matches(r.version));
  }
  // Versions first, then resources, which win: upstream's order.
  const versions = keys.filter((k) => k.resource === undefined);
  const resources = keys.filter((k) => k.resource !== undefined);
  for (const { key, group, version } of versions) {
    const on = parseBool(key, config.get(key)!);
    const known = served.some((r) => r.group === group && r.version === version);
    if (!known && on) throw new Error(`group version ${group}/${version} is not served by Plinth (it serves ${servedVersions(served, group)})`);
    set(on, (r) => r.group === group && r.version === version);
  }
  for (const { key, group, version, resource } of resources) {
    if (resource!.toLowerCase() !== resource) throw new Error(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
    const on = parseBool(key, config.get(key)!);
    const known = served.some((r) => r.group === group && r.version === version && r.resource === resource);
    if (!known && on) throw new Error(`${resource} in ${group}/${version} is not served by Plinth`);
    set(on, (r) => r.group === group && r.version === version && r.resource === resource);
  }
  return new Set([...enabled].filter(([, on]) => !on).map(([key]) => key));
}

function servedVersions(served: readonly GroupVersionResource[], group: string): string {
  return [...new Set(served.filter((r) => r.group === group).map((r) => r.version))].join(', ');
}
