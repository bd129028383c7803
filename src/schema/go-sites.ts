// The places in a built-in type where decoding into its Go type looks at a value more
// closely than the schema does (a resource.Quantity, an int32), compiled once per schema
// and kind of place: a write visits only those, and types without any have nothing to walk.

import { isObject } from '../api/json.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

/** Where a visited value is, as Go's decoding errors name it: the struct holding the field, and the JSON field names from the root (no indexes or map keys); kept only for kinds that are `named`. */
export interface GoField {
  struct: string;
  path: readonly string[];
}

/** `where` holds only during the visit (the walk reuses it). */
export type SiteVisit = (holder: Record<string, unknown> | unknown[], key: string | number, value: unknown, where: GoField) => void;
/** Calls `visit` with every value present at a site, what holds it, and where it is. */
export type Sites = (value: unknown, visit: SiteVisit) => void;

type Site = (holder: Record<string, unknown> | unknown[], key: string | number, value: unknown, visit: SiteVisit, walk: Walk) => void;
interface Walk {
  path: string[];
  struct: string;
}

/** A kind of site: whether a schema (a property's, an item's, a map value's) is one. */
export interface SiteKind {
  name: string;
  is(schema: Schema): boolean;
  /** Its visits read `where` (an error names the field): the walk then keeps the path. */
  named?: boolean;
}

/** A site's string as decoding into the Go type and encoding it again gives it (null: Go writes null), or the error decoding it gives. */
export type Canonical = (text: string) => { value: string | null; error?: undefined } | { error: string };

/**
 * Writes each string at the sites in its canonical form, and answers the first error (the
 * value is then refused, whatever was rewritten). Values that are not strings are the
 * schema's to refuse.
 */
export function canonicalizeStrings(sites: Sites, value: unknown, canonical: Canonical): string | undefined {
  let error: string | undefined;
  sites(value, (holder, key, v) => {
    if (error !== undefined || typeof v !== 'string') return;
    const result = canonical(v);
    if (result.error !== undefined) error = result.error;
    else if (result.value !== v) (holder as Record<string | number, unknown>)[key] = result.value;
  });
  return error;
}

/** Compiled sites by kind and definition name, per definitions object; null: the definition holds none. */
const compiled = new WeakMap<Definitions, Map<string, Site | null>>();

/** The sites of `kind` under a schema, or undefined when it holds none. */
export function compileSites(defs: Definitions, schema: Schema, kind: SiteKind): Sites | undefined {
  let byName = compiled.get(defs);
  if (byName === undefined) {
    byName = new Map();
    compiled.set(defs, byName);
  }
  const site = compile(defs, schema, kind, byName, new Set(), '');
  if (site === undefined) return undefined;
  return (value, visit) => site([value], 0, value, visit, { path: [], struct: '' });
}

/** The sites of each of several kinds, each with what goes with it, for the kinds the schema holds; undefined when it holds none. */
export function compileKinds<T>(defs: Definitions, schema: Schema, kinds: readonly (readonly [SiteKind, T])[]): (readonly [Sites, T])[] | undefined {
  const found: (readonly [Sites, T])[] = [];
  for (const [kind, value] of kinds) {
    const sites = compileSites(defs, schema, kind);
    if (sites !== undefined) found.push([sites, value]);
  }
  return found.length === 0 ? undefined : found;
}

/** Go's name of a definition's type: its last segment (io.k8s.api.apps.v1.DeploymentSpec → DeploymentSpec). */
function goName(definition: string): string {
  return definition.slice(definition.lastIndexOf('.') + 1);
}

function compile(defs: Definitions, schema: Schema, kind: SiteKind, byName: Map<string, Site | null>, visiting: Set<string>, struct: string): Site | undefined {
  if (kind.is(schema)) {
    return (holder, key, value, visit, walk) => visit(holder, key, value, walk);
  }
  if (schema.$ref !== undefined) {
    const name = refName(schema.$ref);
    const memoKey = `${kind.name} ${name}`;
    const known = byName.get(memoKey);
    if (known !== undefined) return known ?? undefined;
    // A definition that refers back to itself (a CRD's JSONSchemaProps) holds no such site in the built-in API.
    const target = defs[name];
    if (target === undefined || visiting.has(name)) return undefined;
    visiting.add(name);
    const site = compile(defs, target, kind, byName, visiting, goName(name));
    visiting.delete(name);
    byName.set(memoKey, site ?? null);
    return site;
  }
  const parts: Site[] = [];
  for (const member of schema.allOf ?? []) {
    const site = compile(defs, member, kind, byName, visiting, struct);
    if (site !== undefined) parts.push(site);
  }
  const properties: Array<[string, Site]> = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const site = compile(defs, property, kind, byName, visiting, struct);
    if (site !== undefined) properties.push([key, site]);
  }
  if (properties.length > 0) {
    const named = kind.named === true;
    parts.push((_holder, _key, value, visit, walk) => {
      if (!isObject(value)) return;
      const outer = walk.struct;
      for (const [key, site] of properties) {
        const field = value[key];
        if (field === undefined || field === null) continue;
        if (!named) {
          site(value, key, field, visit, walk);
          continue;
        }
        walk.path.push(key);
        walk.struct = struct;
        site(value, key, field, visit, walk);
        walk.struct = outer;
        walk.path.pop();
      }
    });
  }
  const items = schema.items === undefined ? undefined : compile(defs, schema.items, kind, byName, visiting, struct);
  if (items !== undefined) {
    parts.push((_holder, _key, value, visit, walk) => {
      if (Array.isArray(value)) value.forEach((item, i) => items(value, i, item, visit, walk));
    });
  }
  const additional = isObject(schema.additionalProperties) ? compile(defs, schema.additionalProperties, kind, byName, visiting, struct) : undefined;
  if (additional !== undefined) {
    parts.push((_holder, _key, value, visit, walk) => {
      if (isObject(value)) for (const key in value) if (value[key] !== undefined && value[key] !== null) additional(value, key, value[key], visit, walk);
    });
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : (holder, key, value, visit, walk) => {
    for (const part of parts) part(holder, key, value, visit, walk);
  };
}
