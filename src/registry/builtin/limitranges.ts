// core/v1 LimitRange: upstream's defaults (SetDefaults_LimitRangeItem), validation
// (pkg/apis/core/validation ValidateLimitRange) and strategy (pkg/registry/core/limitrange).

import { randomUUID } from 'node:crypto';
import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { compareQuantity, formatQuantity, integerValue, milliValue, quantityOf, type Quantity } from '../../api/quantity.ts';
import type { Strategy } from '../resource-type.ts';
import { appendAll, child, duplicate, forbidden, goJson, type GoValue, index, invalid, key, required, type FieldPath } from '../validation/field.ts';
import { objectAt, objectsAt } from './object.ts';
import {
  isOvercommitAllowed, isQualifiedName, quantitiesOf, validateContainerResourceName, validateResourceName,
} from './resource-names.ts';

const limitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];

/** Go's %f: six decimals. */
const goFloat = (n: number) => n.toFixed(6);

/** int64's range past which upstream compares whole units rather than thousandths (MaxMilliValue). */
const maxMilliValue = 9223372036854775807n / 1000n;

/**
 * SetDefaults_LimitRangeItem for Container items: the default limit falls back to the
 * max, the default request to the default limit, then to the min.
 */
export function defaultLimitRange(lr: KubeObject): void {
  for (const item of objectsAt(objectAt(lr, 'spec'), 'limits')) {
    if (item.type !== 'Container') continue;
    const defaults: JsonObject = isObject(item.default) ? item.default : {};
    const requests: JsonObject = isObject(item.defaultRequest) ? item.defaultRequest : {};
    for (const [name, value] of Object.entries(objectAt(item, 'max') ?? {})) if (!(name in defaults)) defaults[name] = value;
    for (const [name, value] of Object.entries(defaults)) if (!(name in requests)) requests[name] = value;
    for (const [name, value] of Object.entries(objectAt(item, 'min') ?? {})) if (!(name in requests)) requests[name] = value;
    // Empty maps are not serialised (omitempty).
    if (Object.keys(defaults).length > 0) item.default = defaults;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}

/** The type is a core.LimitType, a typed string: json.Marshal writes it (`<`, `>`, `&` escaped), not %q. */
function validateLimitType(type: string, rendered: GoValue, path: FieldPath): StatusCause[] {
  const causes = isQualifiedName(type).map((msg) => invalid(path, rendered, msg));
  if (causes.length === 0 && !type.includes('/') && !limitTypes.includes(type)) {
    causes.push(invalid(path, rendered, 'must be a standard limit type or fully qualified'));
  }
  return causes;
}

function validateItemResourceName(type: string, name: string, path: FieldPath): StatusCause[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, path) : validateResourceName(name, path);
}

/** Upstream compares thousandths when every value fits, whole units otherwise. */
function ratioLimit(min: Quantity, max: Quantity, ratio: Quantity): { ratio: number; limit: number } {
  const fits = integerValue(ratio) < maxMilliValue && integerValue(min) < maxMilliValue && integerValue(max) < maxMilliValue;
  if (fits) return { ratio: Number(milliValue(ratio)) / 1000, limit: Number(milliValue(max)) / Number(milliValue(min)) };
  return { ratio: Number(integerValue(ratio)), limit: Number(integerValue(max)) / Number(integerValue(min)) };
}

