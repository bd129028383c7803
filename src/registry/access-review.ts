// authorization.k8s.io/v1 access reviews, as upstream's pkg/registry/authorization: a
// SubjectAccessReview, LocalSubjectAccessReview or SelfSubjectAccessReview asks the
// server's authorizer whether a user may do something; a SelfSubjectRulesReview lists what
// the requesting user may do in a namespace. Nothing is stored: the review comes back
// with its status.

import { badRequest, invalid as invalidObject, type KubeObject, type StatusCause } from '../api/index.ts';
import { isObject, type JsonObject } from '../api/json.ts';
import { parseFieldSelector, type FieldSelector } from '../api/fields.ts';
import { parseLabelSelector } from '../api/labels.ts';
import { appendAll, goJson, type GoValue, invalid, required } from './validation/field.ts';
import { objectMetaJson } from './validation/object-meta.ts';
import { operatorValuesCauses } from './builtin/selector-validation.ts';
import { isLabelValue, isQualifiedName } from './validation/names.ts';

const group = 'authorization.k8s.io';

/** The user a review is about (auth/'s UserInfo). */
export interface ReviewUser {
  name: string;
  uid: string;
  groups: string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** What is asked about (auth/'s AuthorizationAttributes): a resource request names a resource, any other a path. */
export interface ReviewAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  /** The field selector asked about, as authorization sees a request's (auth/'s AuthorizationAttributes). */
  fieldSelector?: FieldSelector['terms'];
  version?: string;
}

export interface ReviewRules {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete: boolean;
  evaluationError?: string;
}

/**
 * The server's authorizer as reviews use it (auth/'s Authorizer, and its RuleResolver when
 * the mode can list rules).
 */
export interface ReviewAuthorizer {
  authorize(user: ReviewUser, attributes: ReviewAttributes): ReviewDecision | Promise<ReviewDecision>;
  rulesFor?(user: ReviewUser, namespace: string): Promise<ReviewRules>;
}

export interface ReviewDecision {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason?: string;
  /** Why a mode could not decide (a webhook that failed). */
  error?: string;
}

export type ReviewResource = 'subjectaccessreviews' | 'localsubjectaccessreviews' | 'selfsubjectaccessreviews' | 'selfsubjectrulesreviews';

const kinds: Record<ReviewResource, string> = {
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
};

export function isReviewResource(resource: string): resource is ReviewResource {
  return Object.hasOwn(kinds, resource);
}

export interface ReviewContext {
  /** The namespace of the request path (localsubjectaccessreviews only). */
  namespace: string;
  /** The user making the request; self reviews are about them. */
  requester: ReviewUser | undefined;
  authorizer: ReviewAuthorizer;
}

/** Answers a review POSTed to `resource`: the review with its status, or a StatusError. */
export async function review(resource: ReviewResource, body: KubeObject, ctx: ReviewContext): Promise<KubeObject> {
  const kind = kinds[resource];
  checkTypeMeta(body, kind);
  if (resource === 'localsubjectaccessreviews') {
    // As upstream's create handler: the object takes the path's namespace, or must name it.
    const ns = body.metadata.namespace;
    if (ns !== undefined && ns !== '' && ns !== ctx.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    body.metadata.namespace = ctx.namespace;
  }
  if (resource === 'selfsubjectrulesreviews') return rulesReview(body, ctx);

  const spec = readSpec(body, kind);
  const causes = resource === 'selfsubjectaccessreviews' ? validateSelfSpec(spec) : validateSpec(spec);
  appendAll(causes, validateMetadata(body.metadata, resource === 'localsubjectaccessreviews'));
  if (resource === 'localsubjectaccessreviews') {
    const ra = spec.resourceAttributes;
    if (ra !== undefined && (ra.namespace ?? '') !== ctx.namespace) {
      causes.push(invalid('spec.resourceAttributes.namespace', ra.namespace ?? '', 'must match metadata.namespace'));
    }
    if (spec.nonResourceAttributes !== undefined) {
      causes.push(invalid('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'disallowed on this kind of request'));
    }
  }
  if (causes.length > 0) throw invalidObject(kind, '', causes, group);

  let user: ReviewUser;
  if (resource === 'selfsubjectaccessreviews') {
    if (ctx.requester === undefined) throw badRequest('no user present on request');
    user = ctx.requester;
  } else {
    user = { name: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [] };
    if (spec.extra !== undefined) user.extra = spec.extra;
  }
  const attributes = attributesOf(spec);
  const { decision, reason, error } = await ctx.authorizer.authorize(user, attributes);
  const status: JsonObject = { allowed: decision === 'Allow' };
  if (decision === 'Deny') status.denied = true;
  if (reason !== undefined && reason !== '') status.reason = reason;
  // A mode that could not decide (a webhook that failed) is told in evaluationError, as upstream's REST.
  const evaluationError = [...(error !== undefined ? [error] : []), ...selectorErrors(spec.resourceAttributes)].join('; ');
  if (evaluationError !== '') status.evaluationError = evaluationError;
  const { apiVersion: _apiVersion, kind: _kind, metadata, status: _status, ...rest } = body;
  return { apiVersion: `${group}/v1`, kind, metadata, ...rest, status } as KubeObject;
}

/** A SelfSubjectRulesReview: the requester's rules in spec.namespace, in a new object as upstream answers. */
async function rulesReview(body: KubeObject, ctx: ReviewContext): Promise<KubeObject> {
  const kind = kinds.selfsubjectrulesreviews;
  const spec = isObject(body.spec) ? body.spec : {};
  const namespace = stringField(spec.namespace, kind, 'spec.namespace') ?? '';
  if (ctx.requester === undefined) throw badRequest('no user present on request');
  if (namespace === '') throw badRequest('no namespace on request');
  // A mode that cannot list rules: nothing to show, and the list says it is incomplete.
  const rules: ReviewRules = ctx.authorizer.rulesFor === undefined
    ? { resourceRules: [], nonResourceRules: [], incomplete: true }
    : await ctx.authorizer.rulesFor(ctx.requester, namespace);
  const status: JsonObject = {
    resourceRules: rules.resourceRules.map((r) => withoutEmpty({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames })),
    nonResourceRules: rules.nonResourceRules.map((r) => withoutEmpty({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
    incomplete: rules.incomplete,
  };
  if (rules.evaluationError !== undefined && rules.evaluationError !== '') status.evaluationError = rules.evaluationError;
  return { apiVersion: `${group}/v1`, kind, metadata: {}, spec: {}, status } as unknown as KubeObject;
}

// Go's omitempty on the rule lists (verbs are always written).
function withoutEmpty(rule: Record<string, string[] | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(rule)) {
    if (key === 'verbs') out[key] = value ?? [];
    else if (value !== undefined && value.length > 0) out[key] = value;
  }
  return out;
}

interface SelectorRequirement { key?: string; operator?: string; values?: string[] }
interface SelectorAttributes { rawSelector?: string; requirements?: SelectorRequirement[] }

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

interface NonResourceAttributes { path?: string; verb?: string }

interface ReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

function checkTypeMeta(body: KubeObject, kind: string): void {
  if (body.apiVersion !== undefined && body.apiVersion !== `${group}/v1`) {
    throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${group}/v1)`);
  }
  if (body.kind !== undefined && body.kind !== kind) {
    throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${kind})`);
  }
}

/** 400 for a field of the wrong JSON type, as decoding into upstream's Go types refuses it. */
function cannotDecode(kind: string, field: string, value: unknown, goType: string): never {
  const jsonType = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonType} into Go struct field ${field} of type ${goType}`);
}

function stringField(value: unknown, kind: string, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') cannotDecode(kind, field, value, 'string');
  return value;
}

function stringList(value: unknown, kind: string, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) cannotDecode(kind, field, value, '[]string');
  return value.map((v) => stringField(v, kind, field) ?? '');
}

function objectField(value: unknown, kind: string, field: string, goType: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) cannotDecode(kind, field, value, goType);
  return value;
}

function readSelector(value: unknown, kind: string, field: string): SelectorAttributes | undefined {
  const obj = objectField(value, kind, field, 'v1.FieldSelectorAttributes');
  if (obj === undefined) return undefined;
  const out: SelectorAttributes = {};
  const raw = stringField(obj.rawSelector, kind, `${field}.rawSelector`);
  if (raw !== undefined) out.rawSelector = raw;
  if (obj.requirements !== undefined && obj.requirements !== null) {
    if (!Array.isArray(obj.requirements)) cannotDecode(kind, `${field}.requirements`, obj.requirements, '[]v1.Requirement');
    out.requirements = obj.requirements.map((r) => {
      const req = objectField(r, kind, `${field}.requirements`, 'v1.Requirement') ?? {};
      return {
        key: stringField(req.key, kind, `${field}.requirements.key`),
        operator: stringField(req.operator, kind, `${field}.requirements.operator`),
        values: stringList(req.values, kind, `${field}.requirements.values`),
      };
    });
  }
  return out;
}

/** The spec, with the types upstream's decoding insists on. */
function readSpec(body: KubeObject, kind: string): ReviewSpec {
  const spec = objectField(body.spec, kind, 'spec', `v1.${kind}Spec`) ?? {};
  const out: ReviewSpec = {};
  const ra = objectField(spec.resourceAttributes, kind, 'spec.resourceAttributes', 'v1.ResourceAttributes');
  if (ra !== undefined) {
    const attrs: ResourceAttributes = {};
    for (const key of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const) {
      const value = stringField(ra[key], kind, `spec.resourceAttributes.${key}`);
      if (value !== undefined) attrs[key] = value;
    }
    const fieldSelector = readSelector(ra.fieldSelector, kind, 'spec.resourceAttributes.fieldSelector');
    if (fieldSelector !== undefined) attrs.fieldSelector = fieldSelector;
    const labelSelector = readSelector(ra.labelSelector, kind, 'spec.resourceAttributes.labelSelector');
    if (labelSelector !== undefined) attrs.labelSelector = labelSelector;
    out.resourceAttributes = attrs;
  }
  const nra = objectField(spec.nonResourceAttributes, kind, 'spec.nonResourceAttributes', 'v1.NonResourceAttributes');
  if (nra !== undefined) {
    out.nonResourceAttributes = {};
    const path = stringField(nra.path, kind, 'spec.nonResourceAttributes.path');
    if (path !== undefined) out.nonResourceAttributes.path = path;
    const verb = stringField(nra.verb, kind, 'spec.nonResourceAttributes.verb');
    if (verb !== undefined) out.nonResourceAttributes.verb = verb;
  }
  const user = stringField(spec.user, kind, 'spec.user');
  if (user !== undefined) out.user = user;
  const uid = stringField(spec.uid, kind, 'spec.uid');
  if (uid !== undefined) out.uid = uid;
  const groups = stringList(spec.groups, kind, 'spec.groups');
  if (groups !== undefined) out.groups = groups;
  const extra = objectField(spec.extra, kind, 'spec.extra', 'map[string]v1.ExtraValue');
  if (extra !== undefined) {
    out.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, stringList(v, kind, 'spec.extra') ?? []]));
  }
  return out;
}

/** The internal authorization.NonResourceAttributes as json.Marshal writes it (Go field names). */
function goNonResourceAttributes(attrs: NonResourceAttributes): GoValue {
  return goJson({ Path: attrs.path ?? '', Verb: attrs.verb ?? '' });
}

/** Upstream's ValidateSelfSubjectAccessReviewSpec: exactly one kind of attributes. */
export function validateSelfSpec(spec: ReviewSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  if (spec.resourceAttributes !== undefined && spec.nonResourceAttributes !== undefined) {
    causes.push(invalid('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (spec.resourceAttributes === undefined && spec.nonResourceAttributes === undefined) {
    causes.push(invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  appendAll(causes, validateResourceAttributes(spec.resourceAttributes));
  return causes;
}

/** Upstream's ValidateSubjectAccessReviewSpec: as a self review's, and a user or a group to ask about. */
export function validateSpec(spec: ReviewSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  if (spec.resourceAttributes !== undefined && spec.nonResourceAttributes !== undefined) {
    causes.push(invalid('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (spec.resourceAttributes === undefined && spec.nonResourceAttributes === undefined) {
    causes.push(invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if ((spec.user ?? '') === '' && (spec.groups ?? []).length === 0) {
    causes.push(invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  }
  appendAll(causes, validateResourceAttributes(spec.resourceAttributes));
  return causes;
}

// Only managedFields may be set (and a local review's namespace), as upstream; the bad value is the whole ObjectMeta.
function validateMetadata(meta: KubeObject['metadata'], local: boolean): StatusCause[] {
  const set = Object.entries(meta).filter(([key, value]) => key !== 'managedFields' && !(local && key === 'namespace') && value !== undefined && value !== '');
  if (set.length === 0) return [];
  return [invalid('metadata', goJson(objectMetaJson(meta)), local ? 'must be empty except for namespace' : 'must be empty')];
}

function validateResourceAttributes(attrs: ResourceAttributes | undefined): StatusCause[] {
  if (attrs === undefined) return [];
  return [
    ...validateSelectorAttributes(attrs.fieldSelector, 'spec.resourceAttributes.fieldSelector', fieldRequirementCauses),
    ...validateSelectorAttributes(attrs.labelSelector, 'spec.resourceAttributes.labelSelector', labelRequirementCauses),
  ];
}

/** metav1validation.ValidateFieldSelectorRequirement: a key, and values as the operator wants them. */
function fieldRequirementCauses(req: SelectorRequirement, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((req.key ?? '') === '') causes.push(required(`${path}.key`, 'must be specified'));
  appendAll(causes, operatorValuesCauses(req.operator, req.values ?? [], path) ?? []);
  return causes;
}

/**
 * metav1validation.ValidateLabelSelectorRequirement: values as the operator wants them, the
 * key a label name (a qualified name), and each value a label value.
 */
function labelRequirementCauses(req: SelectorRequirement, path: string): StatusCause[] {
  const values = req.values ?? [];
  const causes = operatorValuesCauses(req.operator, values, path) ?? [];
  const key = req.key ?? '';
  for (const msg of isQualifiedName(key)) causes.push(invalid(`${path}.key`, key, msg));
  values.forEach((value, i) => {
    for (const msg of isLabelValue(value)) causes.push(invalid(`${path}.values[${i}]`, value, msg));
  });
  return causes;
}

/** Upstream's validateFieldSelectorAttributes and validateLabelSelectorAttributes (unknown operators allowed). */
function validateSelectorAttributes(selector: SelectorAttributes | undefined, path: string, requirementCauses: (req: SelectorRequirement, path: string) => StatusCause[]): StatusCause[] {
  if (selector === undefined) return [];
  const causes: StatusCause[] = [];
  const raw = selector.rawSelector ?? '';
  const requirements = selector.requirements ?? [];
  if (raw !== '' && requirements.length > 0) causes.push(invalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
  if (raw === '' && requirements.length === 0) causes.push(required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  // An operator this server does not know is allowed, as upstream: a newer client's requirement only narrows.
  requirements.forEach((req, i) => appendAll(causes, requirementCauses(req, `${path}.requirements[${i}]`)));
  return causes;
}

/** The attributes a review asks about (upstream's AuthorizationAttributesFrom). */
export function attributesOf(spec: ReviewSpec): ReviewAttributes {
  const ra = spec.resourceAttributes;
  if (ra !== undefined) {
    const fieldSelector = fieldSelectorTerms(ra.fieldSelector);
    return {
      verb: ra.verb ?? '', group: ra.group ?? '', resource: ra.resource ?? '', subresource: ra.subresource ?? '',
      namespace: ra.namespace ?? '', name: ra.name ?? '', path: '', ...((ra.version ?? '') !== '' ? { version: ra.version } : {}), ...(fieldSelector === undefined ? {} : { fieldSelector }),
    };
  }
  const nra = spec.nonResourceAttributes ?? {};
  return { verb: nra.verb ?? '', group: '', resource: '', subresource: '', namespace: '', name: '', path: nra.path ?? '' };
}

/**
 * A review's field selector as terms (upstream's fieldSelectorAsSelector): a raw selector
 * parsed, requirements `In` and `NotIn` with one value each as `=` and `!=`; anything else
 * (`Exists`, several values, a selector that does not parse) is none.
 */
function fieldSelectorTerms(selector: SelectorAttributes | undefined): FieldSelector['terms'] | undefined {
  if (selector === undefined) return undefined;
  if ((selector.rawSelector ?? '') !== '') {
    try {
      return parseFieldSelector(selector.rawSelector!).terms;
    } catch {
      return undefined;
    }
  }
  const terms: FieldSelector['terms'] = [];
  for (const req of selector.requirements ?? []) {
    if ((req.operator !== 'In' && req.operator !== 'NotIn') || req.values?.length !== 1) return undefined;
    terms.push({ field: req.key ?? '', operator: req.operator === 'In' ? '=' : '!=', value: req.values[0]! });
  }
  return terms.length > 0 ? terms : undefined;
}

/**
 * Upstream's BuildEvaluationError for selectors: a raw selector that does not parse is
 * ignored (the check is then broader), and the status says so.
 */
function selectorErrors(attrs: ResourceAttributes | undefined): string[] {
  const out: string[] = [];
  const parses = (parse: (s: string) => unknown, raw: string): boolean => {
    try {
      parse(raw);
      return true;
    } catch {
      return false;
    }
  };
  const field = attrs?.fieldSelector;
  if (field !== undefined && (field.requirements ?? []).length === 0 && (field.rawSelector ?? '') !== '' && !parses(parseFieldSelector, field.rawSelector!)) {
    out.push('spec.resourceAttributes.fieldSelector ignored due to parse error');
  }
  const label = attrs?.labelSelector;
  if (label !== undefined && (label.requirements ?? []).length === 0 && (label.rawSelector ?? '') !== '' && !parses(parseLabelSelector, label.rawSelector!)) {
    out.push('spec.resourceAttributes.labelSelector ignored due to parse error');
  }
  return out;
}
