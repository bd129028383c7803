// RuntimeClass admission (upstream's plugin/pkg/admission/runtimeclass, on by default): a
// pod created with spec.runtimeClassName gets its RuntimeClass's pod overhead and
// scheduling (node selector and tolerations merged into its own), and is refused when the
// class does not exist, its node selector conflicts, or its overhead differs from the class's.
import type { KubeObject } from '../api/index.ts';
import { deepEqual, isObject, type JsonObject } from '../api/json.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';

function applies(attrs: AdmissionAttributes): boolean {
  return attrs.operation === 'CREATE' && attrs.group === '' && attrs.resource === 'pods' && attrs.subresource === '' && attrs.object !== undefined;
}

function specOf(pod: KubeObject): JsonObject {
  return (pod.spec ??= {}) as JsonObject;
}

/** A pod's overhead as a comparable map; none and {} alike. */
function overheadOf(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

export function runtimeClassAdmission(runtimeClass: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  const lookup = async (attrs: AdmissionAttributes): Promise<KubeObject | undefined> => {
    const name = specOf(attrs.object!).runtimeClassName;
    if (typeof name !== 'string') return undefined;
    const found = await runtimeClass(name);
    if (found === undefined) throw admissionForbidden(attrs, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return found;
  };
  return {
    name: 'RuntimeClass',
    admit: unless((attrs) => !applies(attrs), async (attrs) => {
      const found = await lookup(attrs);
      if (found === undefined) return;
      const spec = specOf(attrs.object!);
      const overhead = isObject(found.overhead) && isObject(found.overhead.podFixed) ? found.overhead.podFixed : undefined;
      if (overhead !== undefined) {
        if (Object.keys(overheadOf(spec.overhead)).length > 0 && !deepEqual(overheadOf(spec.overhead), overhead)) {
          throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
        }
        spec.overhead = { ...overhead };
      }
      const scheduling = isObject(found.scheduling) ? found.scheduling : undefined;
      if (scheduling === undefined) return;
      const classSelector = isObject(scheduling.nodeSelector) ? scheduling.nodeSelector : undefined;
      if (classSelector !== undefined) {
        const selector = isObject(spec.nodeSelector) ? { ...spec.nodeSelector } : {};
        for (const [key, value] of Object.entries(classSelector)) {
          if (Object.hasOwn(selector, key) && selector[key] !== value) {
            throw admissionForbidden(attrs, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(selector[key])}`);
          }
          selector[key] = value;
        }
        spec.nodeSelector = selector;
      }
      const podTolerations = Array.isArray(spec.tolerations) ? spec.tolerations.filter(isObject) : [];
      const classTolerations = Array.isArray(scheduling.tolerations) ? scheduling.tolerations.filter(isObject) : [];
      if (classTolerations.length > 0) spec.tolerations = mergeTolerations(podTolerations, classTolerations);
    }),
    validate: unless((attrs) => !applies(attrs), async (attrs) => {
      const found = await lookup(attrs);
      const overhead = found !== undefined && isObject(found.overhead) && isObject(found.overhead.podFixed) ? found.overhead.podFixed : undefined;
      const podOverhead = specOf(attrs.object!).overhead;
      if (overhead !== undefined) {
        if (!deepEqual(overheadOf(podOverhead), overhead)) throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      } else if (podOverhead !== undefined && podOverhead !== null) {
        throw admissionForbidden(attrs, 'pod rejected: Overhead provided but not defined in RuntimeClass');
      }
    }),
  };
}

/**
 * Both lists without the tolerations another one in them covers (upstream's
 * MergeTolerations): of two equal ones the first stays.
 */
export function mergeTolerations(first: JsonObject[], second: JsonObject[]): JsonObject[] {
  const all = [...first, ...second];
  const merged: JsonObject[] = [];
  all.forEach((t, i) => {
    if (merged.some((kept) => isSuperset(kept, t))) return;
    if (all.slice(i + 1).some((later) => !deepEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** Whether `ss` tolerates everything `t` does. */
function isSuperset(ss: JsonObject, t: JsonObject): boolean {
  if (deepEqual(ss, t)) return true;
  const key = (x: JsonObject) => (typeof x.key === 'string' ? x.key : '');
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  // An empty key with Exists matches every key.
  if (key(t) !== key(ss) && (key(ss) !== '' || ss.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (str(t.effect) !== str(ss.effect) && str(ss.effect) !== '') return false;
  if (ss.effect === 'NoExecute' && typeof ss.tolerationSeconds === 'number') {
    if (typeof t.tolerationSeconds !== 'number' || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (str(ss.operator)) {
    case 'Equal': case '': return (t.operator === 'Equal' || str(t.operator) === '') && str(t.value) === str(ss.value);
    case 'Exists': return true;
    default: return false;
  }
}
