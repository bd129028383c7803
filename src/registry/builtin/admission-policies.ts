// Defaults and validation of admissionregistration.k8s.io/v1 validating and mutating admission
// policies and their bindings, after kubernetes pkg/apis/admissionregistration/v1/defaults.go,
// pkg/apis/admissionregistration/validation and pkg/registry/admissionregistration.
// Expressions are compiled as upstream compiles them when a policy is written: one that
// does not compile is 422.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { cel } from '../../cel/lazy.ts';
import type { Strategy } from '../resource-type.ts';
import { appendAll, duplicate, forbidden, goJson, type GoValue, invalid, notSupported, required } from '../validation/field.ts';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, validateName } from '../validation/names.ts';
import { checkEnum, defaultPointer, failurePolicies, matchPolicies, reinvocationPolicies, staticSuffixWarnings, strings, validateMatchConditions, validateRule } from './admission-rules.ts';
import { generationStrategy, keepOldMetadata, keepOldSpec, specStatusStrategy } from './common.ts';
import { objectAt, objectsAt, stringAt } from './object.ts';
import { validateLabelSelector } from './selector-validation.ts';

const validationReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const validationActions = ['Audit', 'Deny', 'Warn'];
const patchTypes = ['ApplyConfiguration', 'JSONPatch'];
/** The operations a mutating policy or binding may match: no DELETE. */
const mutatingOperations = ['*', 'CONNECT', 'CREATE', 'UPDATE'];
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;

type PolicyKind = 'mutating' | 'validating';

/**
 * SetDefaults_MatchResources and SetDefaults_Rule of each rule. matchPolicy, scope,
 * failurePolicy and parameterNotFoundAction are pointers in Go: an explicit "" is kept, and
 * refused by validation.
 */
function defaultMatchResources(match: JsonObject | undefined): void {
  if (match === undefined) return;
  defaultPointer(match, 'matchPolicy', 'Equivalent');
  if (!isObject(match.namespaceSelector)) match.namespaceSelector = {};
  if (!isObject(match.objectSelector)) match.objectSelector = {};
  for (const rule of [...objectsAt(match, 'resourceRules'), ...objectsAt(match, 'excludeResourceRules')]) defaultPointer(rule, 'scope', '*');
}

/**
 * SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MutatingAdmissionPolicySpec:
 * failurePolicy only. A mutating policy's reinvocationPolicy has no default (unlike a mutating
 * webhook's): left out, validation answers Required.
 */
function defaultPolicy(obj: KubeObject): void {
  const spec = objectAt(obj, 'spec');
  if (spec === undefined) return;
  defaultPointer(spec, 'failurePolicy', 'Fail');
  defaultMatchResources(objectAt(spec, 'matchConstraints'));
}

function defaultBinding(obj: KubeObject): void {
  const spec = objectAt(obj, 'spec');
  if (spec === undefined) return;
  const paramRef = objectAt(spec, 'paramRef');
  if (paramRef !== undefined) defaultPointer(paramRef, 'parameterNotFoundAction', 'Deny');
  defaultMatchResources(objectAt(spec, 'matchResources'));
}

const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';
/** A pointer field left nil (upstream's Required for it); "" is a value, checked against the enumeration. */
const unset = (v: unknown) => v === undefined || v === null;

