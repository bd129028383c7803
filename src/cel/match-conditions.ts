// matchConditions of admission webhooks (and admission policies): CEL expressions over
// the request that decide whether it is sent at all. As upstream's matcher: any
// condition false → no match; otherwise errors (a condition that fails to evaluate, or
// does not compile) leave the decision to failurePolicy.

import { compile } from './environment.ts';
import { evaluationErrorText } from './errors.ts';

export interface MatchCondition {
  name: string;
  expression: string;
}

/** What match conditions see: the object, the old object and the AdmissionRequest, in CEL form, and the authorizer library. */
export const matchConditionVariables = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn', namespaceObject: 'dyn', authorizer: 'kubernetes.authorization.Authorizer' } as const;

export type MatchOutcome = { matches: true } | { matches: false; failedCondition: string } | { error: string };

/** Evaluates the conditions in order; a promise only when an authorizer check must wait for its answer. */
export async function evaluateMatchConditions(conditions: readonly MatchCondition[], variables: Record<string, unknown>): Promise<MatchOutcome> {
  const errors: string[] = [];
  for (const condition of conditions) {
    const compiled = compile(condition.expression, matchConditionVariables);
    if (compiled.program === undefined) {
      errors.push(`compilation failed for expression ${JSON.stringify(condition.expression)}: ${compiled.error}`);
      continue;
    }
    let result: unknown;
    try {
      result = await compiled.program(variables);
    } catch (err) {
      errors.push(`expression '${condition.expression}' resulted in error: ${evaluationErrorText(err)}`);
      continue;
    }
    if (result === false) return { matches: false, failedCondition: condition.name };
    if (result !== true) errors.push(`expression '${condition.expression}' resulted in an unexpected type: want bool`);
  }
  if (errors.length > 0) return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
  return { matches: true };
}
