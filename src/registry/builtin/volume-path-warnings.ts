// Warnings for files a volume maps onto the same or nested paths (the later key overwrites
// the earlier, or a file lands where a directory is), after kubernetes pkg/api/pod/warnings.go
// (warningsForOverlappingVirtualPaths): within a ConfigMap, Secret or DownwardAPI volume's
// items, and across a projected volume's sources.

import { goQuote } from '../validation/field.ts';
import type { JsonObject } from '../../api/json.ts';
import { itemsAt, objectAt, present, stringAt } from './object.ts';

/** A path a volume maps, and which source of a projected volume maps it ("" otherwise). */
interface SourcedPath {
  path: string;
  source: string;
}

function describe({ path, source }: SourcedPath): string {
  return source === '' ? goQuote(path) : `${goQuote(path)} (${source})`;
}

/** The mapped paths of a list of items (KeyToPath or DownwardAPIVolumeFile). */
function itemPaths(items: readonly unknown[], source: string): SourcedPath[] {
  return items.map((item) => ({ path: stringAt(item, 'path'), source }));
}

/** The paths of `seen` that `next` equals, lies in, or holds (upstream's checkForOverlap); "" overlaps nothing. */
function overlapsOf(seen: readonly SourcedPath[], next: SourcedPath): SourcedPath[] {
  if (next.path === '') return [];
  return seen.filter(({ path }) => path !== '' && (`${path}/`.startsWith(`${next.path}/`) || `${next.path}/`.startsWith(`${path}/`)));
}

/** Each path against those before it (trailing slashes dropped), one "<path> with <earlier>" per overlap. */
function collectOverlaps(paths: readonly SourcedPath[], seen: SourcedPath[]): string[] {
  const found: string[] = [];
  for (const { path, source } of paths) {
    const next = { path: path.replace(/\/+$/, ''), source };
    for (const earlier of overlapsOf(seen, next)) found.push(`${describe(next)} with ${describe(earlier)}`);
    seen.push(next);
  }
  return found;
}

const projectionSources = ['secret', 'downwardAPI', 'configMap', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'];

/** The paths one projection maps, or undefined for a source of none of the kinds with paths (or without items). */
function projectionPaths(projection: JsonObject): SourcedPath[] | undefined {
  const configMap = objectAt(projection, 'configMap');
  const secret = objectAt(projection, 'secret');
  const downwardAPI = objectAt(projection, 'downwardAPI');
  const token = objectAt(projection, 'serviceAccountToken');
  const bundle = objectAt(projection, 'clusterTrustBundle');
  if (Array.isArray(configMap?.items)) return itemPaths(configMap.items, `ConfigMap ${goQuote(stringAt(configMap, 'name'))}`);
  if (Array.isArray(secret?.items)) return itemPaths(secret.items, `Secret ${goQuote(stringAt(secret, 'name'))}`);
  if (Array.isArray(downwardAPI?.items)) return itemPaths(downwardAPI.items, 'DownwardAPI');
  if (token !== undefined) return [{ path: stringAt(token, 'path'), source: 'ServiceAccountToken' }];
  if (bundle !== undefined) {
    const name = typeof bundle.name === 'string' ? bundle.name : stringAt(bundle, 'signerName');
    return [{ path: stringAt(bundle, 'path'), source: `ClusterTrustBundle ${goQuote(name)}` }];
  }
  return undefined;
}

/** A projected volume's sources, each path against every path of the sources before it. */
function projectedOverlaps(name: string, projected: JsonObject): string[] {
  const warnings: string[] = [];
  const seen: SourcedPath[] = [];
  // Upstream keeps the previous source's paths for a source it finds none in, and checks them again.
  let paths: SourcedPath[] = [];
  for (const projection of itemsAt(projected, 'sources')) {
    if (!projectionSources.some((source) => present(projection[source]))) {
      warnings.push(`volume ${goQuote(name)} (Projected) has no sources provided`);
      continue;
    }
    paths = projectionPaths(projection) ?? paths;
    for (const overlap of collectOverlaps(paths, seen)) warnings.push(`volume ${goQuote(name)} (Projected): overlapping paths: ${overlap}`);
  }
  return warnings;
}

/** The overlaps within one ConfigMap, Secret or DownwardAPI volume's items. */
function itemOverlaps(name: string, description: string, items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  return collectOverlaps(itemPaths(items, ''), []).map((overlap) => `volume ${goQuote(name)} (${description}): overlapping paths: ${overlap}`);
}

/** Upstream's warningsForOverlappingVirtualPaths over a pod spec's volumes. */
export function overlappingVolumePathWarnings(volumes: readonly JsonObject[]): string[] {
  return volumes.flatMap((volume) => {
    const name = stringAt(volume, 'name');
    const configMap = objectAt(volume, 'configMap');
    const secret = objectAt(volume, 'secret');
    const projected = objectAt(volume, 'projected');
    return [
      ...itemOverlaps(name, `ConfigMap ${goQuote(stringAt(configMap, 'name'))}`, configMap?.items),
      ...itemOverlaps(name, `Secret ${goQuote(stringAt(secret, 'secretName'))}`, secret?.items),
      ...itemOverlaps(name, 'DownwardAPI', objectAt(volume, 'downwardAPI')?.items),
      ...(projected === undefined ? [] : projectedOverlaps(name, projected)),
    ];
  });
}
