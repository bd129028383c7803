// Access reviews (registry/access-review.ts) against AlwaysAllow, AlwaysDeny, a union and
// fake authorizers: validation with upstream's messages, the attributes asked about, the
// status, and the rules review.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import { alwaysAllow, alwaysDeny, unionAuthorizer, type Authorizer, type AuthorizationAttributes, type RuleResolver, type UserInfo } from '../../src/auth/index.ts';
import { review, type ReviewResource } from '../../src/registry/access-review.ts';

const alice: UserInfo = { name: 'alice', uid: 'a1', groups: ['dev', 'system:authenticated'] };

/** Records what it was asked, and answers `decision`. */
function recording(decision: 'Allow' | 'Deny' | 'NoOpinion', reason = ''): Authorizer & { asked: { user: UserInfo; attributes: AuthorizationAttributes }[] } {
  const asked: { user: UserInfo; attributes: AuthorizationAttributes }[] = [];
  return { asked, authorize: (user, attributes) => (asked.push({ user, attributes }), { decision, reason }) };
}

const noOpinion: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'no RBAC policy matched' }) };

async function answer(resource: ReviewResource, body: object, authorizer: Authorizer, namespace = '', requester: UserInfo | undefined = alice): Promise<KubeObject | { code: number; message: string }> {
  try {
    return await review(resource, structuredClone({ metadata: {}, ...body }) as KubeObject, { namespace, requester, authorizer });
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { code: err.code, message: err.message };
  }
}

const podsInDev = { verb: 'get', resource: 'pods', namespace: 'dev' };

test('the status of an access review is the authorizer\'s decision, as upstream serializes it', async () => {
  const cases: { name: string; authorizer: Authorizer; expected: object }[] = [
    { name: 'AlwaysAllow allows', authorizer: alwaysAllow, expected: { allowed: true } },
    { name: 'AlwaysDeny has no opinion, with its reason', authorizer: alwaysDeny, expected: { allowed: false, reason: 'Everything is forbidden.' } },
    { name: 'no opinion is not allowed, and not denied', authorizer: noOpinion, expected: { allowed: false, reason: 'no RBAC policy matched' } },
    { name: 'a union of no opinion and AlwaysAllow allows', authorizer: unionAuthorizer([noOpinion, alwaysAllow]), expected: { allowed: true } },
    { name: 'a union where no mode has an opinion joins the reasons', authorizer: unionAuthorizer([noOpinion, recording('NoOpinion', 'webhook says nothing')]), expected: { allowed: false, reason: 'no RBAC policy matched\nwebhook says nothing' } },
    { name: 'an allow with a reason keeps it', authorizer: recording('Allow', 'RBAC: allowed by RoleBinding "x/dev"'), expected: { allowed: true, reason: 'RBAC: allowed by RoleBinding "x/dev"' } },
  ];
  for (const c of cases) {
    const got = await answer('subjectaccessreviews', { spec: { user: 'bob', resourceAttributes: podsInDev } }, c.authorizer);
    assert.deepEqual((got as KubeObject).status, c.expected, c.name);
  }
});

test('an access review answers with the review it was given, and its status', async () => {
  const got = await answer('subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob', resourceAttributes: podsInDev } }, alwaysAllow);
  assert.deepEqual(got, {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {},
    spec: { user: 'bob', resourceAttributes: podsInDev }, status: { allowed: true },
  });
});

