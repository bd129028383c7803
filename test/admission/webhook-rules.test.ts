import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { orderedWebhooks, ruleMatches, shouldCall, webhooksOf, type WebhookRule } from '../../src/admission/webhook-rules.ts';
import type { KubeObject } from '../../src/api/index.ts';

function attrs(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod',
    namespace: 'ns', name: 'p', namespaced: true, dryRun: false, object: undefined, oldObject: undefined,
    ...overrides,
  };
}

function rule(overrides: Partial<WebhookRule> = {}): WebhookRule {
  return { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*', ...overrides };
}

describe('rules (rules.Matcher)', () => {
  const cases: [string, Partial<WebhookRule>, Partial<AdmissionAttributes>, boolean][] = [
    ['everything matches a create', {}, {}, true],
    ['the operation must be listed', { operations: ['UPDATE', 'DELETE'] }, {}, false],
    ['a listed operation matches', { operations: ['UPDATE', 'CREATE'] }, {}, true],
    ['"" is the core group', { apiGroups: [''] }, {}, true],
    ['another group does not match', { apiGroups: ['apps'] }, {}, false],
    ['the version must be listed', { apiVersions: ['v2'] }, {}, false],
    ['"*" does not match a subresource', {}, { subresource: 'status' }, false],
    ['"resource/sub" matches that subresource', { resources: ['pods/status'] }, { subresource: 'status' }, true],
    ['"resource/sub" does not match the resource', { resources: ['pods/status'] }, {}, false],
    ['"resource/*" matches every subresource of it', { resources: ['pods/*'] }, { subresource: 'eviction' }, true],
    ['"resource/*" matches the resource too', { resources: ['pods/*'] }, {}, true],
    ['"*/sub" matches that subresource of any resource', { resources: ['*/scale'] }, { resource: 'deployments', group: 'apps', subresource: 'scale' }, true],
    ['"*/*" matches everything', { resources: ['*/*'] }, { subresource: 'status' }, true],
    ['Namespaced scope matches namespaced objects', { scope: 'Namespaced' }, {}, true],
    ['Namespaced scope does not match cluster objects', { scope: 'Namespaced' }, { resource: 'nodes', namespace: '', namespaced: false }, false],
    ['Cluster scope matches cluster objects', { scope: 'Cluster' }, { resource: 'nodes', namespace: '', namespaced: false }, true],
    ['Cluster scope matches namespaces themselves', { scope: 'Cluster' }, { resource: 'namespaces', namespace: '', name: 'x', namespaced: false }, true],
    ['Namespaced scope does not match namespaces themselves', { scope: 'Namespaced' }, { resource: 'namespaces', namespace: '', name: 'x', namespaced: false }, false],
    ['Cluster scope does not match namespaced objects', { scope: 'Cluster' }, {}, false],
  ];
  for (const [name, r, a, expected] of cases) {
    test(name, () => assert.equal(ruleMatches(rule(r), attrs(a)), expected));
  }
});

function config(name: string, hooks: Record<string, unknown>[]): KubeObject {
  return { metadata: { name }, webhooks: hooks } as KubeObject;
}

describe('selectors (namespaceSelector, objectSelector)', () => {
  const hook = (extra: Record<string, unknown>) => webhooksOf(config('c', [{
    name: 'h.example.com', rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], ...extra,
  }]), 'validating')[0]!;
  const labels: Record<string, Record<string, string>> = { ns: { env: 'prod' } };
  const ctx = { namespaceLabels: async (name: string) => labels[name] };
  const pod = (l: Record<string, string>) => ({ metadata: { name: 'p', labels: l } }) as KubeObject;

  const cases: [string, Record<string, unknown>, Partial<AdmissionAttributes>, boolean | RegExp][] = [
    ['no selectors: called', {}, {}, true],
    ['namespace labels match', { namespaceSelector: { matchLabels: { env: 'prod' } } }, {}, true],
    ['namespace labels do not match', { namespaceSelector: { matchLabels: { env: 'dev' } } }, {}, false],
    ['cluster-scoped objects ignore the namespaceSelector', { namespaceSelector: { matchLabels: { env: 'dev' } } }, { resource: 'nodes', namespace: '' }, true],
    ['a namespace is matched on its own labels', { namespaceSelector: { matchLabels: { team: 'a' } } }, { resource: 'namespaces', namespace: '', name: 'new', object: pod({ team: 'a' }) }, true],
    ['a missing namespace is 404 when the rules match', { namespaceSelector: { matchLabels: { env: 'prod' } } }, { namespace: 'gone' }, /namespaces "gone" not found/],
    ['the new object\'s labels match', { objectSelector: { matchLabels: { app: 'x' } } }, { object: pod({ app: 'x' }) }, true],
    ['the old object\'s labels match too', { objectSelector: { matchLabels: { app: 'x' } } }, { operation: 'DELETE', oldObject: pod({ app: 'x' }) }, true],
    ['neither matches', { objectSelector: { matchLabels: { app: 'x' } } }, { object: pod({ app: 'y' }) }, false],
    ['matchExpressions', { objectSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['y'] }] } }, { object: pod({ app: 'z' }) }, true],
  ];
  for (const [name, extra, a, expected] of cases) {
    test(name, async () => {
      if (expected instanceof RegExp) await assert.rejects(shouldCall(hook(extra), attrs(a), ctx), expected);
      else assert.equal((await shouldCall(hook(extra), attrs(a), ctx)) !== false, expected);
    });
  }
});

describe('matchPolicy (Equivalent, Exact)', () => {
  // autoscaling/v1 and v2 HorizontalPodAutoscalers are one stored resource.
  const hpa = { group: 'autoscaling', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' };
  const equivalents = () => [{ ...hpa, version: 'v2' }, { ...hpa, version: 'v1' }];
  const ctx = { namespaceLabels: async () => ({}), equivalents: { equivalents, convert: async (o: KubeObject) => o } };
  const hook = (matchPolicy: string | undefined, versions: string[]) => webhooksOf(config('c', [{
    name: 'h.example.com', rules: [{ operations: ['*'], apiGroups: ['autoscaling'], apiVersions: versions, resources: ['horizontalpodautoscalers'] }],
    ...(matchPolicy === undefined ? {} : { matchPolicy }),
  }]), 'validating')[0]!;
  const v1 = attrs({ ...hpa, version: 'v1' });

  test('the request\'s own resource matches directly', async () => {
    assert.deepEqual(await shouldCall(hook('Equivalent', ['v1']), v1, ctx), {});
  });
  test('Equivalent (the default) calls a webhook for another version, as that version', async () => {
    assert.deepEqual(await shouldCall(hook(undefined, ['v2']), v1, ctx), { equivalent: { ...hpa, version: 'v2' } });
  });
  test('Exact does not', async () => {
    assert.equal(await shouldCall(hook('Exact', ['v2']), v1, ctx), false);
  });
  test('nothing stored with it: no call', async () => {
    assert.equal(await shouldCall(hook('Equivalent', ['v3']), v1, ctx), false);
  });
});

test('configurations are called in name order, their webhooks in order', () => {
  const hooks = orderedWebhooks([
    config('b', [{ name: 'b1.x.y' }, { name: 'b2.x.y' }]),
    config('a', [{ name: 'a1.x.y' }]),
  ], 'mutating');
  assert.deepEqual(hooks.map((h) => h.name), ['a1.x.y', 'b1.x.y', 'b2.x.y']);
});
