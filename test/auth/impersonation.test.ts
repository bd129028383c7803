// Impersonation (auth/impersonation.ts, auth/impersonation-modes.ts) as v1.36's constrained
// impersonation filter decides it: which checks the authorizer is asked, in order, what user
// the request then acts as and which constraint granted it, and the 400s and 403s in
// upstream's words. The first table is upstream's own (constrained_impersonation_test.go in
// kubernetes/apiserver, its test authorizer rebuilt here); the second grants through RBAC.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../../src/auth/authorize.ts';
import { impersonate, resolveImpersonation, type ImpersonationOptions } from '../../src/auth/impersonation.ts';
import { RbacAuthorizer, subjectIndexKeys } from '../../src/auth/rbac.ts';
import type { UserInfo } from '../../src/auth/user.ts';

const nodeNameKey = 'authentication.kubernetes.io/node-name';

/** A resource request's attributes, as the server hands them over. */
function request(verb: string, resource: string, namespace = 'bar', name = 'foo', more: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  const [base, subresource = ''] = resource.split('/');
  return { verb, group: '', version: 'v1', resource: base!, subresource, namespace, name, path: '', ...more };
}

const getPod = request('get', 'pods');
const createPod = request('create', 'pods');
const getSecret = request('get', 'secrets');

/** Impersonate-* headers of a wanted user, as client-go's impersonating round tripper sends them. */
function headersFor(wanted: { name: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }): string[] {
  const headers = ['Impersonate-User', wanted.name];
  if (wanted.uid !== undefined) headers.push('Impersonate-Uid', wanted.uid);
  for (const group of wanted.groups ?? []) headers.push('Impersonate-Group', group);
  for (const [key, values] of Object.entries(wanted.extra ?? {})) for (const value of values) headers.push(`Impersonate-Extra-${encodeURIComponent(key)}`, value);
  return headers;
}

/** One authorizer call as `<user> <verb> <group>/<resource>[/<subresource>] <namespace>/<name> <decision>` (the user's extra too when it has any). */
function describeCheck(user: UserInfo, a: AuthorizationAttributes, decision: AuthorizationDecision): string {
  const who = user.extra === undefined ? user.name : `${user.name}${JSON.stringify(user.extra)}`;
  const what = a.resource === '' ? a.path : `${a.group}/${a.resource}${a.subresource === '' ? '' : `/${a.subresource}`} ${a.namespace}/${a.name}`;
  return `${who} ${a.verb} ${what} ${decision.decision}`;
}

function recording(authorizer: Authorizer): { authorizer: Authorizer; checks: string[] } {
  const checks: string[] = [];
  return {
    checks,
    authorizer: {
      async authorize(user, attributes) {
        const decision = await authorizer.authorize(user, attributes);
        checks.push(describeCheck(user, attributes, decision));
        return decision;
      },
    },
  };
}

/** Upstream's test authorizer: its named impersonators and what each may do; everything else "deny by default". */
const upstreamTestAuthorizer: Authorizer = {
  authorize(u, a) {
    const allow: AuthorizationDecision = { decision: 'Allow' };
    const [name, firstGroup] = [u.name, u.groups[0]];
    if (name === 'sa-impersonater' && a.verb === 'impersonate:serviceaccount' && a.resource === 'serviceaccounts') return allow;
    if (name === 'node-impersonater' && a.verb === 'impersonate:arbitrary-node' && a.resource === 'nodes') return allow;
    if (firstGroup === 'associate-node-impersonater' && a.verb === 'impersonate:associated-node' && a.resource === 'nodes') return allow;
    if (name === 'user-impersonater' && a.verb === 'impersonate:user-info' && (a.resource === 'users' || a.resource === 'uids')) return allow;
    if (firstGroup === 'group-impersonater' && a.verb === 'impersonate:user-info' && a.resource === 'groups') return allow;
    if (firstGroup === 'extra-setter-scopes' && a.verb === 'impersonate:user-info' && a.resource === 'userextras' && a.subresource === 'pandas.io/scopes') return allow;
    if (name === 'legacy-impersonater' && a.verb === 'impersonate') return allow;
    if (a.verb.startsWith('impersonate-on:') && (a.verb.endsWith('list') || a.verb.endsWith('get'))) return allow;
    const userInfo = a.verb === 'impersonate:user-info';
    if ((name === 'many-groups-impersonater' || name === 'many-extras-impersonater' || name === 'mixed-impersonater') && userInfo && a.resource === 'users') return allow;
    if (name === 'many-groups-impersonater' && userInfo && a.resource === 'groups' && a.name === '*') return allow;
    if (name === 'many-extras-impersonater' && userInfo && a.resource === 'userextras' && a.subresource === '*' && a.name === '*') return allow;
    if (name === 'mixed-impersonater' && userInfo && a.resource === 'groups' && a.name !== '*') return allow;
    if (name === 'mixed-impersonater' && userInfo && a.resource === 'userextras' && a.subresource === 'tags.io/env' && a.name !== '*') return allow;
    return { decision: 'NoOpinion', reason: 'deny by default' };
  },
};

