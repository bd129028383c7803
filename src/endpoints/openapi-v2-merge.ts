// The aggregated OpenAPI v2 document, as kube-aggregator builds /openapi/v2: the served
// document first, then each extension server's (kube-openapi's aggregator package) cut to
// its APIService's group and version, merged in priority order. A path already present
// is kept as it was; a definition or global parameter of the same name but another
// content is renamed (`Name_v2`, `_v3`, … or a renamed copy of the same content already
// merged) and every reference to it follows; one of the same content is merged once, the
// x-kubernetes-group-version-kind lists of the two joined.

type Json = Record<string, unknown>;

/** A Swagger 2.0 document, as JSON. */
export type SwaggerDocument = Json & { paths?: Json; definitions?: Json; parameters?: Json };

const definitionRef = '#/definitions/';
const parameterRef = '#/parameters/';
const gvkKey = 'x-kubernetes-group-version-kind';

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown): Json {
  return isRecord(value) ? value : {};
}

/** Every `$ref` string in `value`, to `visit`. */
function eachRef(value: unknown, visit: (ref: string) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) eachRef(item, visit);
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (key === '$ref' && typeof member === 'string') visit(member);
    else eachRef(member, visit);
  }
}

/**
 * The definitions the paths use, directly, through a global parameter, or through other
 * definitions (kube-openapi's usedDefinitionForSpec).
 */
function usedDefinitions(doc: SwaggerDocument): Set<string> {
  const used = new Set<string>();
  const definitions = record(doc.definitions);
  const parameters = record(doc.parameters);
  const seenParameters = new Set<string>();
  const visit = (ref: string): void => {
    if (ref.startsWith(definitionRef)) {
      const name = ref.slice(definitionRef.length);
      if (used.has(name)) return;
      used.add(name);
      eachRef(definitions[name], visit);
    } else if (ref.startsWith(parameterRef)) {
      const name = ref.slice(parameterRef.length);
      if (seenParameters.has(name)) return;
      seenParameters.add(name);
      eachRef(parameters[name], visit);
    }
  };
  eachRef(doc.paths, visit);
  return used;
}

/**
 * The document with only the paths under one of `prefixes`, and without the definitions
 * only the other paths used (kube-openapi's FilterSpecByPathsWithoutSideEffects: one no
 * path used before is kept). `doc` is not changed; the answer shares its parts.
 */
export function filterByPathPrefixes(doc: SwaggerDocument, prefixes: readonly string[]): SwaggerDocument {
  return withPathsWhere(doc, (path) => prefixes.some((prefix) => path.startsWith(prefix)));
}

function withPathsWhere(doc: SwaggerDocument, keep: (path: string) => boolean): SwaggerDocument {
  if (!isRecord(doc.paths)) return doc;
  const usedBefore = usedDefinitions(doc);
  const paths: Json = {};
  for (const [path, item] of Object.entries(doc.paths)) if (keep(path)) paths[path] = item;
  const filtered: SwaggerDocument = { ...doc, paths };
  const usedAfter = usedDefinitions(filtered);
  const definitions: Json = {};
  for (const [name, schema] of Object.entries(record(doc.definitions))) {
    if (usedAfter.has(name) || !usedBefore.has(name)) definitions[name] = schema;
  }
  filtered.definitions = definitions;
  return filtered;
}

/** Deep equality of JSON values (key order aside). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
}

/** Two definitions alike but for the group-version-kinds they list (deepEqualDefinitionsModuloGVKs). */
function sameDefinition(a: unknown, b: unknown): boolean {
  if (!isRecord(a) || !isRecord(b)) return sameJson(a, b);
  const { [gvkKey]: _a, ...restA } = a;
  const { [gvkKey]: _b, ...restB } = b;
  return sameJson(restA, restB);
}

function gvkKeyOf(gvk: unknown): string {
  const g = record(gvk);
  return `${String(g.group)}/${String(g.version)}.${String(g.kind)}`;
}

/** `existing`'s group-version-kinds joined with `added`'s, sorted as upstream sorts them; undefined when nothing is added. */
function joinedGvks(existing: unknown, added: unknown): unknown[] | undefined {
  if (!Array.isArray(added)) return undefined;
  if (!Array.isArray(existing)) return added;
  const seen = new Set(existing.map(gvkKeyOf));
  const more = added.filter((gvk) => !seen.has(gvkKeyOf(gvk)));
  if (more.length === 0) return undefined;
  return [...existing, ...more].sort((p, q) => (gvkKeyOf(p) < gvkKeyOf(q) ? -1 : gvkKeyOf(p) > gvkKeyOf(q) ? 1 : 0));
}

/** `value` with every `$ref` in `renames` replaced (a copy where one is; the rest shared). */
function withRefsRenamed(value: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = withRefsRenamed(item, renames);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: Json | undefined;
  for (const key of Object.keys(value)) {
    const member = value[key];
    const next = key === '$ref' && typeof member === 'string' ? (renames.get(member) ?? member) : withRefsRenamed(member, renames);
    if (next !== member) (out ??= { ...value })[key] = next;
  }
  return out ?? value;
}

/**
 * New names for the source's entries (definitions or parameters) that `dest` holds with
 * another content: the first `Name_vN` that `dest` holds with the same content, else the
 * first free one (neither merged yet nor among the source's own names).
 */
