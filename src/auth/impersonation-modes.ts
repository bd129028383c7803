// The impersonation modes of v1.36's constrained impersonation filter (KEP-5284, upstream's
// endpoints/filters/impersonation/constrained_impersonation.go and impersonation.go): each
// decides whether a requestor may act as the user the headers name, and they are tried in
// order (associated-node, arbitrary-node, serviceaccount, user-info, then legacy).
//
// A constrained mode applies only to the users it is for. It first asks
// `impersonate-on:<mode>:<verb>` on the request's own attributes, then
// `impersonate:<mode>` in authentication.k8s.io for the name (users, serviceaccounts or
// nodes), uid, groups and extra values. Legacy mode asks the `impersonate` verb of old.
// The first mode that grants wins; when none does, the first refusal is the answer.
// Upstream's caches (the last mode that worked for a requestor, the decisions per request
// and per wanted user) only save authorizer calls, and are left out.
import { isDomainPrefixedPath, isDNS1123Subdomain } from '../api/labels.ts';
import { StatusError } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { forbiddenError, type AuthorizationAttributes, type Authorizer } from './authorize.ts';
import { allServiceAccountsGroup, splitServiceAccountName } from './service-account-token.ts';
import { systemAnonymous, systemAuthenticated, systemMasters, systemUnauthenticated, type UserInfo } from './user.ts';

/** The user the Impersonate-* headers ask for, as they give it (upstream's wanted user.DefaultInfo). */
export interface WantedUser {
  name: string;
  uid: string;
  groups: string[];
  /** Keys in the order their headers came; values in order. */
  extra: Map<string, string[]>;
}

/** A granted impersonation: the user the request acts as, and the `impersonate:<mode>` verb that granted it ('' for legacy). */
export interface Impersonated {
  user: UserInfo;
  constraint: string;
}

const authenticationGroup = 'authentication.k8s.io';
const nodesGroup = 'system:nodes';
const nodeUsernamePrefix = 'system:node:';
const nodeNameKey = 'authentication.kubernetes.io/node-name';
const associatedNodeKeysKey = 'authentication.kubernetes.io/associated-node-keys';
/** Upstream's manyAuthorizationChecksInLoop: from this many groups or extra values, one wildcard check is tried first. */
const manyChecks = 4;

/**
 * The user the request acts as, trying each mode in turn: the constrained ones when the
 * request's attributes are given (ConstrainedImpersonation on), then legacy. A refusal is
 * upstream's 403; the first mode's refusal is the one answered.
 */
export async function impersonateByModes(requestor: UserInfo, wanted: WantedUser, authorizer: Authorizer, request: AuthorizationAttributes | undefined): Promise<Impersonated> {
  let firstRefusal: StatusError | undefined;
  if (request !== undefined) {
    for (const mode of constrainedModes) {
      try {
        const granted = await checkConstrainedMode(mode, requestor, wanted, authorizer, request);
        if (granted !== undefined) return granted;
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        firstRefusal ??= err;
      }
    }
  }
  try {
    return await checkIdentity(legacyMode, authorizer, requestor, wanted);
  } catch (err) {
    if (firstRefusal !== undefined && err instanceof StatusError) throw firstRefusal;
    throw err;
  }
}

interface ConstrainedMode {
  /** The mode's name in its verbs: `impersonate:<name>`, `impersonate-on:<name>:<verb>`. */
  name: string;
  /** Whether the mode is for this wanted user and requestor at all. */
  appliesTo(wanted: WantedUser, requestor: UserInfo): boolean;
}

/** Upstream's order: the narrowest first. */
const constrainedModes: readonly ConstrainedMode[] = [
  // A service account acting as the node its pod runs on (a node agent): only the name may be asked for.
  { name: 'associated-node', appliesTo: (wanted, requestor) => onlyNameWanted(wanted) && associatedWithNode(requestor, wanted.name) },
  { name: 'arbitrary-node', appliesTo: (wanted) => onlyNameWanted(wanted) && nodeName(wanted.name) !== undefined },
  { name: 'serviceaccount', appliesTo: (wanted) => onlyNameWanted(wanted) && splitServiceAccountName(wanted.name) !== undefined },
  // Every other user; uid, groups and extras may be asked for too.
  { name: 'user-info', appliesTo: (wanted) => nodeName(wanted.name) === undefined && splitServiceAccountName(wanted.name) === undefined },
];

