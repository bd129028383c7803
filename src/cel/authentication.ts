// CEL of structured authentication and authorization (AuthenticationConfiguration,
// AuthorizationConfiguration): claim mappings and claim validation rules see `claims` (the
// token's claims, map(string, dyn)); user validation rules see `user` (authentication.k8s.io's
// UserInfo: username, uid, groups, extra); a webhook authorizer's match conditions see
// `request` (a SubjectAccessReview's spec). As upstream's compilers: an expression that does
// not compile, reads a field its variable's type does not have, or (for a rule or a
// condition) is not of type bool is refused with its detail.

import { compile } from './environment.ts';
import { undefinedFieldErrors } from './type-check.ts';
import { celValue } from './validation-rules.ts';
import { evaluationErrorText } from './errors.ts';

type Raw = Record<string, unknown>;

const claimsVariables = { claims: 'map<string, dyn>' } as const;
const userVariables = { user: 'dyn' } as const;

const stringList = { type: 'array', items: { type: 'string' } };
const userInfoSchema: Raw = {
  type: 'object',
  properties: { username: { type: 'string' }, uid: { type: 'string' }, groups: stringList, extra: { type: 'object', additionalProperties: stringList } },
};

const selectorSchema = {
  type: 'object',
  properties: {
    rawSelector: { type: 'string' },
    requirements: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, operator: { type: 'string' }, values: stringList } } },
  },
};
const reviewSpecSchema: Raw = {
  type: 'object',
  properties: {
    resourceAttributes: {
      type: 'object',
      properties: {
        namespace: { type: 'string' }, verb: { type: 'string' }, group: { type: 'string' }, version: { type: 'string' }, resource: { type: 'string' },
        subresource: { type: 'string' }, name: { type: 'string' }, fieldSelector: selectorSchema, labelSelector: selectorSchema,
      },
    },
    nonResourceAttributes: { type: 'object', properties: { path: { type: 'string' }, verb: { type: 'string' } } },
    user: { type: 'string' }, groups: stringList, extra: { type: 'object', additionalProperties: stringList }, uid: { type: 'string' },
  },
};
const requestVariables = { request: 'dyn' } as const;

/**
 * A webhook authorizer's match condition, compiled: `request` is the SubjectAccessReview's
 * spec (user, groups, uid and extra always present). Upstream's details when it does not
 * compile or is not of type bool.
 */
export function compileAuthorizationCondition(expression: string): AuthenticationExpression {
  const compiled = compile(expression, requestVariables);
  if (compiled.program === undefined) return { error: `compilation failed: ${compiled.error}` };
  const undefinedFields = undefinedFieldErrors(expression, requestVariables, { request: reviewSpecSchema }, (s) => s, { nativeFields: true });
  if (undefinedFields.length > 0) return { error: `compilation failed: ${undefinedFields.join('\n')}` };
  if (compiled.type !== 'bool') return { error: `must evaluate to bool but got ${compiled.type}` };
  const program = compiled.program;
  return {
    ast: compiled.ast,
    evaluate(input) {
      try {
        return fromCel(program({ request: celValue({ user: '', groups: [], uid: '', extra: {}, ...input }, undefined) }));
      } catch (err) {
        throw new Error(evaluationErrorText(err));
      }
    },
  };
}

export type AuthenticationExpression =
  | { evaluate(input: Readonly<Raw>): unknown; ast: unknown }
  | { error: string };

/**
 * Compiles an expression of `claims` or of `user`; `bool`: it must be of type bool (a
 * validation rule), else any type (a mapping, checked when it runs). The error is upstream's
 * detail (`compilation failed: …`, `must evaluate to bool`).
 */
export function compileAuthenticationExpression(expression: string, variable: 'claims' | 'user', bool: boolean): AuthenticationExpression {
  const variables = variable === 'claims' ? claimsVariables : userVariables;
  const compiled = compile(expression, variables);
  if (compiled.program === undefined) return { error: `compilation failed: ${compiled.error}` };
  if (variable === 'user') {
    const undefinedFields = undefinedFieldErrors(expression, variables, { user: userInfoSchema }, (s) => s, { nativeFields: true });
    if (undefinedFields.length > 0) return { error: `compilation failed: ${undefinedFields.join('\n')}` };
  }
  if (bool && compiled.type !== 'bool') return { error: 'must evaluate to bool' };
  const program = compiled.program;
  return {
    ast: compiled.ast,
    evaluate(input) {
      try {
        return fromCel(program({ [variable]: celValue(input, undefined) }));
      } catch (err) {
        throw new Error(evaluationErrorText(err));
      }
    },
  };
}

/** A value back from CEL: ints as numbers where exact, lists and maps as JSON. */
function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCel(v)]));
  return value;
}


/**
 * Whether the expression reads `operand.field` (a select, `has()`, or an optional select
 * `operand.?field`), as upstream's hasSelectExp finds `claims.email` and `claims.email_verified`.
 */
export function selectsField(ast: unknown, operand: string, field: string): boolean {
  if (ast === null || typeof ast !== 'object') return false;
  if (Array.isArray(ast)) return ast.some((item) => selectsField(item, operand, field));
  const node = ast as { op?: unknown; args?: unknown };
  if ((node.op === '.' || node.op === '.?') && Array.isArray(node.args)) {
    const [target, name] = node.args as [{ op?: unknown; args?: unknown }, unknown];
    if (target?.op === 'id' && target.args === operand && name === field) return true;
  }
  return selectsField(node.args, operand, field);
}