export function validateLimitRange(lr: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  // Each type rendered once, however many items repeat it.
  const seen = new Map<string, GoValue>();
  objectsAt(objectAt(lr, 'spec'), 'limits').forEach((item, i) => {
    const path = index('spec.limits', i);
    const type = typeof item.type === 'string' ? item.type : '';
    const repeated = seen.get(type);
    const rendered = repeated ?? goJson(type);
    appendAll(causes, validateLimitType(type, rendered, child(path, 'type')));
    if (repeated !== undefined) causes.push(duplicate(child(path, 'type'), rendered));
    else seen.set(type, rendered);

    const keys = new Set<string>();
    const maps: Record<string, Map<string, Quantity>> = {};
    const collect = (field: string) => {
      const given = objectAt(item, field) ?? {};
      for (const name of Object.keys(given)) {
        appendAll(causes, validateItemResourceName(type, name, key(child(path, field), name)));
        keys.add(name);
      }
      maps[field] = quantitiesOf(given);
    };
    collect('max');
    collect('min');
    if (type === 'Pod') {
      if (Object.keys(objectAt(item, 'default') ?? {}).length > 0) causes.push(forbidden(child(path, 'default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(objectAt(item, 'defaultRequest') ?? {}).length > 0) causes.push(forbidden(child(path, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
      maps.default = new Map();
      maps.defaultRequest = new Map();
    } else {
      collect('default');
      collect('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !maps.min!.has('storage') && !maps.max!.has('storage')) {
      causes.push(required(child(path, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    collect('maxLimitRequestRatio');

    for (const name of keys) {
      const min = maps.min!.get(name);
      const max = maps.max!.get(name);
      const dflt = maps.default!.get(name);
      const dreq = maps.defaultRequest!.get(name);
      const ratio = maps.maxLimitRequestRatio!.get(name);
      const s = formatQuantity;
      // The bad value is a resource.Quantity, which marshals as its canonical string.
      const bad = (field: string) => s(maps[field]!.get(name)!);
      if (min && max && compareQuantity(min, max) > 0) {
        causes.push(invalid(key(child(path, 'min'), name), bad('min'), `min value ${s(min)} is greater than max value ${s(max)}`));
      }
      if (dreq && min && compareQuantity(min, dreq) > 0) {
        causes.push(invalid(key(child(path, 'defaultRequest'), name), bad('defaultRequest'), `min value ${s(min)} is greater than default request value ${s(dreq)}`));
      }
      if (dreq && max && compareQuantity(dreq, max) > 0) {
        causes.push(invalid(key(child(path, 'defaultRequest'), name), bad('defaultRequest'), `default request value ${s(dreq)} is greater than max value ${s(max)}`));
      }
      if (dreq && dflt && compareQuantity(dreq, dflt) > 0) {
        causes.push(invalid(key(child(path, 'defaultRequest'), name), bad('defaultRequest'), `default request value ${s(dreq)} is greater than default limit value ${s(dflt)}`));
      }
      if (dflt && min && compareQuantity(min, dflt) > 0) {
        causes.push(invalid(key(child(path, 'default'), name), bad('min'), `min value ${s(min)} is greater than default value ${s(dflt)}`));
      }
      if (dflt && max && compareQuantity(dflt, max) > 0) {
        causes.push(invalid(key(child(path, 'default'), name), bad('max'), `default value ${s(dflt)} is greater than max value ${s(max)}`));
      }
      if (ratio && compareQuantity(ratio, quantityOf(1)) < 0) {
        causes.push(invalid(key(child(path, 'maxLimitRequestRatio'), name), bad('maxLimitRequestRatio'), `ratio ${s(ratio)} is less than 1`));
      }
      if (ratio && min && max) {
        const { ratio: value, limit } = ratioLimit(min, max, ratio);
        if (value > limit) {
          causes.push(invalid(key(child(path, 'maxLimitRequestRatio'), name), bad('maxLimitRequestRatio'), `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
        }
      }
      if (!isOvercommitAllowed(name) && dflt && dreq && compareQuantity(dflt, dreq) !== 0) {
        causes.push(invalid(key(child(path, 'defaultRequest'), name), bad('defaultRequest'), `default value ${s(dflt)} must equal to defaultRequest value ${s(dreq)} in ${name}`));
      }
    }
  });
  return causes;
}

export const limitRangeStrategy: Strategy = {
  defaults: defaultLimitRange,
  // Upstream's limitrangeStrategy.PrepareForCreate: a LimitRange created with neither a name
  // nor a generateName is named with a new UUID rather than refused.
  prepareForCreate(lr) {
    if (lr.metadata.name === undefined || lr.metadata.name === '') lr.metadata.name = randomUUID();
  },
  validate: validateLimitRange,
};