interface Case {
  name: string;
  requestor: UserInfo;
  wanted: { name: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The request's own attributes; absent, no constrained mode applies. */
  request?: AuthorizationAttributes;
  checks: string[];
  /** The user the request then acts as, and the constraint that granted it ('' for legacy)... */
  user?: UserInfo;
  constraint?: string;
  /** ...or the 403's message. */
  forbidden?: string;
}

const person = (name: string, groups: string[] = [], extra?: Record<string, string[]>): UserInfo => ({ name, uid: '', groups, ...(extra ? { extra } : {}) });
const saOnNode = (node: string) => person('system:serviceaccount:default:default', ['associate-node-impersonater'], { [nodeNameKey]: [node] });
const anyNodeKeys = `{"authentication.kubernetes.io/associated-node-keys":["${nodeNameKey}"]}`;
const authenticated = (name: string, groups: string[] = [], extra?: Record<string, string[]>, uid = '') => ({ name, uid, groups: [...groups, 'system:authenticated'], ...(extra ? { extra } : {}) });
const manyScopes = ['scope-a', 'scope-b', '5', '4', '3', '2', '1'];

const upstreamCases: Case[] = [
  {
    name: 'a requestor allowed nothing: the first refusal (impersonate:user-info) is the answer, after the legacy verb is asked too',
    requestor: person('tester'), wanted: { name: 'anyone' }, request: getPod,
    checks: [
      'tester impersonate-on:user-info:get /pods bar/foo Allow',
      'tester impersonate:user-info authentication.k8s.io/users /anyone NoOpinion',
      'tester impersonate /users /anyone NoOpinion',
    ],
    forbidden: 'users.authentication.k8s.io "anyone" is forbidden: User "tester" cannot impersonate:user-info resource "users" in API group "authentication.k8s.io" at the cluster scope: deny by default',
  },
  {
    name: 'user-info: impersonate-on the request\'s verb, then the user name',
    requestor: person('user-impersonater'), wanted: { name: 'anyone' }, request: getPod,
    checks: ['user-impersonater impersonate-on:user-info:get /pods bar/foo Allow', 'user-impersonater impersonate:user-info authentication.k8s.io/users /anyone Allow'],
    user: authenticated('anyone'), constraint: 'impersonate:user-info',
  },
  {
    name: 'user-info: a verb not granted (create) is refused as impersonate-on:<mode>:<verb> on the request',
    requestor: person('user-impersonater'), wanted: { name: 'anyone' }, request: createPod,
    checks: ['user-impersonater impersonate-on:user-info:create /pods bar/foo NoOpinion', 'user-impersonater impersonate /users /anyone NoOpinion'],
    forbidden: 'pods "foo" is forbidden: User "user-impersonater" cannot impersonate-on:user-info:create resource "pods" in API group "" in the namespace "bar": deny by default',
  },
  {
    name: 'serviceaccount: checked in its namespace; the account\'s groups are its own',
    requestor: person('sa-impersonater'), wanted: { name: 'system:serviceaccount:default:default' }, request: getPod,
    checks: [
      'sa-impersonater impersonate-on:serviceaccount:get /pods bar/foo Allow',
      'sa-impersonater impersonate:serviceaccount authentication.k8s.io/serviceaccounts default/default Allow',
    ],
    user: authenticated('system:serviceaccount:default:default', ['system:serviceaccounts', 'system:serviceaccounts:default']), constraint: 'impersonate:serviceaccount',
  },
  {
    name: 'arbitrary-node: a requestor not allowed the node is refused on nodes in authentication.k8s.io',
    requestor: person('sa-impersonater'), wanted: { name: 'system:node:node1' }, request: getPod,
    checks: [
      'sa-impersonater impersonate-on:arbitrary-node:get /pods bar/foo Allow',
      'sa-impersonater impersonate:arbitrary-node authentication.k8s.io/nodes /node1 NoOpinion',
      'sa-impersonater impersonate /users /system:node:node1 NoOpinion',
    ],
    forbidden: 'nodes.authentication.k8s.io "node1" is forbidden: User "sa-impersonater" cannot impersonate:arbitrary-node resource "nodes" in API group "authentication.k8s.io" at the cluster scope: deny by default',
  },
  {
    name: 'arbitrary-node: allowed the node but not the action',
    requestor: person('node-impersonater'), wanted: { name: 'system:node:node1' }, request: createPod,
    checks: ['node-impersonater impersonate-on:arbitrary-node:create /pods bar/foo NoOpinion', 'node-impersonater impersonate /users /system:node:node1 NoOpinion'],
    forbidden: 'pods "foo" is forbidden: User "node-impersonater" cannot impersonate-on:arbitrary-node:create resource "pods" in API group "" in the namespace "bar": deny by default',
  },
  {
    name: 'arbitrary-node: granted, the node\'s groups are system:nodes',
    requestor: person('node-impersonater'), wanted: { name: 'system:node:node1' }, request: getPod,
    checks: ['node-impersonater impersonate-on:arbitrary-node:get /pods bar/foo Allow', 'node-impersonater impersonate:arbitrary-node authentication.k8s.io/nodes /node1 Allow'],
    user: authenticated('system:node:node1', ['system:nodes']), constraint: 'impersonate:arbitrary-node',
  },
  {
    name: 'user-info: groups then extra values are checked, and an extra value refused refuses',
    requestor: person('user-impersonater', ['group-impersonater']), wanted: { name: 'system:admin', groups: ['extra-setter-scopes'], extra: { 'pandas.io/scopes': ['scope-a', 'scope-b'] } }, request: getPod,
    checks: [
      'user-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/users /system:admin Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/groups /extra-setter-scopes Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/userextras/pandas.io/scopes /scope-a NoOpinion',
      'user-impersonater impersonate /users /system:admin NoOpinion',
    ],
    forbidden: 'userextras.authentication.k8s.io "scope-a" is forbidden: User "user-impersonater" cannot impersonate:user-info resource "userextras/pandas.io/scopes" in API group "authentication.k8s.io" at the cluster scope: deny by default',
  },
  {
    name: 'user-info: four or more extra values try the wildcard first, then each value',
    requestor: person('user-impersonater', ['extra-setter-scopes']), wanted: { name: 'system:admin', extra: { 'pandas.io/scopes': manyScopes } }, request: getPod,
    checks: [
      'user-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/users /system:admin Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/userextras/* /* NoOpinion',
      ...manyScopes.map((s) => `user-impersonater impersonate:user-info authentication.k8s.io/userextras/pandas.io/scopes /${s} Allow`),
    ],
    user: authenticated('system:admin', [], { 'pandas.io/scopes': manyScopes }), constraint: 'impersonate:user-info',
  },
  {
    name: 'associated-node: a service account on the node, asked as on any node (extra keys only, node "*")',
    requestor: saOnNode('node1'), wanted: { name: 'system:node:node1' }, request: getSecret,
    checks: [
      `system:serviceaccount:default:default${anyNodeKeys} impersonate-on:associated-node:get /secrets bar/foo Allow`,
      `system:serviceaccount:default:default${anyNodeKeys} impersonate:associated-node authentication.k8s.io/nodes /* Allow`,
    ],
    user: authenticated('system:node:node1', ['system:nodes']), constraint: 'impersonate:associated-node',
  },
  {
    name: 'associated-node: another node than its own is arbitrary-node\'s to grant',
    requestor: saOnNode('node2'), wanted: { name: 'system:node:node1' }, request: getSecret,
    checks: [
      `system:serviceaccount:default:default{"${nodeNameKey}":["node2"]} impersonate-on:arbitrary-node:get /secrets bar/foo Allow`,
      `system:serviceaccount:default:default{"${nodeNameKey}":["node2"]} impersonate:arbitrary-node authentication.k8s.io/nodes /node1 NoOpinion`,
      `system:serviceaccount:default:default{"${nodeNameKey}":["node2"]} impersonate /users /system:node:node1 NoOpinion`,
    ],
    forbidden: 'nodes.authentication.k8s.io "node1" is forbidden: User "system:serviceaccount:default:default" cannot impersonate:arbitrary-node resource "nodes" in API group "authentication.k8s.io" at the cluster scope: deny by default',
  },
  {
    name: 'associated-node: only for service accounts',
    requestor: person('user-impersonater', ['associate-node-impersonater'], { [nodeNameKey]: ['node1'] }), wanted: { name: 'system:node:node1' }, request: getPod,
    checks: [
      `user-impersonater{"${nodeNameKey}":["node1"]} impersonate-on:arbitrary-node:get /pods bar/foo Allow`,
      `user-impersonater{"${nodeNameKey}":["node1"]} impersonate:arbitrary-node authentication.k8s.io/nodes /node1 NoOpinion`,
      `user-impersonater{"${nodeNameKey}":["node1"]} impersonate /users /system:node:node1 NoOpinion`,
    ],
    forbidden: 'nodes.authentication.k8s.io "node1" is forbidden: User "user-impersonater" cannot impersonate:arbitrary-node resource "nodes" in API group "authentication.k8s.io" at the cluster scope: deny by default',
  },
  {
    name: 'legacy: the impersonate verb still grants when the constrained checks refuse, with no constraint',
    requestor: person('legacy-impersonater'), wanted: { name: 'system:admin' }, request: getPod,
    checks: [
      'legacy-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'legacy-impersonater impersonate:user-info authentication.k8s.io/users /system:admin NoOpinion',
      'legacy-impersonater impersonate /users /system:admin Allow',
    ],
    user: authenticated('system:admin'), constraint: '',
  },
  {
    name: 'user-info: system:masters is never granted; its refusal is the answer when legacy refuses too',
    requestor: person('user-impersonater'), wanted: { name: 'admin-user', groups: ['system:masters'] }, request: getPod,
    checks: [
      'user-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/users /admin-user Allow',
      'user-impersonater impersonate /users /admin-user NoOpinion',
    ],
    forbidden: 'groups.authentication.k8s.io "system:masters" is forbidden: User "user-impersonater" cannot impersonate:user-info resource "groups" in API group "authentication.k8s.io" at the cluster scope: impersonating the system:masters group is not allowed',
  },
  {
    name: 'user-info: four groups are granted by the wildcard alone',
    requestor: person('many-groups-impersonater'), wanted: { name: 'bob', groups: ['group1', 'group2', 'group3', 'group4'] }, request: getPod,
    checks: [
      'many-groups-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'many-groups-impersonater impersonate:user-info authentication.k8s.io/users /bob Allow',
      'many-groups-impersonater impersonate:user-info authentication.k8s.io/groups /* Allow',
    ],
    user: authenticated('bob', ['group1', 'group2', 'group3', 'group4']), constraint: 'impersonate:user-info',
  },
  {
    name: 'user-info: four extra keys are granted by the wildcard alone',
    requestor: person('many-extras-impersonater'), wanted: { name: 'alice', extra: { 'scopes.example.com/key1': ['val1'], 'scopes.example.com/key2': ['val2'], 'scopes.example.com/key3': ['val3'], 'scopes.example.com/key4': ['val4'] } }, request: getPod,
    checks: [
      'many-extras-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'many-extras-impersonater impersonate:user-info authentication.k8s.io/users /alice Allow',
      'many-extras-impersonater impersonate:user-info authentication.k8s.io/userextras/* /* Allow',
    ],
    user: authenticated('alice', [], { 'scopes.example.com/key1': ['val1'], 'scopes.example.com/key2': ['val2'], 'scopes.example.com/key3': ['val3'], 'scopes.example.com/key4': ['val4'] }),
    constraint: 'impersonate:user-info',
  },
  {
    name: 'user-info: a refused group wildcard falls back to each group; three extra values are checked one by one',
    requestor: person('mixed-impersonater'), wanted: { name: 'frank', groups: ['dev', 'ops', 'security', 'audit'], extra: { 'tags.io/env': ['prod', 'staging', 'dev'] } }, request: getPod,
    checks: [
      'mixed-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'mixed-impersonater impersonate:user-info authentication.k8s.io/users /frank Allow',
      'mixed-impersonater impersonate:user-info authentication.k8s.io/groups /* NoOpinion',
      ...['dev', 'ops', 'security', 'audit'].map((g) => `mixed-impersonater impersonate:user-info authentication.k8s.io/groups /${g} Allow`),
      ...['prod', 'staging', 'dev'].map((v) => `mixed-impersonater impersonate:user-info authentication.k8s.io/userextras/tags.io/env /${v} Allow`),
    ],
    user: authenticated('frank', ['dev', 'ops', 'security', 'audit'], { 'tags.io/env': ['prod', 'staging', 'dev'] }), constraint: 'impersonate:user-info',
  },
  {
    name: 'user-info: the uid is checked after the name',
    requestor: { name: 'user-impersonater', uid: 'requestor-uid-123', groups: [] }, wanted: { name: 'anyone', uid: 'wanted-uid-456' }, request: getPod,
    checks: [
      'user-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/users /anyone Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/uids /wanted-uid-456 Allow',
    ],
    user: authenticated('anyone', [], undefined, 'wanted-uid-456'), constraint: 'impersonate:user-info',
  },
  {
    name: 'impersonate-on names the request\'s subresource',
    requestor: person('user-impersonater'), wanted: { name: 'anyone' }, request: request('get', 'pods/status'),
    checks: ['user-impersonater impersonate-on:user-info:get /pods/status bar/foo Allow', 'user-impersonater impersonate:user-info authentication.k8s.io/users /anyone Allow'],
    user: authenticated('anyone'), constraint: 'impersonate:user-info',
  },
  {
    name: 'impersonate-on of a non-resource request is on its path',
    requestor: person('user-impersonater'), wanted: { name: 'anyone' }, request: { verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '/healthz' },
    checks: ['user-impersonater impersonate-on:user-info:get /healthz Allow', 'user-impersonater impersonate:user-info authentication.k8s.io/users /anyone Allow'],
    user: authenticated('anyone'), constraint: 'impersonate:user-info',
  },
];

// Rows of our own, where upstream's code decides what its tests do not show.
const moreCases: Case[] = [
  {
    name: 'a refused non-resource action names the path',
    requestor: person('user-impersonater'), wanted: { name: 'anyone' }, request: { verb: 'post', group: '', resource: '', subresource: '', namespace: '', name: '', path: '/logs' },
    checks: ['user-impersonater impersonate-on:user-info:post /logs NoOpinion', 'user-impersonater impersonate /users /anyone NoOpinion'],
    forbidden: 'forbidden: User "user-impersonater" cannot impersonate-on:user-info:post path "/logs": deny by default',
  },
  {
    name: 'an empty group is refused by constrained impersonation before any group is checked',
    requestor: person('user-impersonater'), wanted: { name: 'anyone', groups: ['dev', ''] }, request: getPod,
    checks: [
      'user-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/users /anyone Allow',
      'user-impersonater impersonate /users /anyone NoOpinion',
    ],
    forbidden: 'groups.authentication.k8s.io is forbidden: User "user-impersonater" cannot impersonate:user-info resource "groups" in API group "authentication.k8s.io" at the cluster scope: impersonating the empty string group is not allowed',
  },
  {
    name: 'an extra key that is not a domain-prefixed path is refused by constrained impersonation',
    requestor: person('user-impersonater'), wanted: { name: 'anyone', extra: { scopes: ['view'] } }, request: getPod,
    checks: [
      'user-impersonater impersonate-on:user-info:get /pods bar/foo Allow',
      'user-impersonater impersonate:user-info authentication.k8s.io/users /anyone Allow',
      'user-impersonater impersonate /users /anyone NoOpinion',
    ],
    forbidden: 'userextras.authentication.k8s.io is forbidden: User "user-impersonater" cannot impersonate:user-info resource "userextras" in API group "authentication.k8s.io" at the cluster scope: impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "scopes": must be a domain-prefixed path (such as "acme.io/foo")',
  },
  {
    name: 'a service account with groups is for legacy alone: its groups are the ones asked for',
    requestor: person('legacy-impersonater'), wanted: { name: 'system:serviceaccount:ns:robot', groups: ['dev'] }, request: getPod,
    checks: ['legacy-impersonater impersonate /serviceaccounts ns/robot Allow', 'legacy-impersonater impersonate /groups /dev Allow'],
    user: authenticated('system:serviceaccount:ns:robot', ['dev']), constraint: '',
  },
  {
    name: 'legacy grants a node as a user, without the nodes group',
    requestor: person('legacy-impersonater'), wanted: { name: 'system:node:node1' }, request: getPod,
    checks: [
      'legacy-impersonater impersonate-on:arbitrary-node:get /pods bar/foo Allow',
      'legacy-impersonater impersonate:arbitrary-node authentication.k8s.io/nodes /node1 NoOpinion',
      'legacy-impersonater impersonate /users /system:node:node1 Allow',
    ],
    user: authenticated('system:node:node1'), constraint: '',
  },
  {
    name: 'a node name that is not a DNS subdomain is an ordinary user (user-info)',
    requestor: person('user-impersonater'), wanted: { name: 'system:node:Node_1' }, request: getPod,
    checks: ['user-impersonater impersonate-on:user-info:get /pods bar/foo Allow', 'user-impersonater impersonate:user-info authentication.k8s.io/users /system:node:Node_1 Allow'],
    user: authenticated('system:node:Node_1'), constraint: 'impersonate:user-info',
  },
  {
    name: 'system:anonymous is unauthenticated',
    requestor: person('user-impersonater'), wanted: { name: 'system:anonymous' }, request: getPod,
    checks: ['user-impersonater impersonate-on:user-info:get /pods bar/foo Allow', 'user-impersonater impersonate:user-info authentication.k8s.io/users /system:anonymous Allow'],
    user: person('system:anonymous', ['system:unauthenticated']), constraint: 'impersonate:user-info',
  },
  {
    name: 'without the request\'s attributes only the legacy verb is asked',
    requestor: person('legacy-impersonater'), wanted: { name: 'anyone', uid: 'u-1', groups: ['dev'] },
    checks: ['legacy-impersonater impersonate /users /anyone Allow', 'legacy-impersonater impersonate authentication.k8s.io/uids /u-1 Allow', 'legacy-impersonater impersonate /groups /dev Allow'],
    user: authenticated('anyone', ['dev'], undefined, 'u-1'), constraint: '',
  },
];

test('constrained impersonation: the checks asked, in order, and what they grant or refuse', async () => {
  for (const c of [...upstreamCases, ...moreCases]) {
    const { authorizer, checks } = recording(upstreamTestAuthorizer);
    const options: ImpersonationOptions = c.request === undefined ? {} : { request: c.request };
    const outcome = await resolveImpersonation(c.requestor, headersFor(c.wanted), authorizer, options).then((granted) => ({ granted }), (err: unknown) => ({ err }));
    assert.deepEqual(checks, c.checks, c.name);
    if (c.forbidden !== undefined) {
      assert.ok('err' in outcome && isStatusError(outcome.err), `${c.name}: refused`);
      assert.deepEqual([outcome.err.code, outcome.err.reason, outcome.err.message], [403, 'Forbidden', c.forbidden], c.name);
    } else {
      assert.ok('granted' in outcome, `${c.name}: granted, not ${'err' in outcome ? String(outcome.err) : ''}`);
      assert.deepEqual(outcome.granted, { user: c.user, constraint: c.constraint }, c.name);
    }
  }
});

test('the Forbidden Status names the resource checked as upstream\'s NewForbidden', async () => {
  const err = await resolveImpersonation(person('tester'), headersFor({ name: 'system:node:node1' }), upstreamTestAuthorizer, { request: getPod }).catch((e: unknown) => e);
  assert.ok(isStatusError(err));
  assert.deepEqual(err.details, { kind: 'nodes', group: 'authentication.k8s.io', name: 'node1' });
});

test('an authorizer that fails is named in the 403\'s reason, as upstream\'s checkAuthorization', async () => {
  const failing: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'no rule', error: 'webhook timed out' }) };
  const err = await resolveImpersonation(person('tester'), headersFor({ name: 'anyone' }), failing, { request: createPod }).catch((e: unknown) => e);
  assert.ok(isStatusError(err));
  assert.equal(err.message, 'pods "foo" is forbidden: User "tester" cannot impersonate-on:user-info:create resource "pods" in API group "" in the namespace "bar": webhook timed out: no rule');
});

