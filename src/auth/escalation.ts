// RBAC escalation prevention, as upstream's pkg/registry/rbac policy-based storages: a
// request may create or update a Role/ClusterRole only with rules its user already holds
// (or with the `escalate` verb on it), and a binding only to a role whose rules its user
// holds (or with the `bind` verb on that role). Runs as admission's strategy step, before
// the type's validation, as upstream checks before the registry's create or update.
import { notFound, StatusError, type StatusCause } from '../api/index.ts';
import { deepEqualNullAsAbsent } from '../api/json.ts';
import { currentRequest } from '../api/request-context.ts';
import type { KubeObject } from '../api/index.ts';
import type { AuthorizationAttributes, Authorizer } from './authorize.ts';
import { aggregate, RoleNotFoundError, type RbacAuthorizer } from './rbac.ts';
import { compactRules, compactString, covers, type PolicyRule, type RoleRef } from './rbac-rules.ts';
import { goQuoteList } from '../api/field-errors.ts';
import { systemMasters, type UserInfo } from './user.ts';

const group = 'rbac.authorization.k8s.io';

/** What the check reads of a write (a subset of admission's attributes). */
export interface EscalationAttributes {
  operation: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
}

export interface EscalationCheckOptions {
  /** The RBAC rules of a user (upstream's registry rule resolver: RBAC only). */
  resolver: () => RbacAuthorizer | undefined;
  /** The server's authorizer, asked for the `escalate` and `bind` verbs. */
  authorizer: () => Authorizer | undefined;
}

