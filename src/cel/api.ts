// What the rest of the server calls of CEL, loaded on first use through lazy.ts.
export { compile } from './environment.ts';
export { evaluateMatchConditions, matchConditionVariables } from './match-conditions.ts';
export { celToJson } from './objects.ts';
export { undefinedFieldErrors } from './type-check.ts';
export { policyTypeError } from './schema-types.ts';
export { admissionFieldErrors } from './admission-types.ts';
export { celValue, evaluateValidationRules, validationRuleErrors } from './validation-rules.ts';
export { totalCostContribution } from './cost.ts';
export { compileAuthenticationExpression, compileAuthorizationCondition, selectsField } from './authentication.ts';
export { CelAuthorizer, type Authorize } from './authz.ts';
