// What a pod volume's source holds, validated as upstream's ValidateVolumes does for the
// sources written by hand (pkg/apis/core/validation: validateKeyToPath, the downward API's
// files, projections, NFS, host path types), with its messages. The volume's name, its one
// source and the names sources refer to are pod-spec.ts's.

import type { StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { child, forbidden, index, invalid, notSupported, required, type FieldPath } from '../validation/field.ts';
import { itemsAt, numberAt, objectAt, stringAt } from './object.ts';

const fileModeError = 'must be a number between 0 and 0777 (octal), both inclusive';

/** Whether a path has a ".." element (upstream's validatePathNoBacksteps). */
export function hasBackstep(target: string): boolean {
  return target.split('/').includes('..');
}

/** Upstream's validateLocalDescendingPath: relative, without a ".." element. */
export function localDescendingPath(target: string, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (target.startsWith('/')) causes.push(invalid(path, target, 'must be a relative path'));
  if (hasBackstep(target)) causes.push(invalid(path, target, "must not contain '..'"));
  return causes;
}

/** ValidateLocalNonReservedPath: a local descending path that does not start with "..". */
function localNonReservedPath(target: string, path: FieldPath): StatusCause[] {
  const causes = localDescendingPath(target, path);
  // Not reported again when the ".." element was.
  if (target.startsWith('..') && !target.startsWith('../')) causes.push(invalid(path, target, "must not start with '..'"));
  return causes;
}

function fileMode(item: JsonObject, path: FieldPath): StatusCause[] {
  const mode = numberAt(item, 'mode');
  return mode !== undefined && (mode < 0 || mode > 0o777) ? [invalid(child(path, 'mode'), mode, fileModeError)] : [];
}

/** validateKeyToPath: an item of a ConfigMap or Secret source. */
function validateKeyToPath(item: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (stringAt(item, 'key') === '') causes.push(required(child(path, 'key')));
  const target = stringAt(item, 'path');
  if (target === '') causes.push(required(child(path, 'path')));
  causes.push(...localNonReservedPath(target, child(path, 'path')), ...fileMode(item, path));
  return causes;
}

/** validateDownwardAPIVolumeFile: `path` is the source's, as upstream reports a file's errors. */
function validateDownwardAPIFile(file: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = stringAt(file, 'path');
  if (target === '') causes.push(required(child(path, 'path')));
  causes.push(...localNonReservedPath(target, child(path, 'path')));
  const fieldRef = objectAt(file, 'fieldRef');
  const resourceFieldRef = objectAt(file, 'resourceFieldRef');
  if (fieldRef !== undefined && resourceFieldRef !== undefined) causes.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  if (fieldRef === undefined && resourceFieldRef === undefined) causes.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  causes.push(...fileMode(file, path));
  return causes;
}

const projectionKinds = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'];

/** validateProjectionSources: one kind per source, items and paths, token lifetimes, no path twice. */
function validateProjection(projected: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const paths = new Set<string>();
  const claim = (target: string, value: unknown) => {
    if (target === '') return;
    if (paths.has(target)) causes.push(invalid(path, value, 'conflicting duplicate paths'));
    else paths.add(target);
  };
  itemsAt(projected, 'sources').forEach((source, i) => {
    const p = index(child(path, 'sources'), i);
    for (const kind of ['secret', 'configMap']) {
      const ref = objectAt(source, kind);
      if (ref === undefined) continue;
      if (stringAt(ref, 'name') === '') causes.push(required(child(p, kind, 'name')));
      itemsAt(ref, 'items').forEach((item, j) => {
        causes.push(...validateKeyToPath(item, index(child(p, kind, 'items'), j)));
        claim(stringAt(item, 'path'), stringAt(ref, 'name'));
      });
    }
    const downwardAPI = objectAt(source, 'downwardAPI');
    for (const file of itemsAt(downwardAPI, 'items')) {
      causes.push(...validateDownwardAPIFile(file, child(p, 'downwardAPI')));
      claim(stringAt(file, 'path'), stringAt(file, 'path'));
    }
    const token = objectAt(source, 'serviceAccountToken');
    if (token !== undefined) {
      const seconds = numberAt(token, 'expirationSeconds') ?? 0;
      const sp = child(p, 'serviceAccountToken', 'expirationSeconds');
      if (seconds < 600) causes.push(invalid(sp, seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) causes.push(invalid(sp, seconds, 'may not specify a duration larger than 2^32 seconds'));
      // Upstream names the projection's path here, not the source's.
      const target = stringAt(token, 'path');
      if (target === '') causes.push(required(child(path, 'path')));
      else causes.push(...localNonReservedPath(target, child(path, 'path')));
    }
    const kinds = projectionKinds.filter((kind) => isObject(source[kind]));
    if (kinds.length > 1) causes.push(forbidden(p, 'may not specify more than 1 volume type per source'));
  });
  return causes;
}

const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** The checks of the source `kind` (the volume's one source) beyond the names pod-spec.ts checks. */
export function validateVolumeSource(volume: JsonObject, kind: string, path: FieldPath): StatusCause[] {
  const source = objectAt(volume, kind);
  if (source === undefined) return [];
  const p = child(path, kind);
  const causes: StatusCause[] = [];
  switch (kind) {
    case 'secret':
    case 'configMap':
      itemsAt(source, 'items').forEach((item, i) => causes.push(...validateKeyToPath(item, index(child(p, 'items'), i))));
      break;
    case 'downwardAPI':
      for (const file of itemsAt(source, 'items')) causes.push(...validateDownwardAPIFile(file, p));
      break;
    case 'projected':
      causes.push(...validateProjection(source, p));
      break;
    case 'nfs': {
      if (stringAt(source, 'server') === '') causes.push(required(child(p, 'server')));
      const target = stringAt(source, 'path');
      if (target === '') causes.push(required(child(p, 'path')));
      if (!target.startsWith('/')) causes.push(invalid(child(p, 'path'), target, 'must be an absolute path'));
      break;
    }
    case 'hostPath': {
      const type = source.type;
      if (type !== undefined && type !== null && !hostPathTypes.includes(String(type))) causes.push(notSupported(child(p, 'type'), type, hostPathTypes));
      break;
    }
  }
  return causes;
}
