// The admission chain: mutating then validating plugins, called by the Store on every write.
import type { KubeObject, StatusCause } from '../api/index.ts';
import { clone, deepEqual } from '../api/json.ts';
import { isLabelKey } from '../api/labels.ts';
import { addAuditAnnotation, type AnnotationLevel } from '../api/request-context.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What admission sees of a write, like upstream's admission.Attributes. */
export interface AdmissionAttributes {
  operation: Operation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  kind: string;
  /** Group and version of `kind` when they are not the resource's (a subresource's own kind: autoscaling/v1 Scale, policy/v1 Eviction). */
  kindGroupVersion?: { group: string; version: string };
  /**
   * The request's own resource and kind, when these attributes are another version's: an
   * admission webhook matched through an equivalent resource sees the object in that
   * version, and its review names both (requestKind, requestResource).
   */
  requestedAs?: Pick<AdmissionAttributes, 'group' | 'version' | 'resource' | 'kind' | 'kindGroupVersion'>;
  namespace: string;
  name: string;
  /** The object as it would be stored (create, update); plugins in the mutating phase may change it. */
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  dryRun: boolean;
  namespaced: boolean;
  /**
   * Set by a mutating plugin that changed `object` in ways defaulting may need to fill in
   * (a webhook's patch): the Store then prepares the object again, as upstream runs the
   * strategy after mutating admission.
   */
  mutated?: boolean;
  /** The mutating phase's reinvocation, once a plugin that may run again made one (reinvocationOf). */
  reinvocation?: Reinvocation;
}

/**
 * Upstream's reinvocation context. A webhook or admission policy that changes the object
 * asks for the mutating phase to run once more: every built-in plugin again (a webhook may
 * have added what they default), and of the webhooks and policies those that asked to be
 * (reinvocationPolicy IfNeeded) and ran before a change. Each plugin keeps its own record.
 */
export class Reinvocation {
  /** The second pass. */
  again = false;
  /** Something changed the object: the phase runs once more. */
  requested = false;
  readonly #records = new Map<string, ReinvocationRecord>();

  record(plugin: string): ReinvocationRecord {
    let record = this.#records.get(plugin);
    if (record === undefined) this.#records.set(plugin, (record = new ReinvocationRecord()));
    return record;
  }
}

/** What of one plugin (its webhooks, its policies, by key) may run again, and must. */
export class ReinvocationRecord {
  #invoked = new Set<string>();
  readonly #again = new Set<string>();
  #output: unknown;

  /** It ran `key`, which asked to run again when something changes the object after it. */
  invoked(key: string): void {
    this.#invoked.add(key);
  }

  /** The object changed: what ran before and asked to, runs again. */
  changed(): void {
    for (const key of this.#invoked) this.#again.add(key);
    this.#invoked = new Set();
  }

  /** Whether `key` runs in the second pass. */
  runsAgain(key: string): boolean {
    return this.#again.has(key);
  }

  /** The object as the plugin left it, to tell at its next pass whether others changed it since. */
  left(object: KubeObject | undefined): void {
    this.#output = clone(object);
  }

  /** Whether the object is no longer as the plugin left it. */
  changedSince(object: KubeObject | undefined): boolean {
    return !deepEqual(this.#output, object);
  }
}

/** The request's reinvocation context, made on first use. */
export function reinvocationOf(attrs: AdmissionAttributes): Reinvocation {
  return (attrs.reinvocation ??= new Reinvocation());
}

/** A built-in plugin or a webhook. Errors are thrown as StatusError. */
export interface AdmissionPlugin {
  name: string;
  /** Mutating phase, before validation. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /**
   * Plugins whose mutating phase a client can observe (webhooks, admission policies):
   * whether it may see this write's object (`attrs.object` not consulted). Upstream's
   * mutating phase sees an update before the server prepares it; an apply on the worker
   * thread is prepared there first, so such a write is applied on the main thread instead.
   * Built-in plugins leave it out: none changes the objects the worker applies.
   */
  observesMutating?(attrs: AdmissionAttributes): boolean;
  /** Validating phase, after the object is final. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
  /**
   * Checks upstream's strategies make in their validation with a client or the authorizer at
   * hand (Plinth's strategies are pure): after mutating admission, their causes lead the
   * object's own validation causes in one 422, as upstream's Validate lists them. One that
   * throws refuses the write before validation (the RBAC storages' escalation check, 403).
   */
  strategyCauses?(attrs: AdmissionAttributes): Promise<StatusCause[]> | StatusCause[] | undefined;
}

/**
 * A plugin's admit or validate that answers at once, without a promise, the writes `skips`
 * says are not its concern (most writes, for most plugins), and runs `handle` for the rest.
 */
export function unless(skips: (attrs: AdmissionAttributes) => boolean, handle: (attrs: AdmissionAttributes) => Promise<void>): (attrs: AdmissionAttributes) => Promise<void> | undefined {
  return (attrs) => (skips(attrs) ? undefined : handle(attrs));
}

/** Runs plugins in order: every mutating hook, then every validating one. */
export class AdmissionChain {
  readonly plugins: AdmissionPlugin[];

  constructor(plugins: AdmissionPlugin[]) {
    this.plugins = plugins;
  }

  /** Every plugin's strategy causes, in order; undefined, without a promise, when no plugin has any for the write (most writes). */
  strategyCauses(attrs: AdmissionAttributes): Promise<StatusCause[]> | undefined {
    let found: (Promise<StatusCause[]> | StatusCause[])[] | undefined;
    for (const plugin of this.plugins) {
      const causes = plugin.strategyCauses?.(attrs);
      if (causes !== undefined) (found ??= []).push(causes);
    }
    return found === undefined ? undefined : Promise.all(found).then((lists) => lists.flat());
  }

  /** Whether a plugin of the mutating phase that a client can observe may see this write's object (AdmissionPlugin.observesMutating). */
  observedMutating(attrs: AdmissionAttributes): boolean {
    return this.plugins.some((plugin) => plugin.observesMutating?.(attrs) === true);
  }

  /** The mutating phase, and once more when a plugin asked for it (see Reinvocation). */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    await this.#admitOnce(attrs);
    const reinvocation = attrs.reinvocation;
    if (reinvocation?.requested !== true) return;
    reinvocation.again = true;
    await this.#admitOnce(attrs);
  }

  // A plugin that answered at once is not awaited: an `await` of nothing still makes a
  // promise and waits a turn of the microtask queue, and most plugins pass most writes at once.
  async #admitOnce(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      const pending = plugin.admit?.(attrs);
      if (pending !== undefined) await pending;
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) {
      const pending = plugin.validate?.(attrs);
      if (pending !== undefined) await pending;
    }
  }
}

/**
 * Upstream's Attributes.AddAnnotationWithLevel: an annotation an admission plugin makes
 * for the request's audit event, kept from `level` up (a key already set keeps its first
 * value). Its key must be a qualified name with a prefix, `prefix/name` (checkKeyFormat):
 * one that is not is refused, and the answer is upstream's words for why (the caller logs them).
 */
export function addAdmissionAnnotation(key: string, value: string, level?: AnnotationLevel): string | undefined {
  if (key.split('/').length !== 2) {
    return "annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')";
  }
  const problems = isLabelKey(key);
  if (problems.length > 0) {
    return `annotation key has invalid format ${problems.join(',')}. A qualified name like 'podsecuritypolicy.admission.k8s.io/admit-policy' is required.`;
  }
  addAuditAnnotation(key, value, level);
  return undefined;
}
