// The strategy of a type served in one version and stored in another: the stored version's
// strategy, run on the object converted to it, as upstream runs strategies on the internal form.

import type { KubeObject } from '../../api/index.ts';
import type { StorageConversion, Strategy } from '../resource-type.ts';

type Conversion = Pick<StorageConversion, 'toStorage' | 'fromStorage'>;

/**
 * Replaces what `obj` holds by `next`, keeping obj's apiVersion and kind (the served ones) and
 * its metadata object, which the Store may hold on to.
 */
function replaceContents(obj: KubeObject, next: KubeObject): void {
  const { apiVersion, kind, metadata } = obj;
  for (const key of Object.keys(metadata)) delete (metadata as Record<string, unknown>)[key];
  Object.assign(metadata, next.metadata);
  for (const key of Object.keys(obj)) delete obj[key];
  Object.assign(obj, next, { apiVersion, kind, metadata });
}

/** `fn` run on the stored form of the object, which then takes the result, converted back. */
function inStorage(conversion: Conversion, fn: ((obj: KubeObject) => void) | undefined) {
  if (fn === undefined) return undefined;
  return (obj: KubeObject) => {
    const stored = conversion.toStorage(obj);
    fn(stored);
    replaceContents(obj, conversion.fromStorage(stored));
  };
}

function prepared(conversion: Conversion, prepare: ((obj: KubeObject, old: KubeObject) => void) | undefined) {
  if (prepare === undefined) return undefined;
  return (obj: KubeObject, old: KubeObject) => {
    const stored = conversion.toStorage(obj);
    prepare(stored, conversion.toStorage(old));
    replaceContents(obj, conversion.fromStorage(stored));
  };
}

/**
 * `strategy` (the stored version's) for objects served in another version: preparation runs
 * on the stored form and converts back; validation reports the stored form's fields, as
 * upstream validates the internal object whatever the request's version.
 */
export function strategyThroughStorage(strategy: Strategy, conversion: Conversion): Strategy {
  const subresources: Strategy['subresources'] = {};
  for (const [name, sub] of Object.entries(strategy.subresources ?? {})) {
    subresources[name] = {
      prepareForUpdate: prepared(conversion, sub.prepareForUpdate),
      validateUpdate: sub.validateUpdate === undefined ? undefined : (obj, old) => sub.validateUpdate!(conversion.toStorage(obj), conversion.toStorage(old)),
    };
  }
  return {
    defaults: inStorage(conversion, strategy.defaults),
    prepareForCreate: inStorage(conversion, strategy.prepareForCreate),
    prepareForUpdate: prepared(conversion, strategy.prepareForUpdate),
    validate: strategy.validate === undefined ? undefined : (obj, old) => strategy.validate!(conversion.toStorage(obj), old === undefined ? undefined : conversion.toStorage(old)),
    validateCreate: strategy.validateCreate === undefined ? undefined : (obj) => strategy.validateCreate!(conversion.toStorage(obj)),
    validateUpdate: strategy.validateUpdate === undefined ? undefined : (obj, old) => strategy.validateUpdate!(conversion.toStorage(obj), conversion.toStorage(old)),
    subresources,
  };
}