/** validateParamKind: apiVersion as group/version, kind a mixed-case DNS-1035 label. */
function validateParamKind(kind: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const apiVersion = stringAt(kind, 'apiVersion');
  if (apiVersion === '') causes.push(required(`${path}.apiVersion`));
  else if (apiVersion.split('/').length > 2) causes.push(invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else if (apiVersion !== '/') {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
    if (group !== '') {
      const errs = isDNS1123Subdomain(group);
      if (errs.length > 0) causes.push(invalid(`${path}.apiVersion`, group, errs.join(',')));
    }
    if (version === '') causes.push(invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const errs = isDNS1035Label(version);
      if (errs.length > 0) causes.push(invalid(`${path}.apiVersion`, version, errs.join(',')));
    }
  } else causes.push(invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
  const kindName = stringAt(kind, 'kind');
  if (kindName === '') causes.push(required(`${path}.kind`));
  else {
    const errs = isDNS1035Label(kindName.toLowerCase());
    if (errs.length > 0) causes.push(invalid(`${path}.kind`, kindName, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
  }
  return causes;
}

/** validateNamedRuleWithOperations: resource names are path segments, unique. */
function validateNamedRule(rule: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  strings(rule.resourceNames).forEach((name, i) => {
    for (const msg of validateName(name, 'path-segment')) causes.push(invalid(`${path}.resourceNames[${i}]`, name, msg));
    if (names.has(name)) causes.push(duplicate(`${path}.resourceNames[${i}]`, name));
    names.add(name);
  });
  return [...causes, ...validateRule(rule, path)];
}

function validateSelector(selector: unknown, path: string): StatusCause[] {
  return isObject(selector) ? validateLabelSelector(selector, path) : [required(path)];
}

/** validateMatchResources. */
function validateMatchResources(match: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (unset(match.matchPolicy)) causes.push(required(`${path}.matchPolicy`));
  else appendAll(causes, checkEnum(match.matchPolicy, matchPolicies, `${path}.matchPolicy`));
  appendAll(causes, validateSelector(match.namespaceSelector, `${path}.namespaceSelector`));
  appendAll(causes, validateSelector(match.objectSelector, `${path}.objectSelector`));
  objectsAt(match, 'resourceRules').forEach((r, i) => appendAll(causes, validateNamedRule(r, `${path}.resourceRules[${i}]`)));
  objectsAt(match, 'excludeResourceRules').forEach((r, i) => appendAll(causes, validateNamedRule(r, `${path}.excludeResourceRules[${i}]`)));
  return causes;
}

/** What a mutating policy or binding adds: its rules may not match DELETE. */
function validateMutatingOperations(match: JsonObject, path: string): StatusCause[] {
  return objectsAt(match, 'resourceRules').flatMap((rule) =>
    strings(rule.operations).filter((op) => !mutatingOperations.includes(op)).map((op) => notSupported(path, op, mutatingOperations)));
}

const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import',
  'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** What a policy's expressions see (all dynamically typed). */
const policyVariables = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn', namespaceObject: 'dyn', variables: 'dyn', authorizer: 'dyn' };

/**
 * What an expression may name, as upstream's OptionalVariableDeclarations: `params` only
 * when the policy has a paramKind (else "undeclared reference to 'params'"), `authorizer`
 * everywhere but in a messageExpression.
 */
interface Declared {
  params: boolean;
  authorizer?: boolean;
  /** The policy's variables' types, by name (variableTypes). */
  variables?: ReadonlyMap<string, string>;
}

function variablesFor(declared: Declared): Partial<typeof policyVariables> {
  const { params, authorizer, ...rest } = policyVariables;
  return { ...rest, ...(declared.params ? { params } : {}), ...(declared.authorizer === false ? {} : { authorizer }) };
}

/**
 * An expression compiles, and when `returns` names the types it may have (by cel-js's names),
 * has one of them exactly, as upstream's compiler requires (a dyn result is none of them:
 * `must evaluate to bool`, `must evaluate to one of [string null_type]`). `shown` is the value
 * the error shows (an audit annotation's untrimmed expression).
 */
function compiles(expression: string, path: string, opts: { objects?: boolean; returns?: readonly string[]; shown?: string; declared?: Declared } = {}): StatusCause[] {
  const variables = opts.declared === undefined ? policyVariables : variablesFor(opts.declared);
  const compiled = cel().compile(expression, variables, { objects: opts.objects === true });
  const shown = opts.shown ?? expression;
  const error = compiled.error ?? cel().admissionFieldErrors(expression, variables, { objects: opts.objects === true }).join('\n');
  if (error !== '') return [invalid(path, shown, `compilation failed: ${error}`)];
  const returns = opts.returns;
  const type = compiled.type === 'dyn' ? selectedVariableType(expression, opts.declared?.variables) ?? 'dyn' : compiled.type ?? '';
  if (returns === undefined || returns.includes(type)) return [];
  const names = returns.map((type) => (type === 'null' ? 'null_type' : type));
  return [invalid(path, shown, names.length === 1 ? `must evaluate to ${names[0]}` : `must evaluate to one of [${names.join(' ')}]`)];
}

/**
 * The type of the variable an expression only selects (`variables.b`, perhaps in
 * parentheses). Upstream's composition declares each variable with its expression's type;
 * Plinth's checker types `variables` dyn, so a bare selection is where it can give one.
 */
function selectedVariableType(expression: string, types: ReadonlyMap<string, string> | undefined): string | undefined {
  const selection = /^[\s(]*variables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)[\s)]*$/.exec(expression);
  if (selection === null || expression.split('(').length !== expression.split(')').length) return undefined;
  return types?.get(selection[1]!);
}

/** Each variable's type, as its expression has it (one selecting an earlier variable, that one's), for the expressions that read it. */
function variableTypes(spec: JsonObject, declared: Declared): Map<string, string> {
  const types = new Map<string, string>();
  for (const variable of objectsAt(spec, 'variables')) {
    const expression = stringAt(variable, 'expression');
    const type = cel().compile(expression, variablesFor(declared)).type ?? 'dyn';
    types.set(stringAt(variable, 'name'), type === 'dyn' ? selectedVariableType(expression, types) ?? 'dyn' : type);
  }
  return types;
}

function validateVariable(variable: JsonObject, path: string, declared: Declared): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringAt(variable, 'name');
  if (name.trim() === '') causes.push(required(`${path}.name`, 'name is not specified'));
  else if (!celIdentifier.test(name) || celReserved.has(name)) causes.push(invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  if (blank(variable.expression)) causes.push(required(`${path}.expression`, 'expression is not specified'));
  else appendAll(causes, compiles(stringAt(variable, 'expression'), `${path}.expression`, { declared }));
  return causes;
}

function validateValidation(validation: JsonObject, path: string, declared: Declared): StatusCause[] {
  const causes: StatusCause[] = [];
  if (blank(validation.expression)) causes.push(required(`${path}.expression`, 'expression is not specified'));
  else appendAll(causes, compiles(stringAt(validation, 'expression'), `${path}.expression`, { returns: ['bool'], declared }));
  const messageExpression = stringAt(validation, 'messageExpression');
  if (messageExpression !== '' && messageExpression.trim() === '') causes.push(invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  else if (messageExpression !== '') appendAll(causes, compiles(messageExpression, `${path}.messageExpression`, { returns: ['string'], declared: { ...declared, authorizer: false } }));
  const message = stringAt(validation, 'message');
  if (message !== '' && message.trim() === '') causes.push(invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) causes.push(invalid(`${path}.message`, message, 'message must not contain line breaks'));
  appendAll(causes, checkEnum(validation.reason, validationReasons, `${path}.reason`));
  return causes;
}

function validateAuditAnnotation(policyName: string, annotation: JsonObject, path: string, declared: Declared): StatusCause[] {
  const causes: StatusCause[] = [];
  const key = stringAt(annotation, 'key');
  if (policyName === '') causes.push(invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  else for (const msg of isQualifiedName(`${policyName}/${key}`)) causes.push(invalid(`${path}.key`, `${policyName}/${key}`, msg));
  const written = stringAt(annotation, 'valueExpression');
  const value = written.trim();
  if (value === '') causes.push(required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (Buffer.byteLength(value) > maxAuditAnnotationValueExpressionLength) {
    causes.push(required(`${path}.valueExpression`, `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
  } else appendAll(causes, compiles(value, `${path}.valueExpression`, { returns: ['string', 'null'], shown: written, declared }));
  return causes;
}

/** The internal []admissionregistration.AuditAnnotation as json.Marshal writes it, for the too-many error. */
function goAuditAnnotations(annotations: JsonObject[]): GoValue {
  return goJson(annotations.map((a) => ({ Key: stringAt(a, 'key'), ValueExpression: stringAt(a, 'valueExpression') })));
}

function validateMutation(mutation: JsonObject, path: string): StatusCause[] {
  const patchType = stringAt(mutation, 'patchType');
  const jsonPatch = objectAt(mutation, 'jsonPatch');
  const applyConfiguration = objectAt(mutation, 'applyConfiguration');
  const causes: StatusCause[] = [];
  switch (patchType) {
    case '':
      return [required(`${path}.patchType`)];
    case 'JSONPatch':
      if (jsonPatch === undefined) causes.push(required(`${path}.jsonPatch`, 'must be specified when patchType is JSONPatch'));
      else if (blank(jsonPatch.expression)) causes.push(required(`${path}.jsonPatch.expression`));
      else appendAll(causes, compiles(stringAt(jsonPatch, 'expression'), `${path}.jsonPatch.expression`, { objects: true }));
      if (applyConfiguration !== undefined) causes.push(invalid(`${path}.applyConfiguration`, '{applyConfiguration}', 'must not be specified when patchType is JSONPatch'));
      return causes;
    case 'ApplyConfiguration':
      if (applyConfiguration === undefined) causes.push(required(`${path}.applyConfiguration`, 'must be specified when patchType is ApplyConfiguration'));
      else if (blank(applyConfiguration.expression)) causes.push(required(`${path}.applyConfiguration.expression`));
      else appendAll(causes, compiles(stringAt(applyConfiguration, 'expression'), `${path}.applyConfiguration.expression`, { objects: true }));
      if (jsonPatch !== undefined) causes.push(invalid(`${path}.jsonPatch`, '{jsonPatch}', 'must not be specified when patchType is ApplyConfiguration'));
      return causes;
    default:
      return [notSupported(`${path}.patchType`, patchType, patchTypes)];
  }
}

/** What both kinds of policy spec validate first: failurePolicy, paramKind, matchConstraints, matchConditions, variables. */
function validatePolicyCommon(spec: JsonObject, kind: PolicyKind): StatusCause[] {
  const causes: StatusCause[] = [];
  if (unset(spec.failurePolicy)) causes.push(required('spec.failurePolicy'));
  else appendAll(causes, checkEnum(spec.failurePolicy, failurePolicies, 'spec.failurePolicy'));
  const paramKind = objectAt(spec, 'paramKind');
  if (paramKind !== undefined) appendAll(causes, validateParamKind(paramKind, 'spec.paramKind'));
  const match = objectAt(spec, 'matchConstraints');
  if (match === undefined) causes.push(required('spec.matchConstraints'));
  else {
    appendAll(causes, validateMatchResources(match, 'spec.matchConstraints'));
    if (objectsAt(match, 'resourceRules').length === 0) causes.push(required('spec.matchConstraints.resourceRules'));
    if (kind === 'mutating') appendAll(causes, validateMutatingOperations(match, 'spec.matchConstraints.resourceRules.operations'));
  }
  // Mutating policies keep params declared everywhere (not checked against upstream).
  const declared: Declared = { params: kind === 'mutating' || paramKind !== undefined };
  appendAll(causes, validateMatchConditions(objectsAt(spec, 'matchConditions'), 'spec.matchConditions', declared));
  objectsAt(spec, 'variables').forEach((v, i) => appendAll(causes, validateVariable(v, `spec.variables[${i}]`, declared)));
  return causes;
}

/** ValidateValidatingAdmissionPolicy (its update variant relaxes only CEL compilation, which Plinth does not do). */
export function validateValidatingPolicy(obj: KubeObject): StatusCause[] {
  const spec = objectAt(obj, 'spec') ?? {};
  const causes = validatePolicyCommon(spec, 'validating');
  const validations = objectsAt(spec, 'validations');
  const annotations = objectsAt(spec, 'auditAnnotations');
  if (validations.length === 0 && annotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item';
    return [...causes, required('spec.validations', detail), required('spec.auditAnnotations', detail)];
  }
  const params = objectAt(spec, 'paramKind') !== undefined;
  const declared: Declared = { params, variables: variableTypes(spec, { params }) };
  validations.forEach((v, i) => appendAll(causes, validateValidation(v, `spec.validations[${i}]`, declared)));
  if (annotations.length > maxAuditAnnotations) {
    causes.push(invalid('spec.auditAnnotations', goAuditAnnotations(annotations), `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  }
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    appendAll(causes, validateAuditAnnotation(obj.metadata.name ?? '', a, `spec.auditAnnotations[${i}]`, declared));
    const key = stringAt(a, 'key');
    if (keys.has(key)) causes.push(duplicate(`spec.auditAnnotations[${i}].key`, key));
    keys.add(key);
  });
  return causes;
}

/** ValidateMutatingAdmissionPolicy. */
export function validateMutatingPolicy(obj: KubeObject): StatusCause[] {
  const spec = objectAt(obj, 'spec') ?? {};
  const causes = validatePolicyCommon(spec, 'mutating');
  const mutations = objectsAt(spec, 'mutations');
  if (mutations.length === 0) causes.push(required('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => appendAll(causes, validateMutation(m, `spec.mutations[${i}]`)));
  if (blank(spec.reinvocationPolicy)) causes.push(required('spec.reinvocationPolicy'));
  else appendAll(causes, checkEnum(spec.reinvocationPolicy, reinvocationPolicies, 'spec.reinvocationPolicy'));
  return causes;
}

/** validateParamRef: name xor selector, parameterNotFoundAction Allow or Deny. */
function validateParamRef(ref: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringAt(ref, 'name');
  const selector = objectAt(ref, 'selector');
  if (name !== '') {
    for (const msg of validateName(name, 'path-segment')) causes.push(invalid(`${path}.name`, name, msg));
    if (selector !== undefined) causes.push(forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (selector !== undefined) {
    appendAll(causes, validateLabelSelector(selector, `${path}.selector`));
    if (name !== '') causes.push(forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name === '' && selector === undefined) causes.push(required(path, 'one of name or selector must be specified'));
  const action = stringAt(ref, 'parameterNotFoundAction');
  if (action === '') causes.push(required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') causes.push(notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return causes;
}

/** validateValidationActions: at least one, unique, known, not both Deny and Warn. */
function validateValidationActions(actions: string[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    appendAll(causes, checkEnum(action, validationActions, `${path}[${i}]`));
    if (seen.has(action)) causes.push(duplicate(`${path}[${i}]`, action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    causes.push(invalid(path, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) causes.push(required(path, 'at least one validation action is required'));
  return causes;
}

/** What both kinds of binding validate: policyName, paramRef, matchResources. */
function validateBindingCommon(spec: JsonObject, kind: PolicyKind): StatusCause[] {
  const causes: StatusCause[] = [];
  const policyName = stringAt(spec, 'policyName');
  if (policyName === '') causes.push(required('spec.policyName'));
  else for (const msg of isDNS1123Subdomain(policyName)) causes.push(invalid('spec.policyName', policyName, msg));
  const paramRef = objectAt(spec, 'paramRef');
  if (paramRef !== undefined) appendAll(causes, validateParamRef(paramRef, 'spec.paramRef'));
  const match = objectAt(spec, 'matchResources');
  if (match !== undefined) {
    appendAll(causes, validateMatchResources(match, 'spec.matchResources'));
    if (kind === 'mutating') appendAll(causes, validateMutatingOperations(match, 'spec.matchResources.resourceRules.operations'));
  }
  return causes;
}

export function validateValidatingBinding(obj: KubeObject): StatusCause[] {
  const spec = objectAt(obj, 'spec') ?? {};
  return [...validateBindingCommon(spec, 'validating'), ...validateValidationActions(strings(spec.validationActions), 'spec.validationActions')];
}

export function validateMutatingBinding(obj: KubeObject): StatusCause[] {
  return validateBindingCommon(objectAt(obj, 'spec') ?? {}, 'mutating');
}

/** Every kind warns of a name with the reserved static suffix, on create and update. */
const staticSuffix = { warningsOnCreate: staticSuffixWarnings, warningsOnUpdate: staticSuffixWarnings };

/** ValidateValidatingAdmissionPolicyStatusUpdate's type checking: each expression warning names its warning and field. */
function validatePolicyStatus(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  objectsAt(objectAt(objectAt(obj, 'status'), 'typeChecking'), 'expressionWarnings').forEach((w, i) => {
    const path = `status.typeChecking.expressionWarnings[${i}]`;
    if (stringAt(w, 'warning') === '') causes.push(required(`${path}.warning`));
    if (stringAt(w, 'fieldRef').trim() === '') causes.push(required(`${path}.fieldRef`));
  });
  return causes;
}

/** ValidatingAdmissionPolicy: a status subresource; spec changes bump the generation. */
export function validatingPolicyStrategy(): Strategy {
  return specStatusStrategy({
    defaults: defaultPolicy, validate: validateValidatingPolicy, ...staticSuffix,
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          keepOldSpec(obj, old);
          keepOldMetadata(obj, old);
        },
        validateUpdate: validatePolicyStatus,
      },
    },
  });
}

export function mutatingPolicyStrategy(): Strategy {
  return generationStrategy({ defaults: defaultPolicy, validate: validateMutatingPolicy, ...staticSuffix });
}

export function validatingBindingStrategy(): Strategy {
  return generationStrategy({ defaults: defaultBinding, validate: validateValidatingBinding, ...staticSuffix });
}

export function mutatingBindingStrategy(): Strategy {
  return generationStrategy({ defaults: defaultBinding, validate: validateMutatingBinding, ...staticSuffix });
}
