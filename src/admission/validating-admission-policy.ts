// ValidatingAdmissionPolicy admission (admissionregistration.k8s.io/v1), after upstream's
// plugin/policy/validating: every binding whose policy matches the request (the policy's
// matchConstraints and the binding's matchResources) evaluates the policy's CEL
// validations over object, oldObject, request, params, namespaceObject and variables,
// once per parameter object its paramRef selects. A failed validation is denied, warned
// about or audited as the binding's validationActions say, and so is an expression that
// cannot be evaluated under failurePolicy Fail; a binding that cannot be applied (no params
// under `Deny`, a param kind not served) denies under Fail whatever its validationActions.
// Under Ignore both are passed over. The policy's auditAnnotations, and the Audit action's
// failure, annotate the request's audit event.

import { StatusError, type KubeObject } from '../api/index.ts';
import { goJson } from '../api/field-errors.ts';
import { addAuditAnnotation, addWarning, auditedRequest } from '../api/request-context.ts';
import { cel, loadCel } from '../cel/lazy.ts';
import type { MatchCondition } from '../cel/match-conditions.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.ts';
import {
  bindingApplies, boundPolicies, composeVariables, objects, paramsFor, policyVariableTypes, requestVariables, specOf, text, type BoundPolicy, type PolicySources, type Raw, type RunExpression,
} from './policy-common.ts';
import { isExemptFromWebhooks } from './webhook-rules.ts';
import { evaluationErrorText } from '../cel/errors.ts';

export type { PolicySources } from './policy-common.ts';

interface Decision {
  action: 'deny' | 'admit';
  message: string;
  reason: string;
  /** Which validation failed (absent for failures of the binding itself; the audit annotation then says 0, as upstream's). */
  expressionIndex?: number;
  /**
   * Denied whatever the binding's validationActions, as upstream's dispatcher does: an audit
   * annotation that failed, or a policy or binding that could not be configured for the request.
   */
  always?: boolean;
  /** A failure of the policy itself (its paramKind not served): the message names no binding. */
  ofPolicy?: boolean;
}

/** What one policy under one binding decided, and the audit annotations it publishes (key, value). */
interface Outcome {
  decisions: Decision[];
  annotations: Array<[string, string]>;
}

/** Upstream's maxAuditAnnotationValueLength: a value's bytes past it are cut off. */
const maxAuditAnnotationValueBytes = 10 * 1024;
/** Upstream's MaxEvaluatedMessageExpressionSizeBytes: a longer message is not used. */
const maxMessageExpressionBytes = 5 * 1024;

/** Go's strings.TrimSpace (unicode.IsSpace: U+0085 is a space to Go, U+FEFF is not, unlike String.prototype.trim). */
const goSpaceEnds = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const goTrimSpace = (value: string): string => value.replace(goSpaceEnds, '');

/**
 * A Go string's first `max` bytes (`value[:max]`), as its JSON encoder then writes it: the
 * bytes of a character cut in two each become U+FFFD.
 */
function firstBytes(value: string, max: number): string {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= max) return value;
  let lead = max - 1;
  while (lead > max - 4 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  const first = bytes[lead]!;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  const whole = lead + length > max ? lead : max;
  return bytes.subarray(0, whole).toString('utf8') + '\ufffd'.repeat(max - whole);
}

/** The CEL type of an evaluated value, as cel-go's ref.Type prints it. */
function celTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  const name = (value as object).constructor?.name;
  return name === 'UnsignedInt' ? 'uint' : name === 'Duration' ? 'google.protobuf.Duration' : name === 'Optional' ? 'optional_type' : 'map';
}

/** Upstream's reasonToCode. */
function codeFor(reason: string): number {
  return reason === 'Forbidden' ? 403 : reason === 'Unauthorized' ? 401 : reason === 'RequestEntityTooLarge' ? 413 : 422;
}

