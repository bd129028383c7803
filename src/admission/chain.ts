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
  namespace: string;
  name: string;
  /** The object as it would be stored (create, update); plugins in the mutating phase may change it. */
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  dryRun: boolean;
  namespaced: boolean;
}

/** A built-in plugin or a webhook. Errors are thrown as StatusError. */
export interface AdmissionPlugin {
  name: string;
  /** Mutating phase, before validation. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase, after the object is final. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/** Runs plugins in order: every mutating hook, then every validating one. */
export class AdmissionChain {
  readonly plugins: AdmissionPlugin[];

  constructor(plugins: AdmissionPlugin[]) {
    this.plugins = plugins;
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) if (plugin.admit) await plugin.admit(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) if (plugin.validate) await plugin.validate(attrs);
  }
}
