// Priority admission: pods get spec.priority (and preemptionPolicy) from their PriorityClass,
// and at most one PriorityClass is the global default.
import { forbidden, type KubeObject } from '../api/index.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';

export interface PriorityClassLookup {
  /** The class, or undefined when it does not exist. */
  get(name: string): Promise<KubeObject | undefined>;
  list(): Promise<KubeObject[]>;
}

type PriorityClass = KubeObject & { value?: number; globalDefault?: boolean; preemptionPolicy?: string };
type PodSpec = { priorityClassName?: string; priority?: number; preemptionPolicy?: string };

/** A pod's priority when no class is named and none is the global default. */
const defaultPriority = 0;

function isTopLevel(attrs: AdmissionAttributes, group: string, resource: string): boolean {
  return attrs.group === group && attrs.resource === resource && attrs.subresource === '';
}

/** The global default class; of several (a race upstream allows), the one with the lowest value. */
async function globalDefault(classes: PriorityClassLookup): Promise<PriorityClass | undefined> {
  let found: PriorityClass | undefined;
  for (const pc of (await classes.list()) as PriorityClass[]) {
    if (pc.globalDefault === true && (found === undefined || (found.value ?? 0) > (pc.value ?? 0))) found = pc;
  }
  return found;
}

/**
 * Upstream's Priority plugin (plugin/pkg/admission/priority): on pod create it resolves
 * spec.priorityClassName (or the global default class) to spec.priority and
 * spec.preemptionPolicy, refusing an unknown class and a priority the pod sets itself that
 * differs; on pod update it keeps the stored priority when the client dropped it. For
 * PriorityClass writes it refuses a second global default.
 */
export function priorityAdmission(classes: PriorityClassLookup): AdmissionPlugin {
  return {
    name: 'Priority',
    admit: unless((attrs) => !isTopLevel(attrs, '', 'pods') || attrs.object === undefined, async (attrs) => {
      const spec = (attrs.object!.spec ??= {}) as PodSpec;
      if (attrs.operation === 'UPDATE') {
        const old = attrs.oldObject?.spec as PodSpec | undefined;
        if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
        if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
        return;
      }
      if (attrs.operation !== 'CREATE') return;
      const denied = (reason: string) => forbidden(`pods "${attrs.name}" is forbidden: ${reason}`);
      let priority = defaultPriority;
      let policy: string | undefined;
      if (spec.priorityClassName === undefined || spec.priorityClassName === '') {
        const pc = await globalDefault(classes);
        if (pc !== undefined) {
          spec.priorityClassName = pc.metadata.name;
          priority = pc.value ?? 0;
          policy = pc.preemptionPolicy;
        }
      } else {
        const pc = (await classes.get(spec.priorityClassName)) as PriorityClass | undefined;
        if (pc === undefined) throw denied(`no PriorityClass with name ${spec.priorityClassName} was found`);
        priority = pc.value ?? 0;
        policy = pc.preemptionPolicy;
      }
      if (spec.priority !== undefined && spec.priority !== null && spec.priority !== priority) {
        throw denied(`the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
      }
      spec.priority = priority;
      if (policy !== undefined) {
        if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && spec.preemptionPolicy !== policy) {
          throw denied(`the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
        }
        spec.preemptionPolicy = policy;
      }
    }),
    validate: unless((attrs) => !isTopLevel(attrs, 'scheduling.k8s.io', 'priorityclasses') || attrs.object === undefined, async (attrs) => {
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      if ((attrs.object as PriorityClass).globalDefault !== true) return;
      const current = await globalDefault(classes);
      if (current === undefined) return;
      if (attrs.operation === 'CREATE' || current.metadata.name !== attrs.name) {
        throw forbidden(`priorityclasses.scheduling.k8s.io "${attrs.name}" is forbidden: PriorityClass ${current.metadata.name} is already marked as default. Only one default can exist`);
      }
    }),
  };
}