/** An in-memory RBAC source with the given roles and bindings. */
function rbac(objects: KubeObject[]): RbacAuthorizer {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  return new RbacAuthorizer({
    clusterRoleBindings: (key) => of('ClusterRoleBinding').filter((b) => subjectIndexKeys(b).includes(key)),
    roleBindings: (namespace, key) => of('RoleBinding').filter((b) => b.metadata.namespace === namespace && subjectIndexKeys(b).includes(key)),
    role: (namespace, name) => of('Role').find((r) => r.metadata.namespace === namespace && r.metadata.name === name),
    clusterRole: (name) => of('ClusterRole').find((r) => r.metadata.name === name),
  });
}

/** A role (namespaced when `namespace` is given) with its rules, and its binding to one user. */
function grant(user: string, name: string, rules: unknown[], namespace?: string): KubeObject[] {
  const kind = namespace === undefined ? 'ClusterRole' : 'Role';
  const meta = namespace === undefined ? { name } : { name, namespace };
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: meta, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: `${kind}Binding`, metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  ] as KubeObject[];
}

const policy = rbac([
  // deputy may be jane, and while being anyone in user-info mode only list pods in default.
  ...grant('deputy', 'impersonate-jane', [{ apiGroups: ['authentication.k8s.io'], resources: ['users'], resourceNames: ['jane'], verbs: ['impersonate:user-info'] }]),
  ...grant('deputy', 'list-pods-as-others', [{ apiGroups: [''], resources: ['pods'], verbs: ['impersonate-on:user-info:list'] }], 'default'),
  // a service account, for configmaps in prod only.
  ...grant('sa-deputy', 'be-app-sa', [{ apiGroups: ['authentication.k8s.io'], resources: ['serviceaccounts'], resourceNames: ['app-sa'], verbs: ['impersonate:serviceaccount'] }], 'default'),
  ...grant('sa-deputy', 'read-configmaps-as-sa', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['impersonate-on:serviceaccount:get'] }], 'prod'),
  // the legacy grant of old.
  ...grant('old-style', 'impersonator', [{ apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] }]),
]);

