// API Priority and Fairness' configuration as the server reads it: informers on the
// FlowSchemas and PriorityLevelConfigurations feeding the classifier the filter chain asks
// (auth/flow-schemas.ts). Every replica keeps its own, as each kube-apiserver does.
import { FlowClassifier } from '../auth/flow-schemas.ts';
import { Informer } from '../controllers/runtime/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';

const group = 'flowcontrol.apiserver.k8s.io';

export class FlowControlInformers {
  readonly classifier = new FlowClassifier();
  readonly #schemas: Informer;
  readonly #levels: Informer;

  constructor(registry: ResourceRegistry, log: (message: string) => void) {
    const store = (resource: string) => registry.lookup(group, 'v1', resource)!.store;
    this.#schemas = new Informer({ source: store('flowschemas'), resource: 'flowschemas', log });
    this.#levels = new Informer({ source: store('prioritylevelconfigurations'), resource: 'prioritylevelconfigurations', log });
    // Changes are rare: the classifier takes the whole set again at each.
    const schemasChanged = () => this.classifier.setSchemas(this.#schemas.store.list());
    const levelsChanged = () => this.classifier.setLevels(this.#levels.store.list());
    this.#schemas.addHandlers({ add: schemasChanged, update: schemasChanged, delete: schemasChanged });
    this.#levels.addHandlers({ add: levelsChanged, update: levelsChanged, delete: levelsChanged });
  }

  /** Resolves once both informers hold their first list. */
  async start(): Promise<void> {
    await Promise.all([this.#schemas.start(), this.#levels.start()]);
    this.classifier.setSchemas(this.#schemas.store.list());
    this.classifier.setLevels(this.#levels.store.list());
  }

  async close(): Promise<void> {
    await Promise.all([this.#schemas.stop(), this.#levels.stop()]);
  }
}
