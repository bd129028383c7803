// Impersonation: Impersonate-* headers make a request act as another user, once the
// authorizer allows it. With ConstrainedImpersonation (beta, on in v1.36) as upstream's
// endpoints/filters/impersonation filter (its modes in impersonation-modes.ts); with the gate
// off as its older WithImpersonation filter.
import { badRequest } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { forbiddenError, type AuthorizationAttributes, type Authorizer } from './authorize.ts';
import { impersonateByModes, type Impersonated, type WantedUser } from './impersonation-modes.ts';
import { allServiceAccountsGroup, serviceAccountUsernamePrefix, splitServiceAccountName } from './service-account-token.ts';
import { systemAnonymous, systemAuthenticated, systemUnauthenticated, type UserInfo } from './user.ts';

export type { Impersonated } from './impersonation-modes.ts';

const userHeader = 'impersonate-user';
const uidHeader = 'impersonate-uid';
const groupHeader = 'impersonate-group';
const extraPrefix = 'impersonate-extra-';

export interface ImpersonationOptions {
  /**
   * The request's own attributes (what authorization is then asked about), for the
   * `impersonate-on:<mode>:<verb>` checks of constrained impersonation. Without them no
   * constrained mode applies and only the `impersonate` verb can grant.
   */
  request?: AuthorizationAttributes;
  /** The ConstrainedImpersonation gate (default on, as v1.36); off, the headers are read and checked as before v1.35. */
  constrainedImpersonation?: boolean;
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

/** The user the request acts as ({@link resolveImpersonation}'s user). */
export async function impersonate(requestor: UserInfo, rawHeaders: readonly string[], authorizer: Authorizer, options: ImpersonationOptions = {}): Promise<UserInfo | undefined> {
  return (await resolveImpersonation(requestor, rawHeaders, authorizer, options))?.user;
}

/**
 * The user the request acts as and the constraint that granted it (the `impersonate:<mode>`
 * verb, '' when the legacy `impersonate` verb did: what the audit event's
 * authenticationMetadata.impersonationConstraint names); undefined when the headers name
 * nobody (an empty Impersonate-User leaves the request as it is, as upstream). A refusal is
 * upstream's 403; uid, groups or extras without a user are its 400.
 */
export async function resolveImpersonation(
  requestor: UserInfo, rawHeaders: readonly string[], authorizer: Authorizer, options: ImpersonationOptions = {},
): Promise<Impersonated | undefined> {
  const headers = readHeaders(rawHeaders);
  if (options.constrainedImpersonation === false) return legacyImpersonation(requestor, headers, authorizer);
  const hasUser = headers.user !== undefined && headers.user !== '';
  if (!hasUser) {
    if (headers.uid !== undefined && headers.uid !== '' || headers.groups.length > 0 || headers.extras.length > 0) {
      // Upstream's processImpersonationHeaders: the user.DefaultInfo asked for, with Go's %#v.
      throw badRequest(`requested ${goDefaultInfo(headers.user ?? '', headers.uid ?? '', headers.groups, headers.extras)} without impersonating a user name`);
    }
    return undefined;
  }
  const wanted: WantedUser = { name: headers.user!, uid: headers.uid ?? '', groups: headers.groups, extra: new Map() };
  for (const [key, value] of headers.extras) {
    const values = wanted.extra.get(key);
    if (values === undefined) wanted.extra.set(key, [value]);
    else values.push(value);
  }
  return impersonateByModes(requestor, wanted, authorizer, options.request);
}

interface ImpersonationHeaders {
  /** The first Impersonate-User and Impersonate-Uid, as Go's Header.Get reads them. */
  user: string | undefined;
  uid: string | undefined;
  groups: string[];
  /** [key, value] per Impersonate-Extra-<key> header, keys lower-cased and unescaped. */
  extras: [string, string][];
}

function readHeaders(rawHeaders: readonly string[]): ImpersonationHeaders {
  const headers: ImpersonationHeaders = { user: undefined, uid: undefined, groups: [], extras: [] };
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const header = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (header === userHeader) headers.user ??= value;
    else if (header === uidHeader) headers.uid ??= value;
    else if (header === groupHeader) headers.groups.push(value);
    else if (header.startsWith(extraPrefix)) headers.extras.push([unescapeExtraKey(header.slice(extraPrefix.length)), value]);
  }
  return headers;
}

