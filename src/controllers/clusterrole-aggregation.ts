// The ClusterRole aggregation controller, as upstream's clusterroleaggregation: the rules
// of a ClusterRole with an aggregationRule are the union of the rules of the ClusterRoles
// its selectors match (by name order, without duplicates), kept as they change.
import type { KubeObject } from '../api/index.ts';
import { deepEqual } from '../api/json.ts';
import { labelSelectorFromObject, matchLabels, type LabelSelectorObject } from '../api/labels.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

const fieldManager = 'clusterrole-aggregation-controller';
/** The informer's index of the roles with an aggregationRule (all under one value). */
const aggregatedIndex = 'aggregated';

function selectorsOf(role: KubeObject): LabelSelectorObject[] | undefined {
  const rule = role.aggregationRule as { clusterRoleSelectors?: LabelSelectorObject[] } | null | undefined;
  if (rule === undefined || rule === null) return undefined;
  return rule.clusterRoleSelectors ?? [];
}

/** The rules an aggregated role should have: those of the roles its selectors match, in name order, each once. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): unknown[] {
  const rules: unknown[] = [];
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const selectorObject of selectorsOf(role) ?? []) {
    const selector = labelSelectorFromObject(selectorObject);
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !matchLabels(selector, other.metadata.labels)) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) if (!rules.some((r) => deepEqual(r, rule))) rules.push(rule);
    }
  }
  return rules;
}

export class ClusterRoleAggregationController {
  readonly #store: Store;
  readonly #informer: Informer;
  readonly #controller: Controller;

  constructor(clusterRoles: Store, log: (message: string) => void) {
    this.#store = clusterRoles;
    // The aggregated roles by an index: looking for them through every role at each event
    // made a start's first list (~130 roles) quadratic.
    this.#informer = new Informer({ source: clusterRoles, resource: 'clusterroles', log, indexers: { [aggregatedIndex]: (role) => (selectorsOf(role) === undefined ? [] : ['']) } });
    this.#controller = new Controller({ name: 'clusterrole-aggregation', informers: [this.#informer], reconcile: (name) => this.#sync(name), log });
    // Which roles a change matters to is not known without the selectors: queue every aggregated role (few), as upstream.
    const enqueueAggregated = () => {
      for (const role of this.#informer.store.byIndex(aggregatedIndex, '')) this.#controller.queue.add(role.metadata.name!);
    };
    this.#informer.addHandlers({ add: enqueueAggregated, update: enqueueAggregated, delete: enqueueAggregated });
  }

  /** Starts; resolves once the aggregated roles existing now have their rules. */
  async start(): Promise<void> {
    await this.#controller.start();
    await this.#controller.idle();
  }

  /** Resolves once nothing is queued (for tests and start-up). */
  idle(): Promise<void> {
    return this.#controller.idle();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #sync(name: string): Promise<void> {
    const role = this.#informer.store.get(name);
    if (role === undefined || selectorsOf(role) === undefined) return;
    const rules = aggregatedRules(role, this.#informer.store.list());
    if (deepEqual(rules, role.rules ?? [])) return;
    // Upstream applies the rules with its own field manager, forcing.
    await this.#store.apply('', name, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules }, { fieldManager, force: true });
  }
}
