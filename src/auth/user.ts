// Who made a request: user name, uid and groups.
/**
 * Who made a request, as k8s.io/apiserver's `user.Info` (name, uid, groups) and as
 * `UserInfo` in authentication.k8s.io reviews.
 */
export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  /** Further attributes (a service account token's pod and credential id, impersonated extras), as upstream's user.Info Extra. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** Members are allowed everything, by RBAC's built-in cluster-admin binding. */
export const systemMasters = 'system:masters';
/** Added to every authenticated user, like kube-apiserver's authenticated group adder. */
export const systemAuthenticated = 'system:authenticated';
/** The user, and the group, of a request without credentials. */
export const systemAnonymous = 'system:anonymous';
export const systemUnauthenticated = 'system:unauthenticated';
