// MutatingAdmissionPolicy admission (admissionregistration.k8s.io/v1), after upstream's
// plugin/policy/mutating: every binding whose policy matches the request applies the
// policy's mutations in order, once per parameter object: an ApplyConfiguration
// (`Object{spec: Object.spec{…}}`) merged into the object by its type's structure, or a
// list of JSONPatch operations. Each mutation sees the object as the ones before left it.
// An expression that cannot be evaluated, or a binding that cannot be applied, refuses the
// request under failurePolicy Fail and is passed over under Ignore. A policy that changed the
// object makes the chain run the mutating phase again (chain.ts's Reinvocation), where the
// policies with reinvocationPolicy IfNeeded that ran before a change apply again.

import { StatusError, type KubeObject } from '../api/index.ts';
import { deepEqual, isObject } from '../api/json.ts';
import { loadCel } from '../cel/lazy.ts';
import { applyJsonPatch } from '../patch/index.ts';
import { reinvocationOf, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { takeMutation } from './equivalents.ts';
import {
  bindingApplies, boundPolicies, composeVariables, firstLine, objects, paramsFor, policyVariableTypes, requestVariables, specOf, text, type BoundPolicy, type PolicySources,
} from './policy-common.ts';
import { isExemptFromWebhooks } from './webhook-rules.ts';
import { evaluationErrorText } from '../cel/errors.ts';

export interface MutatingPolicySources extends PolicySources {
  /** An apply configuration merged into the request's object by its type's structure. */
  mergeConfiguration(attrs: AdmissionAttributes, obj: KubeObject, configuration: unknown): KubeObject;
}

class MutationFailure extends Error {}

export function mutatingAdmissionPolicy(sources: MutatingPolicySources): AdmissionPlugin {
  /** Applies one policy's mutations under one binding to attrs.object: whether they changed it. */
  async function mutate(policy: KubeObject, binding: KubeObject, attrs: AdmissionAttributes): Promise<boolean> {
    const { compile, evaluateMatchConditions, celToJson, celValue } = await loadCel();
    const spec = specOf(policy);
    const params = await paramsFor(policy, binding, attrs, sources);
    if ('error' in params) throw new MutationFailure(params.error);
    if ('missing' in params) {
      if (params.missing === 'Deny') throw new MutationFailure('no params found for policy binding with `Deny` parameterNotFoundAction');
      return false;
    }
    let changed = false;
    for (const param of params.params) {
      const variables: Record<string, unknown> = { ...(await requestVariables(attrs, sources)), params: param === null ? null : celValue(param, undefined) };
      const conditions = objects(spec.matchConditions).map((c) => ({ name: text(c.name), expression: text(c.expression) }));
      if (conditions.length > 0) {
        const outcome = await evaluateMatchConditions(conditions, variables);
        if ('error' in outcome) throw new MutationFailure(outcome.error);
        if (!outcome.matches) continue;
      }
      for (const mutation of objects(spec.mutations)) {
        const patchType = text(mutation.patchType);
        const holder = patchType === 'JSONPatch' ? mutation.jsonPatch : mutation.applyConfiguration;
        const expression = isObject(holder) ? text(holder.expression) : '';
        // Variables evaluated afresh for each mutation (as upstream's), over the object as the ones before left it.
        const run = composeVariables(spec, variables);
        const compiled = compile(expression, policyVariableTypes, { objects: true });
        if (compiled.program === undefined) throw new MutationFailure(`compilation error: ${compiled.error}`);
        let result: unknown;
        try {
          result = celToJson(await run(compiled.program));
        } catch (err) {
          throw new MutationFailure(`expression '${expression}' resulted in error: ${evaluationErrorText(err)}`);
        }
        const obj = attrs.object!;
        let next: unknown;
        try {
          if (patchType === 'JSONPatch') {
            if (!Array.isArray(result)) throw new Error('the expression must evaluate to a list of JSONPatch');
            next = applyJsonPatch(obj, result);
          } else {
            if (!isObject(result)) throw new Error('the expression must evaluate to an Object');
            next = sources.mergeConfiguration(attrs, obj, result);
          }
        } catch (err) {
          throw new MutationFailure(`failed to apply ${patchType || 'ApplyConfiguration'}: ${firstLine(err)}`);
        }
        if (!isObject(next) || next.apiVersion !== obj.apiVersion || next.kind !== obj.kind) {
          throw new MutationFailure('the mutation may not change the object\'s apiVersion or kind');
        }
        if (deepEqual(obj, next)) continue;
        for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
        Object.assign(obj, next);
        attrs.mutated = true;
        changed = true;
        // The next mutation sees the object as this one left it.
        variables.object = celValue(obj, undefined);
      }
    }
    return changed;
  }

  return {
    name: 'MutatingAdmissionPolicy',
    admit(attrs) {
      // Only writes with an object are mutated; it is read (decoded, for an apply run on the
      // worker thread) only once a policy is bound.
      if (isExemptFromWebhooks(attrs) || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return undefined;
      const bound = boundPolicies(sources);
      if (bound === undefined || attrs.object === undefined) return undefined;
      return admitWith(attrs, bound);
    },
    observesMutating(attrs) {
      return !isExemptFromWebhooks(attrs) && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE') && boundPolicies(sources) !== undefined;
    },
  };

  async function admitWith(attrs: AdmissionAttributes, pending: BoundPolicy[] | Promise<BoundPolicy[]>): Promise<void> {
    const reinvocation = reinvocationOf(attrs);
    const record = reinvocation.record('MutatingAdmissionPolicy');
    // Changed by others since this plugin's last pass: every policy that asked to applies again.
    if (reinvocation.again && record.changedSince(attrs.object)) record.changed();
    for (const { policy, binding } of await pending) {
      const key = `${policy.metadata.name}\0${binding.metadata.name}`;
      if (reinvocation.again && !record.runsAgain(key)) continue;
      const sent = await bindingApplies(policy, binding, attrs, sources);
      if (sent === undefined) continue;
      try {
        if (await mutate(policy, binding, sent)) {
          // Mutated as another version serves the object (matchPolicy Equivalent): back to the request's.
          if (sent !== attrs) await takeMutation(sent, attrs, sources.equivalents!);
          record.changed();
          reinvocation.requested = true;
        }
        if (text(specOf(policy).reinvocationPolicy) === 'IfNeeded') record.invoked(key);
      } catch (err) {
        if (!(err instanceof MutationFailure)) throw err;
        if (text(specOf(policy).failurePolicy) === 'Ignore') {
          sources.log(`MutatingAdmissionPolicy ${policy.metadata.name}: failing open: ${err.message}`);
          continue;
        }
        const message = `policy '${policy.metadata.name}' with binding '${binding.metadata.name}' denied request: ${err.message}`;
        const resource = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
        throw new StatusError(403, 'Forbidden', `${resource} "${attrs.name}" is forbidden: ${message}`, {
          name: attrs.name, ...(attrs.group === '' ? {} : { group: attrs.group }), kind: attrs.resource,
        });
      }
    }
    record.left(attrs.object);
  }
}