async function checkConstrainedMode(
  mode: ConstrainedMode, requestor: UserInfo, wanted: WantedUser, authorizer: Authorizer, request: AuthorizationAttributes,
): Promise<Impersonated | undefined> {
  if (!mode.appliesTo(wanted, requestor)) return undefined;
  if (mode.name === 'associated-node') {
    // Asked as a requestor that stands for the service account on any node: its extra values
    // are replaced by their keys, and the node check names every node ("*"), as upstream
    // asks so that one decision holds for the same agent on each node.
    const asAnyNode: UserInfo = { ...requestor, extra: { [associatedNodeKeysKey]: Object.keys(requestor.extra ?? {}).sort() } };
    await check(authorizer, asAnyNode, { ...request, verb: `impersonate-on:${mode.name}:${request.verb}` });
    await check(authorizer, asAnyNode, identityAttributes(`impersonate:${mode.name}`, authenticationGroup, 'nodes', '', '*'));
    return { user: { name: wanted.name, uid: '', groups: [nodesGroup, systemAuthenticated] }, constraint: `impersonate:${mode.name}` };
  }
  await check(authorizer, requestor, { ...request, verb: `impersonate-on:${mode.name}:${request.verb}` });
  return checkIdentity({ verb: `impersonate:${mode.name}`, constrained: true }, authorizer, requestor, wanted);
}

interface IdentityMode {
  verb: string;
  /** The constrained modes ask in authentication.k8s.io, name nodes as nodes and refuse what legacy takes (system:masters, odd extras). */
  constrained: boolean;
}

const legacyMode: IdentityMode = { verb: 'impersonate', constrained: false };

/**
 * May the requestor be the wanted user (name, uid, groups, extras, in that order)? Answers
 * the user it becomes: a node's or service account's groups are theirs, and
 * system:authenticated (system:unauthenticated for system:anonymous) is added.
 */
async function checkIdentity(mode: IdentityMode, authorizer: Authorizer, requestor: UserInfo, wanted: WantedUser): Promise<Impersonated> {
  const nameGroup = mode.constrained ? authenticationGroup : '';
  let groups = [...wanted.groups];
  const node = mode.constrained ? nodeName(wanted.name) : undefined;
  const serviceAccount = splitServiceAccountName(wanted.name);
  if (node !== undefined) {
    await check(authorizer, requestor, identityAttributes(mode.verb, nameGroup, 'nodes', '', node));
    groups = [nodesGroup];
  } else if (serviceAccount !== undefined) {
    if (groups.length === 0) groups = [allServiceAccountsGroup, `${allServiceAccountsGroup}:${serviceAccount.namespace}`];
    await check(authorizer, requestor, identityAttributes(mode.verb, nameGroup, 'serviceaccounts', serviceAccount.namespace, serviceAccount.name));
  } else {
    await check(authorizer, requestor, identityAttributes(mode.verb, nameGroup, 'users', '', wanted.name));
  }
  if (wanted.uid !== '') await check(authorizer, requestor, identityAttributes(mode.verb, authenticationGroup, 'uids', '', wanted.uid));
  await checkGroups(mode, authorizer, requestor, wanted.groups, nameGroup);
  await checkExtra(mode, authorizer, requestor, wanted.extra);

  if (wanted.name === systemAnonymous) {
    if (!groups.includes(systemUnauthenticated)) groups.push(systemUnauthenticated);
  } else if (!groups.includes(systemUnauthenticated) && !groups.includes(systemAuthenticated)) {
    groups.push(systemAuthenticated);
  }
  const user: UserInfo = { name: wanted.name, uid: wanted.uid, groups };
  if (wanted.extra.size > 0) user.extra = Object.fromEntries([...wanted.extra].map(([key, values]) => [key, [...values]]));
  return { user, constraint: mode.constrained ? mode.verb : '' };
}