/** One thing to impersonate, as the older filter's ObjectReference: what it checks with the `impersonate` verb. */
interface LegacyRequest {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  /** The extra's key (UserExtra). */
  key: string;
}

/**
 * The ConstrainedImpersonation gate off: upstream's WithImpersonation, which checks the
 * user (or service account), each group, each extra value, then the uid, with the
 * `impersonate` verb, and refuses uid, groups or extras without a user with its own 400.
 */
async function legacyImpersonation(requestor: UserInfo, headers: ImpersonationHeaders, authorizer: Authorizer): Promise<Impersonated | undefined> {
  const requests: LegacyRequest[] = [];
  const hasUser = headers.user !== undefined && headers.user !== '';
  if (hasUser) {
    const serviceAccount = splitServiceAccountName(headers.user!);
    requests.push(serviceAccount === undefined
      ? { kind: 'User', namespace: '', name: headers.user!, key: '' }
      : { kind: 'ServiceAccount', namespace: serviceAccount.namespace, name: serviceAccount.name, key: '' });
  }
  for (const group of headers.groups) requests.push({ kind: 'Group', namespace: '', name: group, key: '' });
  for (const [key, value] of headers.extras) requests.push({ kind: 'UserExtra', namespace: '', name: value, key });
  if (headers.uid !== undefined && headers.uid !== '') requests.push({ kind: 'UID', namespace: '', name: headers.uid, key: '' });
  if (!hasUser && requests.length > 0) throw badRequest(`requested ${goObjectReferences(requests)} without impersonating a user`);
  if (requests.length === 0) return undefined;

  const groupsSpecified = headers.groups.length > 0;
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    // The core kinds' references carry no API version, so their checks name none.
    const attributes: AuthorizationAttributes = { verb: 'impersonate', group: '', version: '', resource: '', subresource: '', namespace: request.namespace, name: request.name, path: '' };
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
      case 'UserExtra':
        Object.assign(attributes, { group: 'authentication.k8s.io', version: 'v1', resource: 'userextras', subresource: request.key });
        (extra[request.key] ??= []).push(request.name);
        break;
      case 'UID':
        Object.assign(attributes, { group: 'authentication.k8s.io', version: 'v1', resource: 'uids' });
        uid = request.name;
        break;
    }
    const decision = await authorizer.authorize(requestor, attributes);
    if (decision.decision !== 'Allow') throw forbiddenError(requestor, attributes, decision.reason);
  }
  if (name !== systemAnonymous) {
    if (!groups.includes(systemAuthenticated) && !groups.includes(systemUnauthenticated)) groups.push(systemAuthenticated);
  } else if (!groups.includes(systemUnauthenticated)) {
    groups.push(systemUnauthenticated);
  }
  const user: UserInfo = { name, uid, groups };
  if (Object.keys(extra).length > 0) user.extra = extra;
  return { user, constraint: '' };
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

/**
 * The older filter's references as Go's %v prints a []v1.ObjectReference: each struct's
 * fields (Kind, Namespace, Name, UID, APIVersion, ResourceVersion, FieldPath) spaced, as
 * `[{Group  dev    } {UserExtra  view  authentication.k8s.io/v1  scopes}]`.
 */
function goObjectReferences(requests: readonly LegacyRequest[]): string {
  const reference = (r: LegacyRequest) => {
    const apiVersion = r.kind === 'UserExtra' || r.kind === 'UID' ? 'authentication.k8s.io/v1' : '';
    return `{${[r.kind, r.namespace, r.name, '', apiVersion, '', r.key].join(' ')}}`;
  };
  return `[${requests.map(reference).join(' ')}]`;
}

/** Extra keys arrive %-encoded in header names (`Impersonate-Extra-example.com%2fscopes`); a malformed one is taken as it is. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
