// The YAML library, loaded on first need: ~260 KB of code that every start would read and
// run, for the few clients that send YAML (kubectl and client-go send JSON; a server-side
// apply's body is YAML by its media type, so the first apply loads it). Code that parses
// YAML synchronously runs after loadYaml(); YAML answers are written without it
// (encoding/yaml-write.ts). In api/ because encoding/ (bodies) and server/ (the audit
// policy and the bodies it logs) use it.

export type YamlModule = typeof import('yaml');

let loaded: YamlModule | undefined;

/** Loads the YAML library (once). */
export async function loadYaml(): Promise<YamlModule> {
  loaded ??= exportsOf(await import('yaml'));
  return loaded;
}

/**
 * The package is CommonJS: Node's loader gives its exports as named exports and as the
 * default one; a bundler's wrapping may give the default one only.
 */
function exportsOf(module: YamlModule & { default?: YamlModule }): YamlModule {
  return module.default ?? module;
}

/** The YAML library when it has been loaded, for callers that must not wait. */
export function loadedYaml(): YamlModule | undefined {
  return loaded;
}

/** The loaded YAML library; a caller that did not load it first is a bug (an internal error). */
export function requireYaml(): YamlModule {
  if (loaded === undefined) throw new Error('the YAML library was used before loadYaml()');
  return loaded;
}