async function checkGroups(mode: IdentityMode, authorizer: Authorizer, requestor: UserInfo, groups: readonly string[], group: string): Promise<void> {
  if (groups.length === 0) return;
  const attributes = identityAttributes(mode.verb, group, 'groups', '', '');
  if (mode.constrained) {
    if (groups.includes('')) throw forbiddenError(requestor, attributes, 'impersonating the empty string group is not allowed');
    if (groups.includes(systemMasters)) throw forbiddenError(requestor, { ...attributes, name: systemMasters }, 'impersonating the system:masters group is not allowed');
    if (groups.length >= manyChecks && await allowed(authorizer, requestor, { ...attributes, name: '*' })) return;
  }
  for (const name of groups) await check(authorizer, requestor, { ...attributes, name });
}

async function checkExtra(mode: IdentityMode, authorizer: Authorizer, requestor: UserInfo, extra: ReadonlyMap<string, readonly string[]>): Promise<void> {
  if (extra.size === 0) return;
  const attributes = identityAttributes(mode.verb, authenticationGroup, 'userextras', '', '');
  if (mode.constrained) {
    const problem = extraProblem(extra);
    if (problem !== undefined) throw forbiddenError(requestor, attributes, problem);
    let values = 0;
    for (const list of extra.values()) values += list.length;
    if ((extra.size >= manyChecks || values >= manyChecks) && await allowed(authorizer, requestor, { ...attributes, subresource: '*', name: '*' })) return;
  }
  for (const [key, values] of extra) {
    for (const name of values) await check(authorizer, requestor, { ...attributes, subresource: key, name });
  }
}

/** What constrained impersonation refuses in extras that legacy took (upstream's validateExtra), in its words. */
function extraProblem(extra: ReadonlyMap<string, readonly string[]>): string | undefined {
  for (const [key, values] of extra) {
    if (key === '') return 'impersonating the empty string key in extra is not allowed';
    const causes = isDomainPrefixedPath(key, 'extra.key');
    if (causes.length > 0) {
      // field.ErrorList's aggregate: each distinct error once, bracketed when several.
      const messages = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
      return `impersonating an invalid key in extra is not allowed: ${messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`}`;
    }
    if (key !== key.toLowerCase()) return `impersonating a non-lowercase key in extra is not allowed: ${goQuote(key)}`;
    if (values.length === 0) return 'impersonating empty values in extra is not allowed';
    if (values.includes('')) return 'impersonating the empty string value in extra is not allowed';
  }
  return undefined;
}

/** The attributes of one identity check: a resource request in API group "" or authentication.k8s.io, version v1. */
function identityAttributes(verb: string, group: string, resource: string, namespace: string, name: string): AuthorizationAttributes {
  return { verb, group, version: 'v1', resource, subresource: '', namespace, name, path: '' };
}

/** Refuses with upstream's 403 unless the authorizer allows; a mode that failed is named in the reason, as upstream's checkAuthorization words it. */
async function check(authorizer: Authorizer, user: UserInfo, attributes: AuthorizationAttributes): Promise<void> {
  const decision = await authorizer.authorize(user, attributes);
  if (decision.decision === 'Allow') return;
  const reason = decision.reason ?? '';
  const why = decision.error === undefined ? reason : reason === '' ? decision.error : `${decision.error}: ${reason}`;
  throw forbiddenError(user, attributes, why);
}

async function allowed(authorizer: Authorizer, user: UserInfo, attributes: AuthorizationAttributes): Promise<boolean> {
  return (await authorizer.authorize(user, attributes)).decision === 'Allow';
}

function onlyNameWanted(wanted: WantedUser): boolean {
  return wanted.uid === '' && wanted.groups.length === 0 && wanted.extra.size === 0;
}

/** The node a `system:node:<name>` user is, when the name is a valid node name (a DNS subdomain); else undefined. */
function nodeName(username: string): string | undefined {
  if (!username.startsWith(nodeUsernamePrefix)) return undefined;
  const name = username.slice(nodeUsernamePrefix.length);
  return isDNS1123Subdomain(name).length === 0 ? name : undefined;
}

/** A service account whose token is bound to a pod on the wanted node (its one node-name extra value). */
function associatedWithNode(requestor: UserInfo, wantedName: string): boolean {
  const node = nodeName(wantedName);
  if (node === undefined || splitServiceAccountName(requestor.name) === undefined) return false;
  const values = requestor.extra?.[nodeNameKey];
  return values !== undefined && values.length === 1 && values[0] === node;
}