function conflictRenames(dest: Json, source: Json, same: (a: unknown, b: unknown) => boolean): Map<string, string> {
  const renames = new Map<string, string>();
  const usedNames = new Set(Object.keys(dest));
  for (const name of Object.keys(source).sort()) {
    if (!Object.hasOwn(dest, name) || same(dest[name], source[name])) continue;
    let i = 1;
    let candidate = name;
    let reused = false;
    while (Object.hasOwn(dest, candidate)) {
      i++;
      candidate = `${name}_v${i}`;
      if (Object.hasOwn(dest, candidate) && same(dest[candidate], source[name])) {
        reused = true;
        break;
      }
    }
    if (!reused) {
      while (usedNames.has(candidate) || Object.hasOwn(source, candidate)) {
        i++;
        candidate = `${name}_v${i}`;
      }
      usedNames.add(candidate);
    }
    renames.set(name, candidate);
  }
  return renames;
}

function renamed(entries: Json, renames: ReadonlyMap<string, string>): Json {
  const out: Json = {};
  for (const [name, value] of Object.entries(entries)) out[renames.get(name) ?? name] = value;
  return out;
}

/**
 * Merges `source` into `dest` (changed in place; `source` is not), as kube-openapi's
 * MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters: the source's paths that
 * `dest` has already are left out (and what only they used), conflicting definitions and
 * global parameters are renamed, the rest added.
 */
export function mergeSwagger(dest: SwaggerDocument, source: SwaggerDocument): void {
  if (!isRecord(source.paths)) return;
  const destPaths = (dest.paths = record(dest.paths));
  const newPaths = Object.keys(source.paths).filter((path) => !Object.hasOwn(destPaths, path));
  if (newPaths.length === 0) return;
  let doc = newPaths.length < Object.keys(source.paths).length ? withPathsWhere(source, (path) => !Object.hasOwn(destPaths, path)) : source;
  const destDefinitions = (dest.definitions = record(dest.definitions));
  const definitionRenames = conflictRenames(destDefinitions, record(doc.definitions), sameDefinition);
  const destParameters = record(dest.parameters);
  const parameterRenames = conflictRenames(destParameters, record(doc.parameters), sameJson);
  if (definitionRenames.size > 0 || parameterRenames.size > 0) {
    const refRenames = new Map<string, string>();
    for (const [from, to] of definitionRenames) refRenames.set(definitionRef + from, definitionRef + to);
    for (const [from, to] of parameterRenames) refRenames.set(parameterRef + from, parameterRef + to);
    doc = {
      ...doc,
      paths: withRefsRenamed(doc.paths, refRenames) as Json,
      definitions: renamed(withRefsRenamed(record(doc.definitions), refRenames) as Json, definitionRenames),
      parameters: renamed(withRefsRenamed(record(doc.parameters), refRenames) as Json, parameterRenames),
    };
  }
  for (const [name, schema] of Object.entries(record(doc.definitions))) {
    if (!Object.hasOwn(destDefinitions, name)) {
      destDefinitions[name] = schema;
      continue;
    }
    const existing = record(destDefinitions[name]);
    const gvks = joinedGvks(existing[gvkKey], record(schema)[gvkKey]);
    if (gvks !== undefined) destDefinitions[name] = { ...existing, [gvkKey]: gvks };
  }
  const parameters = record(doc.parameters);
  if (Object.keys(parameters).length > 0) {
    for (const [name, parameter] of Object.entries(parameters)) if (!Object.hasOwn(destParameters, name)) destParameters[name] = parameter;
    dest.parameters = destParameters;
  }
  for (const path of Object.keys(record(doc.paths))) destPaths[path] = record(doc.paths)[path];
}

/** An extension server's document, the group and version its APIService hands it, and where it stands in the merge. */
export interface AggregatedSwagger {
  /** The APIService's name. */
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  document: SwaggerDocument;
}

/**
 * The served document with the extension servers' (each cut to its APIService's group and
 * version) merged in, in kube-aggregator's order:
 * groups by their highest groupPriorityMinimum, a group's versions by versionPriority,
 * both highest first, then by APIService name. What the merge adds is sorted in with the
 * rest, as Go writes a document's maps. `served` is not changed.
 */
export function aggregateSwagger(served: SwaggerDocument, extensions: readonly AggregatedSwagger[]): SwaggerDocument {
  const groupPriority = new Map<string, number>();
  for (const e of extensions) groupPriority.set(e.group, Math.max(groupPriority.get(e.group) ?? -Infinity, e.groupPriorityMinimum));
  const ordered = [...extensions].sort((a, b) => {
    const pa = a.group === b.group ? a.versionPriority : groupPriority.get(a.group)!;
    const pb = a.group === b.group ? b.versionPriority : groupPriority.get(b.group)!;
    if (pa !== pb) return pb - pa;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  const merged: SwaggerDocument = { ...served, paths: { ...record(served.paths) }, definitions: { ...record(served.definitions) } };
  if (isRecord(served.parameters)) merged.parameters = { ...served.parameters };
  // Each cut to its group and version's paths, as kube-aggregator cuts what it downloads.
  // One the walks cannot read (nested past the stack's depth) is left out, as upstream
  // leaves out a document it cannot decode; the merge changes `merged` only after them.
  for (const e of ordered) {
    try {
      mergeSwagger(merged, filterByPathPrefixes(e.document, [`/apis/${e.group}/${e.version}/`]));
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
  }
  for (const key of ['paths', 'definitions', 'parameters'] as const) {
    const entries = merged[key];
    if (isRecord(entries)) merged[key] = Object.fromEntries(Object.keys(entries).sort().map((name) => [name, entries[name]]));
  }
  return merged;
}
