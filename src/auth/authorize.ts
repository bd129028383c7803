// Authorization: what a request wants to do, the Authorizer hook (AlwaysAllow today), and the 403 for a denial.
import { StatusError, type StatusDetails } from '../api/index.ts';
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
}

interface AuthorizationDecision {
  allowed: boolean;
  /** Why not (or why), appended to the Forbidden message. */
  reason?: string;
}

/** The hook where an authorization mode plugs in (`--authorization-mode`): AlwaysAllow today, RBAC later. */
export interface Authorizer {
  authorize(user: UserInfo, attributes: AuthorizationAttributes): AuthorizationDecision;
}

/** `--authorization-mode AlwaysAllow`. */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ allowed: true }),
};

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

// Go's %q for the plain strings that appear here.
function goQuote(value: string): string {
  return JSON.stringify(value);
}
