// The admission chain: mutating then validating plugins, called by the Store on every write.
import type { KubeObject } from '../api/index.ts';

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
}

/** A built-in plugin or a webhook. Errors are thrown as StatusError. */
export interface AdmissionPlugin {
  name: string;
  /** Mutating phase, before validation. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase, after the object is final. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
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

  // A plugin that answered at once is not awaited: an `await` of nothing still makes a
  // promise and waits a turn of the microtask queue, and most plugins pass most writes at once.
  async admit(attrs: AdmissionAttributes): Promise<void> {
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
