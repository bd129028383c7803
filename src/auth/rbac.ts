// The RBAC authorizer (upstream's plugin/pkg/auth/authorizer/rbac with rbac/validation's
// rule resolver): what Roles, ClusterRoles and their bindings allow a user, read from an
// injected source that finds bindings by subject (an index kept from informers' events),
// so a request costs lookups for its user and groups, never a scan of every binding.
import type { KubeObject } from '../api/index.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorize.ts';
import { ruleAllows, type PolicyRule, type RoleRef, type Subject } from './rbac-rules.ts';
import type { UserInfo } from './user.ts';

/**
 * Where the authorizer reads RBAC objects: implemented over informers of the registry's
 * Stores (cli/), or by a fake in tests. Bindings are found by the keys `subjectIndexKeys`
 * gives them.
 */
export interface RbacSource {
  /** ClusterRoleBindings with a subject under `key` (`user:<name>` or `group:<name>`). */
  clusterRoleBindings(key: string): readonly KubeObject[];
  /** RoleBindings of `namespace` with a subject under `key`. */
  roleBindings(namespace: string, key: string): readonly KubeObject[];
  role(namespace: string, name: string): KubeObject | undefined;
  clusterRole(name: string): KubeObject | undefined;
}

const serviceAccountPrefix = 'system:serviceaccount:';

/**
 * The keys a binding is found under, one per subject: `user:<name>`, `group:<name>`, and a
 * service account as the user name it authenticates as (`user:system:serviceaccount:<ns>:<name>`;
 * a RoleBinding's subject without namespace is in the binding's namespace, as upstream's appliesToUser).
 */
export function subjectIndexKeys(binding: KubeObject): string[] {
  const bindingNamespace = binding.metadata.namespace ?? '';
  const keys: string[] = [];
  for (const subject of subjectsOf(binding)) {
    const key = subjectKey(subject, bindingNamespace);
    if (key !== undefined && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User': return `user:${subject.name}`;
    case 'Group': return `group:${subject.name}`;
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace === '' ? undefined : `user:${serviceAccountPrefix}${namespace}:${subject.name}`;
    }
    default: return undefined;
  }
}

/** The keys of the bindings that may apply to `user`. */
function userKeys(user: UserInfo): string[] {
  return [`user:${user.name}`, ...user.groups.map((group) => `group:${group}`)];
}

function subjectsOf(binding: KubeObject): Subject[] {
  return Array.isArray(binding.subjects) ? (binding.subjects as Subject[]) : [];
}

function rulesOf(role: KubeObject): PolicyRule[] {
  return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
}

/** authorization.k8s.io/v1 SubjectRulesReviewStatus, as a SelfSubjectRulesReview answers. */
export interface RulesReviewStatus {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete: boolean;
  evaluationError?: string;
}

/** What a user may do in a namespace, as upstream's authorizer.RuleResolver (for SelfSubjectRulesReview). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesReviewStatus>;
}

/** Where a rule came from: the binding and the subject in it that named the user. */
interface RuleSource {
  binding: KubeObject;
  subject: Subject;
}

/** Called per rule (and per resolution error); answering false stops the visit. */
type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: Error | undefined) => boolean;

/**
 * A binding's role that is not there. Its message is the authorizer's (upstream reads
 * informers' listers: `role.rbac.authorization.k8s.io "x" not found`); the registry's
 * escalation check reads the stores instead, and says `roles.rbac.authorization.k8s.io`
 * (`resource` and `name` let it).
 */
export class RoleNotFoundError extends Error {
  readonly resource: 'roles' | 'clusterroles';
  readonly roleName: string;

  constructor(resource: 'roles' | 'clusterroles', roleName: string) {
    super(`${resource === 'roles' ? 'role' : 'clusterrole'}.rbac.authorization.k8s.io ${JSON.stringify(roleName)} not found`);
    this.name = 'RoleNotFoundError';
    this.resource = resource;
    this.roleName = roleName;
  }
}

/** Upstream's RBACAuthorizer together with its DefaultRuleResolver. */
export class RbacAuthorizer implements Authorizer, RuleResolver {
  readonly #source: RbacSource;

  constructor(source: RbacSource) {
    this.#source = source;
  }

