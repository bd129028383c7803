// core/v1 configmaps, after kubernetes pkg/apis/core/validation's ValidateConfigMap(Update).

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { forbidden, invalid, key, tooLong } from '../validation/field.ts';
import { isConfigMapKey } from '../validation/names.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { isImmutable } from './common.ts';
import { mapsEqual, objectAt } from './object.ts';
import { configMapColumns } from './table-columns.ts';

/** Upstream's MaxSecretSize, which also bounds a ConfigMap's data. */
export const maxDataSize = 1024 * 1024;

export const immutableMessage = 'field is immutable when `immutable` is set';

/** Decoded length of base64 text (binaryData, Secret data). */
export function base64Length(text: string): number {
  const clean = text.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** ValidateObjectMeta's finalizer rule of core types, which their update validation repeats. */
export function finalizerCauses(obj: KubeObject): StatusCause[] {
  return validateKubeFinalizerNames(obj.metadata.finalizers, 'metadata.finalizers');
}

/** ValidateConfigMap past its metadata, added to `causes`: the keys, a key in both maps, the size. */
function validateConfigMapData(cm: KubeObject, causes: StatusCause[]): StatusCause[] {
  const data = objectAt(cm, 'data') ?? {};
  const binaryData = objectAt(cm, 'binaryData') ?? {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const msg of isConfigMapKey(k)) causes.push(invalid(key('data', k), k, msg));
    if (Object.hasOwn(binaryData, k)) causes.push(invalid(key('data', k), k, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(typeof v === 'string' ? v : String(v), 'utf8');
  }
  for (const [k, v] of Object.entries(binaryData)) {
    for (const msg of isConfigMapKey(k)) causes.push(invalid(key('binaryData', k), k, msg));
    total += base64Length(typeof v === 'string' ? v : '');
  }
  // The empty path: the error is about the whole object.
  if (total > maxDataSize) causes.push(tooLong('', maxDataSize));
  return causes;
}

const configMapStrategy: Strategy = {

  // An update is checked in validateUpdate, in upstream's order.
  validate: (cm, old) => (old === undefined ? validateConfigMapData(cm, finalizerCauses(cm)) : []),

  // ValidateConfigMapUpdate: the immutability rules come before the new object's own errors.
  validateUpdate(cm, old) {
    const causes = finalizerCauses(cm);
    if (isImmutable(old)) {
      if (!isImmutable(cm)) causes.push(forbidden('immutable', immutableMessage));
      if (!mapsEqual(cm.data, old.data)) causes.push(forbidden('data', immutableMessage));
      if (!mapsEqual(cm.binaryData, old.binaryData)) causes.push(forbidden('binaryData', immutableMessage));
    }
    return validateConfigMapData(cm, causes);
  },
};

export function configMapsType(): ResourceType {
  return builtinType('', 'v1', 'configmaps', {
    subresources: [],
    strategy: configMapStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: configMapColumns,
  });
}