test('through RBAC: constrained grants allow exactly their actions; the legacy grant still allows everything', async () => {
  const cases: { name: string; requestor: string; as: string; request: AuthorizationAttributes; user?: UserInfo; constraint?: string; forbidden?: string }[] = [
    {
      name: 'deputy lists pods in default as jane', requestor: 'deputy', as: 'jane', request: request('list', 'pods', 'default', ''),
      user: authenticated('jane'), constraint: 'impersonate:user-info',
    },
    {
      name: 'deputy may not delete a pod as jane', requestor: 'deputy', as: 'jane', request: request('delete', 'pods', 'default', 'web'),
      forbidden: 'pods "web" is forbidden: User "deputy" cannot impersonate-on:user-info:delete resource "pods" in API group "" in the namespace "default"',
    },
    {
      name: 'deputy may not list pods elsewhere as jane', requestor: 'deputy', as: 'jane', request: request('list', 'pods', 'other', ''),
      forbidden: 'pods is forbidden: User "deputy" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "other"',
    },
    {
      name: 'deputy may not be bob, even to list pods', requestor: 'deputy', as: 'bob', request: request('list', 'pods', 'default', ''),
      forbidden: 'users.authentication.k8s.io "bob" is forbidden: User "deputy" cannot impersonate:user-info resource "users" in API group "authentication.k8s.io" at the cluster scope',
    },
    {
      name: 'sa-deputy reads a configmap in prod as default/app-sa', requestor: 'sa-deputy', as: 'system:serviceaccount:default:app-sa', request: request('get', 'configmaps', 'prod', 'settings'),
      user: authenticated('system:serviceaccount:default:app-sa', ['system:serviceaccounts', 'system:serviceaccounts:default']), constraint: 'impersonate:serviceaccount',
    },
    {
      name: 'sa-deputy may not be another account', requestor: 'sa-deputy', as: 'system:serviceaccount:default:other', request: request('get', 'configmaps', 'prod', 'settings'),
      forbidden: 'serviceaccounts.authentication.k8s.io "other" is forbidden: User "sa-deputy" cannot impersonate:serviceaccount resource "serviceaccounts" in API group "authentication.k8s.io" in the namespace "default"',
    },
    {
      name: 'old-style deletes a pod as jane with the legacy verb', requestor: 'old-style', as: 'jane', request: request('delete', 'pods', 'default', 'web'),
      user: authenticated('jane'), constraint: '',
    },
  ];
  for (const c of cases) {
    const outcome = await resolveImpersonation(person(c.requestor), ['Impersonate-User', c.as], policy, { request: c.request }).then((granted) => ({ granted }), (err: unknown) => ({ err }));
    if (c.forbidden !== undefined) {
      assert.ok('err' in outcome && isStatusError(outcome.err), `${c.name}: refused`);
      assert.deepEqual([outcome.err.code, outcome.err.message], [403, c.forbidden], c.name);
    } else {
      assert.ok('granted' in outcome, `${c.name}: granted, not ${'err' in outcome ? String(outcome.err) : ''}`);
      assert.deepEqual(outcome.granted, { user: c.user, constraint: c.constraint }, c.name);
    }
  }
});