test('an access review asks the authorizer about the user and the attributes of its spec', async () => {
  const cases: { name: string; resource: ReviewResource; namespace?: string; spec: object; user: UserInfo; attributes: AuthorizationAttributes }[] = [
    {
      name: 'a subject access review: the spec\'s user, groups, uid and extra, no group added',
      resource: 'subjectaccessreviews',
      spec: { user: 'bob', groups: ['g1'], uid: 'u9', extra: { scopes: ['a', 'b'] }, resourceAttributes: { verb: 'list', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', namespace: 'ns1', name: 'web' } },
      user: { name: 'bob', uid: 'u9', groups: ['g1'], extra: { scopes: ['a', 'b'] } },
      attributes: { verb: 'list', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns1', name: 'web', path: '', version: 'v1' },
    },
    {
      name: 'groups alone',
      resource: 'subjectaccessreviews',
      spec: { groups: ['system:masters'], nonResourceAttributes: { verb: 'get', path: '/healthz' } },
      user: { name: '', uid: '', groups: ['system:masters'] },
      attributes: { verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '/healthz' },
    },
    {
      name: 'a self review: the requesting user, whatever the spec says',
      resource: 'selfsubjectaccessreviews',
      spec: { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'dev' } },
      user: alice,
      attributes: { verb: 'create', group: '', resource: 'pods', subresource: '', namespace: 'dev', name: '', path: '' },
    },
    {
      name: 'a local review in its namespace',
      resource: 'localsubjectaccessreviews',
      namespace: 'dev',
      spec: { user: 'bob', resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'dev', name: 's' } },
      user: { name: 'bob', uid: '', groups: [] },
      attributes: { verb: 'delete', group: '', resource: 'secrets', subresource: '', namespace: 'dev', name: 's', path: '' },
    },
  ];
  for (const c of cases) {
    const authorizer = recording('Allow');
    const got = await answer(c.resource, { spec: c.spec }, authorizer, c.namespace ?? '');
    assert.deepEqual((got as KubeObject).status, { allowed: true }, c.name);
    assert.deepEqual(authorizer.asked, [{ user: c.user, attributes: c.attributes }], c.name);
  }
});

test('access reviews are validated as upstream\'s pkg/apis/authorization/validation', async () => {
  const nra = { verb: 'get', path: '/x' };
  const cases: { name: string; resource: ReviewResource; namespace?: string; body: object; code: number; message: string }[] = [
    {
      name: 'no attributes, no user', resource: 'subjectaccessreviews', body: { spec: {} }, code: 422,
      message: 'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    },
    {
      name: 'both kinds of attributes', resource: 'selfsubjectaccessreviews', body: { spec: { resourceAttributes: podsInDev, nonResourceAttributes: nra } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"Path":"/x","Verb":"get"}: cannot be specified in combination with resourceAttributes',
    },
    {
      name: 'a self review needs no user', resource: 'selfsubjectaccessreviews', body: { spec: {} }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    },
    {
      name: 'metadata must be empty', resource: 'subjectaccessreviews', body: { metadata: { name: 'x' }, spec: { user: 'bob', resourceAttributes: podsInDev } }, code: 422,
      message: 'SubjectAccessReview.authorization.k8s.io "" is invalid: metadata: Invalid value: {"name":"x","creationTimestamp":null}: must be empty',
    },
    {
      name: 'a local review\'s metadata holds its namespace and nothing else', resource: 'localsubjectaccessreviews', namespace: 'dev',
      body: { metadata: { labels: { b: '2', a: '1' }, namespace: 'dev' }, spec: { user: 'bob', resourceAttributes: podsInDev } }, code: 422,
      message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: metadata: Invalid value: {"namespace":"dev","creationTimestamp":null,"labels":{"a":"1","b":"2"}}: must be empty except for namespace',
    },
    {
      name: 'a local review asks about its own namespace', resource: 'localsubjectaccessreviews', namespace: 'other', body: { spec: { user: 'bob', resourceAttributes: podsInDev } }, code: 422,
      message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "dev": must match metadata.namespace',
    },
    {
      name: 'a local review has no non-resource attributes', resource: 'localsubjectaccessreviews', namespace: 'dev', body: { spec: { user: 'bob', nonResourceAttributes: nra } }, code: 422,
      message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: {"Path":"/x","Verb":"get"}: disallowed on this kind of request',
    },
    {
      name: 'a local review whose metadata names another namespace', resource: 'localsubjectaccessreviews', namespace: 'dev', body: { metadata: { namespace: 'other' }, spec: { user: 'bob', resourceAttributes: podsInDev } }, code: 400,
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    },
    {
      name: 'a selector with both a raw selector and requirements', resource: 'selfsubjectaccessreviews',
      body: { spec: { resourceAttributes: { ...podsInDev, verb: 'list', labelSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } } } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements',
    },
    {
      name: 'a selector with neither', resource: 'selfsubjectaccessreviews', body: { spec: { resourceAttributes: { ...podsInDev, fieldSelector: {} } } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
    },
    {
      name: 'In without values', resource: 'selfsubjectaccessreviews', body: { spec: { resourceAttributes: { ...podsInDev, labelSelector: { requirements: [{ key: 'a', operator: 'In' }] } } } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is \'In\' or \'NotIn\'',
    },
    {
      // metav1validation.ValidateLabelSelectorRequirement: the key is a label name, each value a label value.
      name: 'a label requirement with an empty key and a bad value', resource: 'selfsubjectaccessreviews',
      body: { spec: { resourceAttributes: { ...podsInDev, verb: 'list', labelSelector: { requirements: [{ key: '', operator: 'In', values: ['ok', 'not ok'] }] } } } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "": name part must be non-empty, '
        + 'spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\'), '
        + 'spec.resourceAttributes.labelSelector.requirements[0].values[1]: Invalid value: "not ok": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')]',
    },
    {
      name: 'a label requirement whose key is not a label name, after its operator\'s values', resource: 'selfsubjectaccessreviews',
      body: { spec: { resourceAttributes: { ...podsInDev, verb: 'list', labelSelector: { requirements: [{ key: 'a/b/c', operator: 'Exists', values: ['x'] }] } } } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is \'Exists\' or \'DoesNotExist\', '
        + 'spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\') with an optional DNS subdomain prefix and \'/\' (e.g. \'example.com/MyName\')]',
    },
    {
      // metav1validation.ValidateFieldSelectorRequirement: only that a key is there, before the values.
      name: 'a field requirement with an empty key and no values', resource: 'selfsubjectaccessreviews',
      body: { spec: { resourceAttributes: { ...podsInDev, verb: 'list', fieldSelector: { requirements: [{ key: '', operator: 'NotIn', values: ['not ok'] }, { key: 'spec.nodeName', operator: 'In' }] } } } }, code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified, '
        + 'spec.resourceAttributes.fieldSelector.requirements[1].values: Required value: must be specified when `operator` is \'In\' or \'NotIn\']',
    },
    {
      name: 'a field of the wrong type', resource: 'subjectaccessreviews', body: { spec: { user: 5, resourceAttributes: podsInDev } }, code: 400,
      message: 'SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal number into Go struct field spec.user of type string',
    },
    {
      name: 'another kind', resource: 'subjectaccessreviews', body: { kind: 'SelfSubjectAccessReview', spec: { user: 'bob', resourceAttributes: podsInDev } }, code: 400,
      message: 'the kind in the data (SelfSubjectAccessReview) does not match the expected kind (SubjectAccessReview)',
    },
    { name: 'a rules review needs a namespace', resource: 'selfsubjectrulesreviews', body: { spec: {} }, code: 400, message: 'no namespace on request' },
  ];
  for (const c of cases) {
    const authorizer = recording('Allow');
    const got = await answer(c.resource, c.body, authorizer, c.namespace ?? '');
    assert.deepEqual(got, { code: c.code, message: c.message }, c.name);
    assert.deepEqual(authorizer.asked, [], `${c.name}: the authorizer is not asked`);
  }
});

test('selectors of an access review are accepted; one that does not parse is ignored and said so', async () => {
  const cases: { name: string; attrs: object; expected: object }[] = [
    { name: 'raw selectors that parse', attrs: { fieldSelector: { rawSelector: 'spec.nodeName=n1' }, labelSelector: { rawSelector: 'app in (web)' } }, expected: { allowed: true } },
    { name: 'requirements, with an operator this server does not know', attrs: { labelSelector: { requirements: [{ key: 'a', operator: 'Matches', values: ['x'] }] } }, expected: { allowed: true } },
    { name: 'a field selector that does not parse', attrs: { fieldSelector: { rawSelector: 'a==b==c' } }, expected: { allowed: true, evaluationError: 'spec.resourceAttributes.fieldSelector ignored due to parse error' } },
    {
      name: 'both do not parse', attrs: { fieldSelector: { rawSelector: 'a==b==c' }, labelSelector: { rawSelector: 'a in (' } },
      expected: { allowed: true, evaluationError: 'spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error' },
    },
  ];
  for (const c of cases) {
    const got = await answer('selfsubjectaccessreviews', { spec: { resourceAttributes: { ...podsInDev, verb: 'list', ...c.attrs } } }, alwaysAllow);
    assert.deepEqual((got as KubeObject).status, c.expected, c.name);
  }
});

const fakeResolver: Authorizer & RuleResolver & { asked: [string, string][] } = {
  asked: [],
  authorize: () => ({ decision: 'NoOpinion' }),
  async rulesFor(user, namespace) {
    this.asked.push([user.name, namespace]);
    return {
      resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'role "missing" not found',
    };
  },
};

test('a rules review lists the requesting user\'s rules in spec.namespace, as the authorizer resolves them', async () => {
  const everything = {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  };
  const fakeRules = {
    resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
  };
  const cases: { name: string; authorizer: Authorizer; expected: object }[] = [
    { name: 'AlwaysAllow: everything', authorizer: alwaysAllow, expected: { ...everything, incomplete: false } },
    { name: 'AlwaysDeny: nothing, complete', authorizer: alwaysDeny, expected: { resourceRules: [], nonResourceRules: [], incomplete: false } },
    { name: 'a mode without rules: nothing, incomplete', authorizer: noOpinion, expected: { resourceRules: [], nonResourceRules: [], incomplete: true } },
    { name: 'a resolver\'s rules (empty lists left out) and its error', authorizer: fakeResolver, expected: { ...fakeRules, incomplete: false, evaluationError: 'role "missing" not found' } },
    {
      name: 'a union: every mode\'s rules, incomplete when one mode has none',
      authorizer: unionAuthorizer([noOpinion, fakeResolver, alwaysAllow]),
      expected: {
        resourceRules: [...fakeRules.resourceRules, ...everything.resourceRules],
        nonResourceRules: [...fakeRules.nonResourceRules, ...everything.nonResourceRules],
        incomplete: true, evaluationError: 'role "missing" not found',
      },
    },
    { name: 'a union of two resolvers with errors', authorizer: unionAuthorizer([fakeResolver, fakeResolver]), expected: { resourceRules: [...fakeRules.resourceRules, ...fakeRules.resourceRules], nonResourceRules: [...fakeRules.nonResourceRules, ...fakeRules.nonResourceRules], incomplete: false, evaluationError: '[role "missing" not found, role "missing" not found]' } },
  ];
  for (const c of cases) {
    const got = await answer('selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'dev' } }, c.authorizer);
    assert.deepEqual(got, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: {}, status: c.expected }, c.name);
  }
  assert.ok(fakeResolver.asked.every(([user, namespace]) => user === 'alice' && namespace === 'dev'));
});