  /** Allow with the binding that allowed it, or NoOpinion; the reason names roles that could not be found. */
  authorize(user: UserInfo, attributes: AuthorizationAttributes): AuthorizationDecision {
    let allowedBy: RuleSource | undefined;
    const errors: string[] = [];
    this.visitRulesFor(user, attributes.namespace, (source, rule, error) => {
      if (rule !== undefined && ruleAllows(attributes, rule)) {
        allowedBy = source;
        return false;
      }
      if (error !== undefined) errors.push(error.message);
      return true;
    });
    if (allowedBy !== undefined) return { decision: 'Allow', reason: `RBAC: allowed by ${describe(allowedBy)}` };
    return { decision: 'NoOpinion', reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  /** Every rule granted to `user` in `namespace` (cluster-wide ones included), and what could not be resolved. */
  rulesAndErrors(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
    const rules: PolicyRule[] = [];
    const errors: Error[] = [];
    this.visitRulesFor(user, namespace, (_, rule, error) => {
      if (rule !== undefined) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesReviewStatus> {
    const { rules, errors } = this.rulesAndErrors(user, namespace);
    const status: RulesReviewStatus = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const rule of rules) {
      if ((rule.resources ?? []).length > 0) {
        const entry: RulesReviewStatus['resourceRules'][number] = { verbs: [...rule.verbs] };
        if (rule.apiGroups !== undefined) entry.apiGroups = [...rule.apiGroups];
        entry.resources = [...rule.resources!];
        if ((rule.resourceNames ?? []).length > 0) entry.resourceNames = [...rule.resourceNames!];
        status.resourceRules.push(entry);
      }
      if ((rule.nonResourceURLs ?? []).length > 0) status.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs!] });
    }
    if (errors.length > 0) status.evaluationError = aggregate(errors.map((err) => err.message));
    return status;
  }

  /** The rules a binding's roleRef names (upstream's GetRoleReferenceRules); throws RoleNotFoundError for a role that is not there. */
  roleReferenceRules(roleRef: RoleRef, bindingNamespace: string): PolicyRule[] {
    if (roleRef.kind === 'Role') {
      const role = bindingNamespace === '' ? undefined : this.#source.role(bindingNamespace, roleRef.name);
      if (role === undefined) throw new RoleNotFoundError('roles', roleRef.name);
      return rulesOf(role);
    }
    if (roleRef.kind === 'ClusterRole') {
      const role = this.#source.clusterRole(roleRef.name);
      if (role === undefined) throw new RoleNotFoundError('clusterroles', roleRef.name);
      return rulesOf(role);
    }
    throw new Error(`unsupported role reference kind: ${JSON.stringify(roleRef.kind)}`);
  }

  /** Upstream's VisitRulesFor: ClusterRoleBindings first, then the namespace's RoleBindings. */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    const keys = userKeys(user);
    const seen = new Set<KubeObject>();
    for (const key of keys) {
      for (const binding of this.#source.clusterRoleBindings(key)) {
        if (!this.#visitBinding(binding, '', user, seen, visitor)) return;
      }
    }
    if (namespace === '') return;
    for (const key of keys) {
      for (const binding of this.#source.roleBindings(namespace, key)) {
        if (!this.#visitBinding(binding, namespace, user, seen, visitor)) return;
      }
    }
  }

  /** Visits a binding's rules once; false when the visitor stopped. */
  #visitBinding(binding: KubeObject, namespace: string, user: UserInfo, seen: Set<KubeObject>, visitor: RuleVisitor): boolean {
    if (seen.has(binding)) return true;
    seen.add(binding);
    const subject = subjectsOf(binding).find((s) => appliesToUser(user, s, namespace));
    if (subject === undefined) return true;
    let rules: PolicyRule[];
    try {
      rules = this.roleReferenceRules(binding.roleRef as RoleRef, namespace);
    } catch (err) {
      return visitor(undefined, undefined, err as Error);
    }
    const source = { binding, subject };
    for (const rule of rules) if (!visitor(source, rule, undefined)) return false;
    return true;
  }
}

/** Upstream's appliesToUser: the index found the binding; this picks the subject that names the user. */
function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User': return user.name === subject.name;
    case 'Group': return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const saNamespace = subject.namespace || namespace;
      return saNamespace !== '' && user.name === `${serviceAccountPrefix}${saNamespace}:${subject.name}`;
    }
    default: return false;
  }
}

/** As upstream's clusterRoleBindingDescriber / roleBindingDescriber. */
function describe({ binding, subject }: RuleSource): string {
  const roleRef = binding.roleRef as RoleRef;
  const namespace = binding.metadata.namespace ?? '';
  const who = subject.kind === 'ServiceAccount'
    ? `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || namespace}`)}`
    : `${subject.kind} ${JSON.stringify(subject.name)}`;
  if (namespace === '') return `ClusterRoleBinding ${JSON.stringify(binding.metadata.name)} of ${roleRef.kind} ${JSON.stringify(roleRef.name)} to ${who}`;
  return `RoleBinding ${JSON.stringify(`${binding.metadata.name}/${namespace}`)} of ${roleRef.kind} ${JSON.stringify(roleRef.name)} to ${who}`;
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several (deduplicated) in brackets. */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * kube-apiserver's privileged-groups authorizer, first in every mode list: members of
 * system:masters may do anything, whatever the other modes say.
 */
export function privilegedGroupsAuthorizer(groups: readonly string[]): Authorizer & RuleResolver {
  const privileged = (user: UserInfo) => user.groups.some((group) => groups.includes(group));
  return {
    authorize: (user) => ({ decision: privileged(user) ? 'Allow' : 'NoOpinion', reason: '' }),
    // Not a rule resolver upstream: a member's rules are those its modes list (RBAC's
    // cluster-admin binding to system:masters, AlwaysAllow's `*`), so it adds none.
    rulesFor: async () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
  };
}