const bob = { name: 'bob', uid: '', groups: ['system:authenticated'] };

test('uid, groups or extras without a user name are a 400 naming the user asked for, as Go\'s %#v', async () => {
  const cases: { name: string; headers: string[]; message: string }[] = [
    {
      name: 'a group', headers: ['Impersonate-Group', 'dev'],
      message: 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"dev"}, Extra:map[string][]string(nil)} without impersonating a user name',
    },
    {
      name: 'a uid', headers: ['Impersonate-Uid', 'u-1'],
      message: 'requested &user.DefaultInfo{Name:"", UID:"u-1", Groups:[]string(nil), Extra:map[string][]string(nil)} without impersonating a user name',
    },
    {
      name: 'an empty user name, groups and extras (keys unescaped, lower-cased and sorted)',
      headers: ['Impersonate-User', '', 'Impersonate-Group', 'a', 'Impersonate-Group', 'b"c', 'Impersonate-Extra-Scopes', 'x', 'Impersonate-Extra-Example.com%2Freason', 'y', 'Impersonate-Extra-scopes', 'z'],
      message: 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"a", "b\\"c"}, Extra:map[string][]string{"example.com/reason":[]string{"y"}, "scopes":[]string{"x", "z"}}} without impersonating a user name',
    },
  ];
  for (const c of cases) {
    const asked: string[] = [];
    const authorizer: Authorizer = { authorize: (_user, a) => (asked.push(a.resource), { decision: 'Allow' }) };
    const err = await impersonate(bob, c.headers, authorizer, { request: getPod }).then(() => undefined, (e: unknown) => e);
    assert.ok(isStatusError(err), c.name);
    assert.equal(err.code, 400, c.name);
    assert.equal(err.reason, 'BadRequest', c.name);
    assert.equal(err.message, c.message, c.name);
    assert.deepEqual(asked, [], `${c.name}: the authorizer is not asked`);
  }
});

