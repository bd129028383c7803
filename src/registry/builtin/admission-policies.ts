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

/** The object type a policy's variables have, as upstream's composition names it. */
const variablesType = 'kubernetes.variables';

/**
 * What a policy's expressions see when it is written, as upstream's policy validation
 * declares them (plugin/cel's createEnvForOpts and its composition): `request` and
 * `namespaceObject` of upstream's types, `variables` of an object type of the policy's own.
 */
const policyVariables = {
  object: 'dyn', oldObject: 'dyn', request: 'kubernetes.AdmissionRequest', params: 'dyn', namespaceObject: 'kubernetes.Namespace', variables: variablesType, authorizer: 'dyn',
};

/**
 * What an expression may name, as upstream's OptionalVariableDeclarations: `params` only
 * when the policy has a paramKind (else "undeclared reference to 'params'"), `authorizer`
 * everywhere but in a messageExpression.
 */
interface Declared {
  params: boolean;
  authorizer?: boolean;
  /**
   * The policy's variables declared so far, each with the type it is declared with
   * (declaredType), as upstream's composition gives them to the expressions after them;
   * undefined without composition (no `variables` at all).
   */
  variables?: ReadonlyMap<string, string>;
}

function variablesFor(declared: Declared): Partial<typeof policyVariables> {
  const { params, authorizer, variables, ...rest } = policyVariables;
  return {
    ...rest, ...(declared.params ? { params } : {}), ...(declared.authorizer === false ? {} : { authorizer }), ...(declared.variables === undefined ? {} : { variables }),
  };
}

/**
 * An expression compiles, and when `returns` names the types it may have (by cel-js's names),
 * has one of them exactly, as upstream's compiler requires (a dyn result is none of them:
 * `must evaluate to bool`, `must evaluate to one of [string null_type]`). `shown` is the value
 * the error shows (an audit annotation's untrimmed expression). Also answers the
 * expression's type (dyn when it does not compile).
 */
function compiles(expression: string, path: string, opts: { objects?: boolean; returns?: readonly string[]; shown?: string; declared: Declared }): { causes: StatusCause[]; type: string } {
  const variables = variablesFor(opts.declared);
  const fields = opts.declared.variables;
  const celOpts = { objects: opts.objects === true, ...(fields === undefined ? {} : { types: { [variablesType]: Object.fromEntries(fields) } }) };
  const compiled = cel().compile(expression, variables, celOpts);
  const shown = opts.shown ?? expression;
  // Every field the expression reads that its type lacks, as cel-go lists them, before other errors.
  const error = cel().admissionFieldErrors(expression, variables, celOpts).join('\n') || compiled.error;
  if (error !== undefined) return { causes: [invalid(path, shown, `compilation failed: ${error}`)], type: 'dyn' };
  const type = compiled.type ?? 'dyn';
  const returns = opts.returns;
  if (returns === undefined || returns.includes(type)) return { causes: [], type };
  const names = returns.map((type) => (type === 'null' ? 'null_type' : type));
  return { causes: [invalid(path, shown, names.length === 1 ? `must evaluate to ${names[0]}` : `must evaluate to one of [${names.join(' ')}]`)], type };
}

/** The types a variable keeps for the expressions after it (upstream's convertCelTypeToDeclType), lists' and maps' besides. */
const declarableTypes = new Set(['bool', 'bytes', 'double', 'dyn', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'int', 'null', 'string', 'uint']);

/**
 * The type a variable is declared with for the expressions after it, as upstream's
 * composition converts its expression's: scalars, null, timestamps, durations, and lists
 * and maps of them keep theirs; objects, optionals and library types are dyn.
 */
function declaredType(type: string): string {
  // cel-js's `list` and `map` are of dyn.
  const list = /^list(?:<(.+)>)?$/.exec(type);
  if (list !== null) return `list<${declaredType(list[1] ?? 'dyn')}>`;
  const map = /^map(?:<([^<>,]+), (.+)>)?$/.exec(type);
  if (map !== null) return `map<${declaredType(map[1] ?? 'dyn')}, ${declaredType(map[2] ?? 'dyn')}>`;
  return declarableTypes.has(type) ? type : 'dyn';
}

/**
 * Validates a variable, compiled with those declared before it in `fields`, and declares it
 * there (when it has an expression and a name CEL can select) for those after it.
 */
