// ValidatingAdmissionPolicy admission (admissionregistration.k8s.io/v1), after upstream's
// plugin/policy/validating: every binding whose policy matches the request (the policy's
// matchConstraints and the binding's matchResources) evaluates the policy's CEL
// validations over object, oldObject, request, params, namespaceObject and variables,
// once per parameter object its paramRef selects. A failed validation is denied, warned
// about or audited as the binding's validationActions say; an expression that cannot be
// evaluated, or a binding that cannot be applied (no params, a missing param kind),
// denies under failurePolicy Fail and is passed over under Ignore.

import { StatusError, type KubeObject } from '../api/index.ts';
import { addAuditAnnotation, addWarning } from '../api/request-context.ts';
import { cel, loadCel } from '../cel/lazy.ts';
import type { MatchCondition } from '../cel/match-conditions.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.ts';
import {
  bindingApplies, boundPolicies, brokenVariableUsed, composeVariables, objects, paramsFor, policyVariableTypes, requestVariables, specOf, text, type BoundPolicy, type PolicySources, type Raw,
} from './policy-common.ts';
import { isExemptFromWebhooks } from './webhook-rules.ts';
import { evaluationErrorText } from '../cel/errors.ts';

export type { PolicySources } from './policy-common.ts';

interface Decision {
  action: 'deny' | 'admit';
  message: string;
  reason: string;
  /** Which validation failed (absent for failures of the binding itself). */
  expressionIndex?: number;
}

/** Upstream's reasonToCode. */
function codeFor(reason: string): number {
  return reason === 'Forbidden' ? 403 : reason === 'Unauthorized' ? 401 : reason === 'RequestEntityTooLarge' ? 413 : 422;
}

export function validatingAdmissionPolicy(sources: PolicySources): AdmissionPlugin {
  /** The decisions of one policy under one binding. */
  async function decide(policy: KubeObject, binding: KubeObject, attrs: AdmissionAttributes): Promise<Decision[]> {
    const { compile, evaluateMatchConditions, celValue } = await loadCel();
    const spec = specOf(policy);
    const failClosed = text(spec.failurePolicy) !== 'Ignore';
    const failure = (message: string): Decision[] => (failClosed ? [{ action: 'deny', message, reason: 'Invalid' }] : []);
    const params = await paramsFor(policy, binding, attrs, sources);
    if ('error' in params) return failure(params.error);
    if ('missing' in params) {
      return params.missing === 'Deny' ? [{ action: 'deny', message: 'no params found for policy binding with `Deny` parameterNotFoundAction', reason: 'Invalid' }] : [];
    }
    const base = await requestVariables(attrs, sources);
    const decisions: Decision[] = [];
    for (const param of params.params) {
      const variables: Record<string, unknown> = { ...base, params: param === null ? null : celValue(param, undefined) };
      const conditions: MatchCondition[] = objects(spec.matchConditions).map((c) => ({ name: text(c.name), expression: text(c.expression) }));
      if (conditions.length > 0) {
        const outcome = await evaluateMatchConditions(conditions, variables);
        if ('error' in outcome) {
          decisions.push(...failure(outcome.error));
          continue;
        }
        if (!outcome.matches) continue;
      }
      // Variables in order, each able to use those before it; one that fails fails what uses it.
      const broken = await composeVariables(spec, variables);
      // auditAnnotations: each value expression's string (null: none) under `<policy>/<key>`.
      for (const annotation of objects(spec.auditAnnotations)) {
        const compiled = compile(text(annotation.valueExpression), policyVariableTypes);
        try {
          const value = await compiled.program?.(variables);
          if (typeof value === 'string' && value !== '') addAuditAnnotation(`${policy.metadata.name}/${text(annotation.key)}`, value.slice(0, 10 * 1024));
        } catch (err) {
          decisions.push(...failure(`expression '${text(annotation.valueExpression)}' resulted in error: ${evaluationErrorText(err)}`));
        }
      }
      for (const [index, validation] of objects(spec.validations).entries()) {
        const expression = text(validation.expression);
        const usesBroken = brokenVariableUsed(expression, broken);
        if (usesBroken !== undefined) {
          decisions.push(...failure(usesBroken));
          continue;
        }
        const compiled = compile(expression, policyVariableTypes);
        if (compiled.program === undefined) {
          decisions.push(...failure(`compilation error: ${compiled.error}`));
          continue;
        }
        let result: unknown;
        try {
          result = await compiled.program(variables);
        } catch (err) {
          decisions.push(...failure(`expression '${expression}' resulted in error: ${evaluationErrorText(err)}`));
          continue;
        }
        if (result === true) continue;
        if (result !== false) {
          decisions.push(...failure(`expression '${expression}' resulted in an unexpected type: want bool`));
          continue;
        }
        decisions.push({ action: 'deny', message: await messageOf(validation, variables), reason: text(validation.reason) || 'Invalid', expressionIndex: index });
      }
    }
    return decisions;
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    validate(attrs) {
      if (isExemptFromWebhooks(attrs)) return undefined;
      const bound = boundPolicies(sources);
      return bound === undefined ? undefined : validateWith(attrs, bound);
    },
  };

  async function validateWith(attrs: AdmissionAttributes, pending: BoundPolicy[] | Promise<BoundPolicy[]>): Promise<void> {
    let denied: { policy: string; binding: string; decision: Decision } | undefined;
    const audited: Array<Record<string, unknown>> = [];
    for (const { policy, binding } of await pending) {
      const bindingSpec = specOf(binding);
      const sent = await bindingApplies(policy, binding, attrs, sources);
      if (sent === undefined) continue;
      const actions = Array.isArray(bindingSpec.validationActions) ? bindingSpec.validationActions.map(String) : [];
      for (const decision of await decide(policy, binding, sent)) {
        if (decision.action !== 'deny') continue;
        const [policyName, bindingName] = [policy.metadata.name ?? '', binding.metadata.name ?? ''];
        if (actions.includes('Warn')) addWarning(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${decision.message}`);
        if (actions.includes('Deny')) denied ??= { policy: policyName, binding: bindingName, decision };
        if (actions.includes('Audit')) {
          audited.push({ message: decision.message, policy: policyName, binding: bindingName, ...(decision.expressionIndex !== undefined ? { expressionIndex: decision.expressionIndex } : {}), validationActions: actions });
        }
      }
    }
    // Audit: the failures go into the request's audit event, as upstream's annotation.
    if (audited.length > 0) addAuditAnnotation('validation.policy.admission.k8s.io/validation_failure', JSON.stringify(audited));
    if (denied === undefined) return;
    const message = `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.decision.message}`;
    const resource = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
    const reason = denied.decision.reason;
    throw new StatusError(codeFor(reason), reason, `${resource} "${attrs.name}" is forbidden: ${message}`, {
      name: attrs.name, ...(attrs.group === '' ? {} : { group: attrs.group }), kind: attrs.resource, causes: [{ message }],
    });
  }
}

/** A failed validation's message: its message, else its messageExpression's answer, else upstream's default. */
async function messageOf(validation: Raw, variables: Record<string, unknown>): Promise<string> {
  if (text(validation.message) !== '') return text(validation.message);
  if (text(validation.messageExpression) !== '') {
    const compiled = cel().compile(text(validation.messageExpression), policyVariableTypes);
    try {
      const message = await compiled.program?.(variables);
      if (typeof message === 'string' && message.trim() !== '' && !message.includes('\n')) return message.trim();
    } catch {
      // As upstream: a messageExpression that fails falls back to the default message.
    }
  }
  return `failed expression: ${text(validation.expression).trim()}`;
}
