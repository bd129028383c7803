// Impersonation as upstream's endpoints/filters/impersonation.go: Impersonate-* headers, each allowed by the authorizer's `impersonate` verb, make the request act as another user.
import { badRequest } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { forbiddenError, type AuthorizationAttributes, type Authorizer } from './authorize.ts';
import { allServiceAccountsGroup, serviceAccountUsernamePrefix } from './service-account-token.ts';
import { anonymousUser } from './authenticate.ts';
import { systemAuthenticated, type UserInfo } from './user.ts';

const userHeader = 'impersonate-user';
const uidHeader = 'impersonate-uid';
const groupHeader = 'impersonate-group';
const extraPrefix = 'impersonate-extra-';
const unauthenticatedGroup = 'system:unauthenticated';

/** One thing to impersonate, as upstream's ObjectReference: what is checked with the `impersonate` verb. */
interface ImpersonationRequest {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UID' | 'UserExtra';
  namespace: string;
  name: string;
  /** The extra's key (UserExtra). */
  key: string;
}

/**
 * Whether the headers ask for impersonation. `rawHeaders` is Node's flat list of names
 * and values as received, since a repeated header (one Impersonate-Group per group)
 * must not be joined.
 */
export function wantsImpersonation(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name === userHeader || name === uidHeader || name === groupHeader || name.startsWith(extraPrefix)) return true;
  }
  return false;
}

/**
 * The user the request acts as: each requested user, service account, group, uid and
 * extra value must be allowed to `requestor` by the authorizer (verb `impersonate` on
 * users, serviceaccounts, groups in API group "", uids and userextras/<key> in
 * authentication.k8s.io), else 403 with upstream's message. Groups and extras without
 * a user are refused as upstream refuses them (400). Without groups named,
 * `system:authenticated` is added (or `system:unauthenticated` for system:anonymous),
 * and a service account gets its account groups.
 */
export async function impersonate(requestor: UserInfo, rawHeaders: readonly string[], authorizer: Authorizer): Promise<UserInfo | undefined> {
  const requests = impersonationRequests(rawHeaders);
  // Headers that ask for nothing (an empty Impersonate-User) leave the request as it is, as upstream.
  if (requests.length === 0) return undefined;
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    const attributes: AuthorizationAttributes = { verb: 'impersonate', group: '', resource: '', subresource: '', namespace: request.namespace, name: request.name, path: '' };
    switch (request.kind) {
      case 'ServiceAccount':
        attributes.resource = 'serviceaccounts';
        name = `${serviceAccountUsernamePrefix}${request.namespace}:${request.name}`;
        if (!groupsSpecified) groups = [allServiceAccountsGroup, `${allServiceAccountsGroup}:${request.namespace}`];
        break;
      case 'User':
        attributes.resource = 'users';
        name = request.name;
        break;
      case 'Group':
        attributes.resource = 'groups';
        groups.push(request.name);
        break;
      case 'UID':
        attributes.group = 'authentication.k8s.io';
        attributes.resource = 'uids';
        uid = request.name;
        break;
      case 'UserExtra':
        attributes.group = 'authentication.k8s.io';
        attributes.resource = 'userextras';
        attributes.subresource = request.key;
        (extra[request.key] ??= []).push(request.name);
        break;
    }
    const decision = await authorizer.authorize(requestor, attributes);
    if (decision.decision !== 'Allow') throw forbiddenError(requestor, attributes, decision.reason);
  }
  if (name !== anonymousUser.name) {
    if (!groups.includes(systemAuthenticated) && !groups.includes(unauthenticatedGroup)) groups.push(systemAuthenticated);
  } else if (!groups.includes(unauthenticatedGroup)) {
    groups.push(unauthenticatedGroup);
  }
  return { name, uid, groups, extra };
}

/** The things to impersonate, in upstream's order: the user (or service account), uid, groups, then each extra value. */
function impersonationRequests(rawHeaders: readonly string[]): ImpersonationRequest[] {
  let user: string | undefined;
  let uid: string | undefined;
  const groups: string[] = [];
  const extras: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const header = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (header === userHeader) user ??= value;
    else if (header === uidHeader) uid ??= value;
    else if (header === groupHeader) groups.push(value);
    else if (header.startsWith(extraPrefix)) extras.push([unescapeExtraKey(header.slice(extraPrefix.length)), value]);
  }
  const requests: ImpersonationRequest[] = [];
  const hasUser = user !== undefined && user !== '';
  if (hasUser) {
    const serviceAccount = splitServiceAccountName(user!);
    requests.push(serviceAccount === undefined
      ? { kind: 'User', namespace: '', name: user!, key: '' }
      : { kind: 'ServiceAccount', namespace: serviceAccount.namespace, name: serviceAccount.name, key: '' });
  }
  const hasUid = uid !== undefined && uid !== '';
  if (hasUid) requests.push({ kind: 'UID', namespace: '', name: uid!, key: '' });
  for (const group of groups) requests.push({ kind: 'Group', namespace: '', name: group, key: '' });
  for (const [key, value] of extras) requests.push({ kind: 'UserExtra', namespace: '', name: value, key });
  if (!hasUser && (groups.length > 0 || extras.length > 0 || hasUid)) {
    // As v1.36's constrained impersonation filter (ConstrainedImpersonation, on by default)
    // refuses it: 400, naming the user.DefaultInfo the headers asked for, with Go's %#v.
    throw badRequest(`requested ${goDefaultInfo(user ?? '', uid ?? '', groups, extras)} without impersonating a user name`);
  }
  return requests;
}

/** A user.DefaultInfo as Go's %#v writes it: `&user.DefaultInfo{Name:"", UID:"", Groups:[]string{"g"}, Extra:map[string][]string(nil)}`. */
function goDefaultInfo(name: string, uid: string, groups: readonly string[], extras: readonly (readonly [string, string])[]): string {
  const list = (values: readonly string[]) => values.length === 0 ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
  const extra = new Map<string, string[]>();
  for (const [key, value] of extras) extra.set(key, [...(extra.get(key) ?? []), value]);
  // fmt prints a map's keys sorted.
  const keys = [...extra.keys()].sort();
  const extraText = keys.length === 0 ? 'map[string][]string(nil)' : `map[string][]string{${keys.map((key) => `${goQuote(key)}:${list(extra.get(key)!)}`).join(', ')}}`;
  return `&user.DefaultInfo{Name:${goQuote(name)}, UID:${goQuote(uid)}, Groups:${list(groups)}, Extra:${extraText}}`;
}

/** `system:serviceaccount:<ns>:<name>` split, as upstream's serviceaccount.SplitUsername; undefined for any other name. */
function splitServiceAccountName(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

/** Extra keys arrive %-encoded in header names (`Impersonate-Extra-example.com%2fscopes`); a malformed one is taken as it is. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