test('the ConstrainedImpersonation gate off: the older filter\'s checks, order and 400', async () => {
  const gateOff = { request: getPod, constrainedImpersonation: false };
  const { authorizer, checks } = recording(upstreamTestAuthorizer);
  const granted = await resolveImpersonation(person('legacy-impersonater'), headersFor({ name: 'anyone', uid: 'u-1', groups: ['dev'], extra: { 'example.com/scopes': ['view'] } }), authorizer, gateOff);
  assert.deepEqual(checks, [
    'legacy-impersonater impersonate /users /anyone Allow',
    'legacy-impersonater impersonate /groups /dev Allow',
    'legacy-impersonater impersonate authentication.k8s.io/userextras/example.com/scopes /view Allow',
    'legacy-impersonater impersonate authentication.k8s.io/uids /u-1 Allow',
  ], 'the uid last, no constrained verb');
  assert.deepEqual(granted, { user: authenticated('anyone', ['dev'], { 'example.com/scopes': ['view'] }, 'u-1'), constraint: '' });
  // A grant of impersonate:user-info alone grants nothing then.
  await assert.rejects(resolveImpersonation(person('user-impersonater'), ['Impersonate-User', 'anyone'], upstreamTestAuthorizer, gateOff), {
    code: 403, message: 'users "anyone" is forbidden: User "user-impersonater" cannot impersonate resource "users" in API group "" at the cluster scope: deny by default',
  });
  await assert.rejects(resolveImpersonation(bob, ['Impersonate-Group', 'dev', 'Impersonate-Extra-scopes', 'x', 'Impersonate-Uid', 'u-1'], upstreamTestAuthorizer, gateOff), {
    code: 400, message: 'requested [{Group  dev    } {UserExtra  x  authentication.k8s.io/v1  scopes} {UID  u-1  authentication.k8s.io/v1  }] without impersonating a user',
  });
});
