// scheduling.k8s.io/v1 priorityclasses, after kubernetes pkg/apis/scheduling (defaults,
// validation, the system classes) and pkg/registry/scheduling/priorityclass.

import { isStatusError, type KubeObject, type StatusCause } from '../../api/index.ts';
import type { ResourceType } from '../resource-type.ts';
import type { Store } from '../store.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { fieldImmutable, forbidden, invalid, notSupported, required } from '../validation/field.ts';
import { semanticEqual } from './object.ts';
import { builtinType } from './skeleton.ts';

/** Names starting with this are reserved for the system classes below. */
const systemPrefix = 'system-';
/** The highest value a class that is not a system class may have. */
export const highestUserDefinablePriority = 1_000_000_000;
const systemCriticalPriority = 2 * highestUserDefinablePriority;

/** The classes every cluster has (upstream's SystemPriorityClasses), made at start-up. */
export const systemPriorityClasses: readonly { name: string; value: number; description: string }[] = [
  { name: 'system-node-critical', value: systemCriticalPriority + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: systemCriticalPriority, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

const preemptionPolicies = ['PreemptLowerPriority', 'Never'];

type PriorityClass = KubeObject & { value?: number; globalDefault?: boolean; preemptionPolicy?: string; description?: string };

/** scheduling.IsKnownSystemPriorityClass: the reason a system-prefixed class is not one of the system classes. */
function systemClassMismatch(pc: PriorityClass): string | undefined {
  const known = systemPriorityClasses.find((s) => s.name === pc.metadata.name);
  if (known === undefined) return `${pc.metadata.name} is not a known system priority class`;
  if ((pc.value ?? 0) !== known.value) return `value of ${known.name} PriorityClass must be ${known.value}`;
  if ((pc.globalDefault ?? false) !== false) return `globalDefault of ${known.name} PriorityClass must be false`;
  return undefined;
}

/** ValidatePriorityClass beyond metadata. */
export function validatePriorityClass(obj: KubeObject): StatusCause[] {
  const pc = obj as PriorityClass;
  const causes: StatusCause[] = [];
  const name = pc.metadata.name ?? '';
  if (name.startsWith(systemPrefix)) {
    const mismatch = systemClassMismatch(pc);
    if (mismatch !== undefined) {
      causes.push(forbidden('metadata.name', `priority class names with '${systemPrefix}' prefix are reserved for system use only. error: ${mismatch}`));
    }
  } else if ((pc.value ?? 0) > highestUserDefinablePriority) {
    causes.push(forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  if (pc.preemptionPolicy !== undefined && pc.preemptionPolicy !== null) {
    if (pc.preemptionPolicy === '') causes.push(required('preemptionPolicy'));
    else if (!preemptionPolicies.includes(pc.preemptionPolicy)) causes.push(notSupported('preemptionPolicy', pc.preemptionPolicy, preemptionPolicies));
  }
  return causes;
}

/** ValidatePriorityClassUpdate beyond metadata: value and preemptionPolicy never change. */
export function validatePriorityClassUpdate(obj: KubeObject, old: KubeObject): StatusCause[] {
  const pc = obj as PriorityClass;
  const before = old as PriorityClass;
  const causes: StatusCause[] = [];
  if ((pc.value ?? 0) !== (before.value ?? 0)) causes.push(forbidden('value', 'may not be changed in an update.'));
  if (!semanticEqual(pc.preemptionPolicy, before.preemptionPolicy)) causes.push(invalid('preemptionPolicy', pc.preemptionPolicy ?? null, fieldImmutable));
  return causes;
}

export function priorityClassesType(): ResourceType {
  return builtinType('scheduling.k8s.io', 'v1', 'priorityclasses', {
    strategy: {
      defaults(obj) {
        (obj as PriorityClass).preemptionPolicy ??= 'PreemptLowerPriority';
      },
      // Upstream's ValidateUpdate checks only what may not change: an update is not refused
      // for a value, name or preemptionPolicy a create would refuse, nor told so twice.
      validate: (obj, old) => (old === undefined ? validatePriorityClass(obj) : []),
      validateUpdate: validatePriorityClassUpdate,
    },
    // pkg/printers/internalversion: printPriorityClass.
    tableColumns: [
      nameColumn,
      column('Value', (pc) => (pc as PriorityClass).value ?? 0, { type: 'integer', description: 'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.' }),
      column('Global-Default', (pc) => (pc as PriorityClass).globalDefault ?? false, { type: 'boolean', description: 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.' }),
      ageColumn,
      column('PreemptionPolicy', (pc) => (pc as PriorityClass).preemptionPolicy ?? '', { description: 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.' }),
    ],
  });
}

/** Creates the system priority classes that do not exist yet (kube-apiserver's scheduling post-start hook). */
export async function ensureSystemPriorityClasses(store: Store): Promise<void> {
  for (const { name, value, description } of systemPriorityClasses) {
    if (await store.find('', name)) continue;
    try {
      await store.create('', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description } as KubeObject);
    } catch (err) {
      if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }
}