export function validatingAdmissionPolicy(sources: PolicySources): AdmissionPlugin {
  /** The decisions of one policy under one binding, and the audit annotations it publishes. */
  async function decide(policy: KubeObject, binding: KubeObject, attrs: AdmissionAttributes): Promise<Outcome> {
    const { compile, evaluateMatchConditions, celValue } = await loadCel();
    const spec = specOf(policy);
    const failClosed = text(spec.failurePolicy) !== 'Ignore';
    // A failure to evaluate names the validation it concerns (upstream's decision index: 0 for the policy's own).
    const failure = (message: string, expressionIndex = 0): Decision[] => (failClosed ? [{ action: 'deny', message, reason: 'Invalid', expressionIndex }] : []);
    // A policy or binding that cannot be configured denies under failurePolicy Fail, whatever
    // the binding's validationActions (upstream's addConfigError); no params under `Deny` is one.
    const configurationError = (message: string, ofPolicy = false): Outcome => ({
      decisions: failClosed ? [{ action: 'deny', message, reason: 'Invalid', always: true, ...(ofPolicy ? { ofPolicy } : {}) }] : [],
      annotations: [],
    });
    const params = await paramsFor(policy, binding, attrs, sources);
    if ('error' in params) return configurationError(params.error, params.ofPolicy);
    if ('missing' in params) {
      return params.missing === 'Deny' ? configurationError('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction') : { decisions: [], annotations: [] };
    }
    const base = await requestVariables(attrs, sources);
    const decisions: Decision[] = [];
    const annotations: Array<[string, string]> = [];
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
      // Each variable evaluated when an expression first reads it; one that fails fails what needs it.
      const run = composeVariables(spec, variables);
      for (const [index, validation] of objects(spec.validations).entries()) {
        const expression = text(validation.expression);
        const compiled = compile(expression, policyVariableTypes);
        if (compiled.program === undefined) {
          decisions.push(...failure(`compilation error: ${compiled.error}`, index));
          continue;
        }
        let result: unknown;
        try {
          result = await run(compiled.program);
        } catch (err) {
          decisions.push(...failure(`expression '${expression}' resulted in error: ${evaluationErrorText(err)}`, index));
          continue;
        }
        if (result === true) continue;
        if (result !== false) {
          decisions.push(...failure(`expression '${expression}' resulted in an unexpected type: want bool`, index));
          continue;
        }
        decisions.push({ action: 'deny', message: await messageOf(validation, run), reason: text(validation.reason) || 'Invalid', expressionIndex: index });
      }
      // auditAnnotations after the validations, as upstream's validator: each value expression's
      // string, trimmed (empty, or null: none), published under `<policy>/<key>`. One that fails
      // denies under failurePolicy Fail, and one of another type always, whatever the binding's actions.
      for (const annotation of objects(spec.auditAnnotations)) {
        const valueExpression = text(annotation.valueExpression);
        const compiled = compile(valueExpression, policyVariableTypes);
        let value: unknown;
        try {
          if (compiled.program === undefined) throw new Error(`compilation error: ${compiled.error}`);
          value = await run(compiled.program);
        } catch (err) {
          if (failClosed) decisions.push({ action: 'deny', message: `expression '${valueExpression}' resulted in error: ${evaluationErrorText(err)}`, reason: 'Invalid', always: true });
          continue;
        }
        if (value === null) continue;
        if (typeof value !== 'string') {
          const message = `valueExpression '${valueExpression}' resulted in unsupported return type: ${celTypeName(value)}. Return type must be either string or null.`;
          decisions.push({ action: 'deny', message, reason: 'Invalid', always: true });
          continue;
        }
        const trimmed = goTrimSpace(value);
        if (trimmed !== '') annotations.push([text(annotation.key), firstBytes(trimmed, maxAuditAnnotationValueBytes)]);
      }
    }
    return { decisions, annotations };
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
    const audited = auditedRequest();
    // Each policy's audit annotations over its bindings and their params: a value once,
    // distinct values of a key joined with ", " (upstream's auditAnnotationCollector).
    let published: Map<string, Map<string, string[]>> | undefined;
    for (const { policy, binding } of await pending) {
      const bindingSpec = specOf(binding);
      const sent = await bindingApplies(policy, binding, attrs, sources);
      if (sent === undefined) continue;
      const actions = Array.isArray(bindingSpec.validationActions) ? bindingSpec.validationActions.map(String) : [];
      const [policyName, bindingName] = [policy.metadata.name ?? '', binding.metadata.name ?? ''];
      const outcome = await decide(policy, binding, sent);
      for (const decision of outcome.decisions) {
        if (decision.action !== 'deny') continue;
        if (decision.always === true) {
          denied ??= { policy: policyName, binding: bindingName, decision };
          continue;
        }
        if (actions.includes('Warn')) addWarning(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${decision.message}`);
        if (actions.includes('Deny')) denied ??= { policy: policyName, binding: bindingName, decision };
        // Audit: upstream's annotation, a list of this one failure (ValidationFailureValue's fields in
        // order): the event keeps the request's first, as upstream's admission attributes refuse to overwrite it.
        if (actions.includes('Audit') && audited) {
          const failure = { message: decision.message, policy: text(bindingSpec.policyName), binding: bindingName, expressionIndex: decision.expressionIndex ?? 0, validationActions: bindingSpec.validationActions ?? null };
          addAuditAnnotation('validation.policy.admission.k8s.io/validation_failure', goJson([failure]).text);
        }
      }
      if (outcome.annotations.length === 0 || !audited) continue;
      published ??= new Map();
      let keys = published.get(policyName);
      if (keys === undefined) published.set(policyName, (keys = new Map()));
      for (const [key, value] of outcome.annotations) {
        const values = keys.get(key);
        if (values === undefined) keys.set(key, [value]);
        else if (!values.includes(value)) values.push(value);
      }
    }
    for (const [policyName, keys] of published ?? []) {
      for (const [key, values] of keys) addAuditAnnotation(`${policyName}/${key}`, values.join(', '));
    }
    if (denied === undefined) return;
    const policyText = denied.decision.ofPolicy === true ? `ValidatingAdmissionPolicy '${denied.policy}'` : `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}'`;
    const message = `${policyText} denied request: ${denied.decision.message}`;
    const resource = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
    const reason = denied.decision.reason;
    throw new StatusError(codeFor(reason), reason, `${resource} "${attrs.name}" is forbidden: ${message}`, {
      name: attrs.name, ...(attrs.group === '' ? {} : { group: attrs.group }), kind: attrs.resource, causes: [{ message }],
    });
  }
}

/**
 * A failed validation's message, as upstream's validator picks it: its messageExpression's
 * string, trimmed, unless that fails, is empty, longer than 5 KiB or has a line break; else
 * its message, trimmed; else `failed expression: ` and the expression.
 */
async function messageOf(validation: Raw, run: RunExpression): Promise<string> {
  if (text(validation.messageExpression) !== '') {
    const compiled = cel().compile(text(validation.messageExpression), policyVariableTypes);
    try {
      const evaluated = compiled.program === undefined ? undefined : await run(compiled.program);
      const message = typeof evaluated === 'string' ? goTrimSpace(evaluated) : '';
      if (message !== '' && Buffer.byteLength(message) <= maxMessageExpressionBytes && !message.includes('\n')) return message;
    } catch {
      // As upstream: a messageExpression that fails falls back to the message.
    }
  }
  const message = goTrimSpace(text(validation.message));
  return message !== '' ? message : `failed expression: ${goTrimSpace(text(validation.expression))}`;
}