function validateVariable(variable: JsonObject, path: string, params: boolean, fields: Map<string, string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringAt(variable, 'name');
  const selectable = celIdentifier.test(name) && !celReserved.has(name);
  if (name.trim() === '') causes.push(required(`${path}.name`, 'name is not specified'));
  else if (!selectable) causes.push(invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  if (blank(variable.expression)) causes.push(required(`${path}.expression`, 'expression is not specified'));
  else {
    const { causes: compiled, type } = compiles(stringAt(variable, 'expression'), `${path}.expression`, { declared: { params, variables: fields } });
    appendAll(causes, compiled);
    if (selectable) fields.set(name, declaredType(type));
  }
  return causes;
}

function validateValidation(validation: JsonObject, path: string, declared: Declared): StatusCause[] {
  const causes: StatusCause[] = [];
  if (blank(validation.expression)) causes.push(required(`${path}.expression`, 'expression is not specified'));
  else appendAll(causes, compiles(stringAt(validation, 'expression'), `${path}.expression`, { returns: ['bool'], declared }).causes);
  const messageExpression = stringAt(validation, 'messageExpression');
  if (messageExpression !== '' && messageExpression.trim() === '') causes.push(invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  else if (messageExpression !== '') appendAll(causes, compiles(messageExpression, `${path}.messageExpression`, { returns: ['string'], declared: { ...declared, authorizer: false } }).causes);
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
  } else appendAll(causes, compiles(value, `${path}.valueExpression`, { returns: ['string', 'null'], shown: written, declared }).causes);
  return causes;
}

/** The internal []admissionregistration.AuditAnnotation as json.Marshal writes it, for the too-many error. */
function goAuditAnnotations(annotations: JsonObject[]): GoValue {
  return goJson(annotations.map((a) => ({ Key: stringAt(a, 'key'), ValueExpression: stringAt(a, 'valueExpression') })));
}

function validateMutation(mutation: JsonObject, path: string, declared: Declared): StatusCause[] {
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
      else appendAll(causes, compiles(stringAt(jsonPatch, 'expression'), `${path}.jsonPatch.expression`, { objects: true, declared }).causes);
      if (applyConfiguration !== undefined) causes.push(invalid(`${path}.applyConfiguration`, '{applyConfiguration}', 'must not be specified when patchType is JSONPatch'));
      return causes;
    case 'ApplyConfiguration':
      if (applyConfiguration === undefined) causes.push(required(`${path}.applyConfiguration`, 'must be specified when patchType is ApplyConfiguration'));
      else if (blank(applyConfiguration.expression)) causes.push(required(`${path}.applyConfiguration.expression`));
      else appendAll(causes, compiles(stringAt(applyConfiguration, 'expression'), `${path}.applyConfiguration.expression`, { objects: true, declared }).causes);
      if (jsonPatch !== undefined) causes.push(invalid(`${path}.jsonPatch`, '{jsonPatch}', 'must not be specified when patchType is ApplyConfiguration'));
      return causes;
    default:
      return [notSupported(`${path}.patchType`, patchType, patchTypes)];
  }
}

/**
 * What both kinds of policy spec validate first: failurePolicy, paramKind, matchConstraints,
 * matchConditions, variables; and what the expressions after them may name.
 */
function validatePolicyCommon(spec: JsonObject, kind: PolicyKind): { causes: StatusCause[]; declared: Declared } {
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
  const params = kind === 'mutating' || paramKind !== undefined;
  appendAll(causes, validateMatchConditions(objectsAt(spec, 'matchConditions'), 'spec.matchConditions', { params }));
  // Upstream compiles a validating policy through its composition only when it has variables
  // (without, `variables` is undeclared); a mutating policy's expressions always see them.
  const variables = objectsAt(spec, 'variables');
  const fields = kind === 'mutating' || variables.length > 0 ? new Map<string, string>() : undefined;
  if (fields !== undefined) variables.forEach((v, i) => appendAll(causes, validateVariable(v, `spec.variables[${i}]`, params, fields)));
  return { causes, declared: { params, ...(fields === undefined ? {} : { variables: fields }) } };
}

/** ValidateValidatingAdmissionPolicy (its update variant relaxes only CEL compilation, which Plinth does not do). */
export function validateValidatingPolicy(obj: KubeObject): StatusCause[] {
  const spec = objectAt(obj, 'spec') ?? {};
  const { causes, declared } = validatePolicyCommon(spec, 'validating');
  const validations = objectsAt(spec, 'validations');
  const annotations = objectsAt(spec, 'auditAnnotations');
  if (validations.length === 0 && annotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item';
    return [...causes, required('spec.validations', detail), required('spec.auditAnnotations', detail)];
  }
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
  const { causes, declared } = validatePolicyCommon(spec, 'mutating');
  const mutations = objectsAt(spec, 'mutations');
  if (mutations.length === 0) causes.push(required('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => appendAll(causes, validateMutation(m, `spec.mutations[${i}]`, declared)));
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