/** Every permission there is: what it takes to set an aggregationRule. */
const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** The escalation check as an admission plugin: its strategy step, after mutating admission and before the type's validation. */
export function rbacEscalationCheck(opts: EscalationCheckOptions): { name: string; strategyCauses(attrs: EscalationAttributes): Promise<StatusCause[]> | undefined } {
  return {
    name: 'RBACEscalation',
    // Upstream's policy-based storages check before the registry's create or update, so
    // before the type's validation: a 403 thrown from admission's strategy step (no causes).
    strategyCauses(attrs) {
      if (attrs.group !== group || attrs.subresource !== '' || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return undefined;
      return checkEscalation(attrs, opts).then(() => []);
    },
  };
}

async function checkEscalation(attrs: EscalationAttributes, opts: EscalationCheckOptions): Promise<void> {
  const user = currentRequest()?.user;
  const resolver = opts.resolver();
  const authorizer = opts.authorizer();
  // In-process writers (bootstrap, controllers) have no request; RBAC off: nothing to hold.
  if (user === undefined || resolver === undefined || authorizer === undefined) return;
  // system:masters is how the server's own loopback clients act: they may do anything (upstream's EscalationAllowed).
  if (user.groups.includes(systemMasters)) return;
  const obj = attrs.object!;
  if (attrs.operation === 'UPDATE' && onlyGCFieldsChange(obj, attrs.oldObject!)) return;
  switch (attrs.resource) {
    case 'roles':
    case 'clusterroles':
      await checkRole(attrs, user, resolver, authorizer);
      return;
    case 'rolebindings':
    case 'clusterrolebindings':
      await checkBinding(attrs, user, resolver, authorizer);
      return;
  }
}

async function checkRole(attrs: EscalationAttributes, user: UserInfo, resolver: RbacAuthorizer, authorizer: Authorizer): Promise<void> {
  const escalate: AuthorizationAttributes = {
    verb: 'escalate', group: attrs.group, resource: attrs.resource, subresource: '', namespace: attrs.namespace, name: attrs.name, path: '',
  };
  if ((await authorizer.authorize(user, escalate)).decision === 'Allow') return;
  const obj = attrs.object!;
  const rules = Array.isArray(obj.rules) ? (obj.rules as PolicyRule[]) : [];
  confirmNoEscalation(resolver, user, attrs.namespace, rules, attrs.resource, attrs.name);
  if (attrs.resource !== 'clusterroles') return;
  // An aggregationRule gathers anything, and keeps a role from being tightened: it takes every permission to set or change one.
  const aggregation = obj.aggregationRule ?? undefined;
  const oldAggregation = attrs.oldObject?.aggregationRule ?? undefined;
  const changes = attrs.operation === 'CREATE' ? aggregation !== undefined : (aggregation !== undefined || oldAggregation !== undefined) && !deepEqualNullAsAbsent(aggregation, oldAggregation);
  if (!changes) return;
  const { covered } = covers(resolver.rulesAndErrors(user, attrs.namespace).rules, fullAuthority);
  if (!covered) throw forbidden(attrs.resource, attrs.name, 'must have cluster-admin privileges to use the aggregationRule');
}

async function checkBinding(attrs: EscalationAttributes, user: UserInfo, resolver: RbacAuthorizer, authorizer: Authorizer): Promise<void> {
  const roleRef = (attrs.object!.roleRef ?? {}) as RoleRef;
  // Upstream's BindingAuthorized: `bind` on the role, in the binding's namespace (cluster-wide for a ClusterRoleBinding).
  const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
  if (resource !== '') {
    const bind: AuthorizationAttributes = {
      verb: 'bind', group: roleRef.apiGroup, resource, subresource: '', namespace: attrs.namespace, name: roleRef.name, path: '',
    };
    if ((await authorizer.authorize(user, bind)).decision === 'Allow') return;
  }
  let rules: PolicyRule[];
  try {
    rules = resolver.roleReferenceRules(roleRef, attrs.namespace);
  } catch (err) {
    // Upstream's policy-based storages return GetRoleReferenceRules' error as it is: the store's 404 for a role that is not there.
    if (err instanceof RoleNotFoundError) throw storeNotFound(err);
    throw forbidden(attrs.resource, attrs.name, (err as Error).message);
  }
  confirmNoEscalation(resolver, user, attrs.namespace, rules, attrs.resource, attrs.name);
}

/** Upstream's ConfirmNoEscalation, as a 403 naming the rules the user lacks. */
function confirmNoEscalation(resolver: RbacAuthorizer, user: UserInfo, namespace: string, rules: PolicyRule[], resource: string, name: string): void {
  const held = resolver.rulesAndErrors(user, namespace);
  const { covered, missing } = covers(held.rules, rules);
  if (covered) return;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user ${JSON.stringify(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  // Upstream prints its []error of one aggregate with %v: the store's words, in brackets.
  if (held.errors.length > 0) message += `; resolution errors: [${aggregate(held.errors.map((err) => err instanceof RoleNotFoundError ? storeNotFound(err).message : err.message))}]`;
  throw forbidden(resource, name, message);
}

/**
 * A missing role as the registry's rule resolver tells it: it reads the roles' stores,
 * not the authorizer's listers, so the resource is plural (`roles.rbac.authorization.k8s.io "x" not found`).
 */
function storeNotFound(err: RoleNotFoundError): StatusError {
  return notFound({ group, resource: err.resource }, err.roleName);
}

/** apierrors.NewForbidden(resource.rbac.authorization.k8s.io, name, err). */
function forbidden(resource: string, name: string, why: string): StatusError {
  const qualified = `${resource}.${group}`;
  const message = name === '' ? `${qualified} is forbidden: ${why}` : `${qualified} ${JSON.stringify(name)} is forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, { group, kind: resource, ...(name === '' ? {} : { name }) });
}

/** Upstream's IsOnlyMutatingGCFields: what changes is only owner references and finalizers (the garbage collector's business). */
function onlyGCFieldsChange(obj: KubeObject, old: KubeObject): boolean {
  const copy = { ...obj, metadata: { ...obj.metadata } };
  for (const field of ['ownerReferences', 'finalizers', 'managedFields', 'resourceVersion', 'selfLink'] as const) {
    if (old.metadata[field] === undefined) delete copy.metadata[field];
    else (copy.metadata as Record<string, unknown>)[field] = old.metadata[field];
  }
  return deepEqualNullAsAbsent(copy, old);
}
