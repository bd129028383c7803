// The ValidatingAdmissionPolicy status controller (kube-controller-manager's
// validatingadmissionpolicy-status-controller), in-process: each policy's expressions
// are checked against the schemas of the kinds its matchConstraints name, and the
// result written to status.typeChecking.expressionWarnings with status.observedGeneration.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { cel, loadCel } from '../cel/lazy.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';
import { isObject } from '../api/json.ts';

type Raw = Record<string, unknown>;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): Raw[] => (Array.isArray(v) ? v.filter(isObject) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

const variables = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn', namespaceObject: 'dyn', variables: 'dyn', authorizer: 'dyn' };

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** The served kinds a policy's resource rules name exactly (wildcards and subresources are not checked). */
function matchedStores(policy: KubeObject, registry: ResourceRegistry): Store[] {
  const spec = isObject((policy as Raw).spec) ? (policy as Raw).spec as Raw : {};
  const constraints = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const stores = new Map<string, Store>();
  for (const rule of list(constraints.resourceRules)) {
    for (const group of strings(rule.apiGroups)) {
      for (const version of strings(rule.apiVersions)) {
        for (const resource of strings(rule.resources)) {
          if ([group, version, resource].some((x) => x === '*' || x.includes('/'))) continue;
          const served = registry.lookup(group, version, resource);
          if (served !== undefined) stores.set(`${group}/${version}/${resource}`, served.store);
        }
      }
    }
  }
  return [...stores.values()];
}

/** The warnings for a policy: each expression checked against each matched kind (after loadCel()). */
export function policyWarnings(policy: KubeObject, registry: ResourceRegistry): ExpressionWarning[] {
  const spec = isObject((policy as Raw).spec) ? (policy as Raw).spec as Raw : {};
  const expressions: Array<[string, string]> = [];
  list(spec.validations).forEach((v, i) => {
    expressions.push([`spec.validations[${i}].expression`, text(v.expression)]);
    if (text(v.messageExpression) !== '') expressions.push([`spec.validations[${i}].messageExpression`, text(v.messageExpression)]);
  });
  list(spec.auditAnnotations).forEach((a, i) => expressions.push([`spec.auditAnnotations[${i}].valueExpression`, text(a.valueExpression)]));
  list(spec.variables).forEach((v, i) => expressions.push([`spec.variables[${i}].expression`, text(v.expression)]));
  list(spec.matchConditions).forEach((c, i) => expressions.push([`spec.matchConditions[${i}].expression`, text(c.expression)]));
  const kinds = matchedStores(policy, registry).map((store) => ({ store, gvk: `${store.type.group}/${store.type.version}, Kind=${store.type.kind}`, ...store.typeSchema() }));
  const warnings: ExpressionWarning[] = [];
  for (const [fieldRef, expression] of expressions) {
    const lines = kinds.flatMap(({ gvk, schema, resolve }) => {
      const fields = cel().undefinedFieldErrors(expression, variables, { object: schema, oldObject: schema }, resolve);
      // Undefined fields first (cel-js's checker does not look into has()), then the types.
      const errors = fields.length > 0 ? fields : [cel().policyTypeError(expression, { schema, resolve })].filter((e) => e !== undefined);
      return errors.map((error) => `${gvk}: ${error}`);
    });
    if (lines.length > 0) warnings.push({ fieldRef, warning: lines.join('\n') });
  }
  return warnings;
}

export class AdmissionPolicyStatusController {
  readonly #policies: Store;
  readonly #registry: ResourceRegistry;
  readonly #informer: Informer;
  readonly #controller: Controller;

  constructor(opts: { policies: Store; registry: ResourceRegistry; log: (message: string) => void }) {
    this.#policies = opts.policies;
    this.#registry = opts.registry;
    this.#informer = new Informer({ source: opts.policies, resource: 'validatingadmissionpolicies', log: opts.log });
    this.#controller = new Controller({
      name: 'validatingadmissionpolicy-status', informers: [this.#informer], reconcile: (name) => this.#sync(name), log: opts.log,
      shouldLog: (err) => !(isStatusError(err) && (err.code === 409 || err.code === 404)),
    });
    const enqueue = (p: KubeObject) => this.#controller.queue.add(p.metadata.name!);
    this.#informer.addHandlers({ add: enqueue, update: (_, p) => enqueue(p) });
  }

  start(): Promise<void> {
    return this.#controller.start();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #sync(name: string): Promise<void> {
    const policy = this.#informer.store.get(name);
    if (policy === undefined) return;
    const status = isObject((policy as Raw).status) ? (policy as Raw).status as Raw : {};
    if (status.observedGeneration === policy.metadata.generation && isObject(status.typeChecking)) return;
    await loadCel();
    const warnings = policyWarnings(policy, this.#registry);
    await this.#policies.guaranteedUpdate('', name, undefined, {}, (current) => {
      if (current === undefined || current.metadata.uid !== policy.metadata.uid) throw new Gone();
      const currentStatus = isObject((current as Raw).status) ? (current as Raw).status as Raw : {};
      return { ...current, status: { ...currentStatus, observedGeneration: current.metadata.generation, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {} } } as KubeObject;
    }, { subresource: 'status' }).catch((err: unknown) => {
      if (!(err instanceof Gone)) throw err;
    });
  }
}

class Gone extends Error {}
