// Authorization: what a request wants to do, the Authorizer hook, the modes every server has (AlwaysAllow, AlwaysDeny, a union of several), and the 403 for a denial.
import { StatusError, type StatusDetails } from '../api/index.ts';
import type { FieldSelector } from '../api/fields.ts';
import { appendAll, goQuote } from '../api/field-errors.ts';
import { isRuleResolver, type RuleResolver, type SubjectRules } from './rule-resolver.ts';
import type { UserInfo } from './user.ts';

/**
 * What a request wants to do, as k8s.io/apiserver's authorizer.Attributes. A resource
 * request has a non-empty `resource`; any other request (/healthz, /version, /apis) is
 * authorized by `path`. Empty strings stand for "not applicable".
 */
export interface AuthorizationAttributes {
  /** get, list, watch, create, update, patch, delete, deletecollection; for non-resource paths the lower-cased HTTP method. */
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  /**
   * A list's, watch's or deletecollection's field selector, parsed (upstream's
   * AuthorizeWithSelectors); absent when there is none or it does not parse. Only the Node
   * mode reads it.
   */
  fieldSelector?: FieldSelector['terms'];
  /** The API version of a resource request (webhooks are told it). */
  version?: string;
  /** A list's, watch's or deletecollection's label selector as the query gives it (webhooks are told its requirements). */
  labelSelector?: string;
}

/** As upstream's authorizer.Decision: a mode allows, denies (and no later mode is asked), or has no opinion. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationDecision {
  decision: Decision;
  /** Why not (or why), appended to the Forbidden message. */
  reason?: string;
  /**
   * Why the mode could not decide (a webhook that failed): a request it does not allow is
   * then answered 500 rather than 403, as upstream's authorization filter does.
   */
  error?: string;
}

/** The hook where an authorization mode plugs in (`--authorization-mode`). */
export interface Authorizer {
  authorize(user: UserInfo, attributes: AuthorizationAttributes): AuthorizationDecision | Promise<AuthorizationDecision>;
}

/** `--authorization-mode AlwaysAllow`; its rules allow everything, as upstream's. */
export const alwaysAllow: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'Allow' }),
  rulesFor: async () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/**
 * `--authorization-mode AlwaysDeny`, as upstream's: no opinion with its reason (a later
 * mode may still allow; alone, it forbids everything); it has no rules, and the list is complete.
 */
export const alwaysDeny: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: async () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/**
 * Several modes in order (`--authorization-mode Node,RBAC`), as upstream's union: the first
 * Allow or Deny decides; when every mode has no opinion, the request is denied with their
 * reasons joined.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer & RuleResolver {
  return {
    rulesFor: (user, namespace) => unionRules(authorizers, user, namespace),
    async authorize(user, attributes) {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const authorizer of authorizers) {
        const result = await authorizer.authorize(user, attributes);
        if (result.decision !== 'NoOpinion') return result;
        if (result.reason !== undefined && result.reason !== '') reasons.push(result.reason);
        if (result.error !== undefined) errors.push(result.error);
      }
      const decision: AuthorizationDecision = { decision: 'NoOpinion', reason: reasons.join('\n') };
      if (errors.length > 0) decision.error = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
      return decision;
    },
  };
}

/**
 * The rules of every mode together, as upstream's union rule resolver: incomplete when any
 * mode's are (a mode that cannot list rules counts as incomplete), errors joined as
 * apimachinery's aggregate error prints them.
 */
async function unionRules(authorizers: readonly Authorizer[], user: UserInfo, namespace: string): Promise<SubjectRules> {
  const out: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
  const errors: string[] = [];
  for (const authorizer of authorizers) {
    if (!isRuleResolver(authorizer)) {
      out.incomplete = true;
      continue;
    }
    const rules = await authorizer.rulesFor(user, namespace);
    appendAll(out.resourceRules, rules.resourceRules);
    appendAll(out.nonResourceRules, rules.nonResourceRules);
    if (rules.incomplete) out.incomplete = true;
    if (rules.evaluationError !== undefined && rules.evaluationError !== '') errors.push(rules.evaluationError);
  }
  if (errors.length === 1) out.evaluationError = errors[0];
  else if (errors.length > 1) out.evaluationError = `[${errors.join(', ')}]`;
  return out;
}

/**
 * The 403 for a denied request, worded like kube-apiserver's (endpoints/handlers/
 * responsewriters.Forbidden and apierrors.NewForbidden), for example
 * `pods "web" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "dev"`.
 */
export function forbiddenError(user: UserInfo, attributes: AuthorizationAttributes, reason = ''): StatusError {
  const { verb, group, resource, subresource, namespace, name, path } = attributes;
  let why: string;
  if (resource === '') {
    why = `User ${goQuote(user.name)} cannot ${verb} path ${goQuote(path)}`;
  } else {
    const what = subresource === '' ? resource : `${resource}/${subresource}`;
    const scope = namespace === '' ? 'at the cluster scope' : `in the namespace ${goQuote(namespace)}`;
    why = `User ${goQuote(user.name)} cannot ${verb} resource ${goQuote(what)} in API group ${goQuote(group)} ${scope}`;
  }
  if (reason !== '') why = `${why}: ${reason}`;

  const qualified = resource === '' ? '' : group === '' ? resource : `${resource}.${group}`;
  let message: string;
  if (qualified === '') message = `forbidden: ${why}`;
  else if (name === '') message = `${qualified} is forbidden: ${why}`;
  else message = `${qualified} ${goQuote(name)} is forbidden: ${why}`;

  const details: StatusDetails = {};
  if (resource !== '') details.kind = resource;
  if (group !== '') details.group = group;
  if (name !== '') details.name = name;
  return new StatusError(403, 'Forbidden', message, details);
}
