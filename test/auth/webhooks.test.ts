// The webhook authorizer and the webhook token authenticator with their calls in memory:
// decisions, what is and is not cached, failure policies, audiences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationFailure } from '../../src/auth/authenticate.ts';
import { tokenWebhookAuthenticator } from '../../src/auth/token-webhook.ts';
import { webhookAuthorizer } from '../../src/auth/webhook-authorizer.ts';

const bob = { name: 'bob', uid: '', groups: ['dev'] };
const getPods = { verb: 'get', group: '', resource: 'pods', subresource: '', namespace: 'ns', name: 'p', path: '', version: 'v1' };

test('the webhook authorizer: its answers decide; allowed and other answers cached for their TTLs, errors never; the failure policy', async () => {
  let clock = 0;
  let answer: unknown = { status: { allowed: true } };
  const calls: unknown[] = [];
  const authorizer = webhookAuthorizer({
    name: 'w', version: 'v1', authorizedTtlMs: 1000, unauthorizedTtlMs: 100, failurePolicy: 'NoOpinion', now: () => clock,
    call: async (review) => {
      calls.push(review);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  assert.deepEqual(await authorizer.authorize(bob, getPods), { decision: 'Allow', reason: '' });
  assert.deepEqual(calls[0], {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { namespace: 'ns', verb: 'get', version: 'v1', resource: 'pods', name: 'p' }, user: 'bob', groups: ['dev'] }, status: { allowed: false },
  });
  answer = { status: { allowed: false, denied: true, reason: 'no' } };
  clock = 999;
  assert.equal((await authorizer.authorize(bob, getPods)).decision, 'Allow');
  assert.equal(calls.length, 1);
  clock = 1000;
  assert.deepEqual(await authorizer.authorize(bob, getPods), { decision: 'Deny', reason: 'no' });
  assert.equal(calls.length, 2);
  answer = new Error('Post "https://w/": connection refused');
  clock = 1100;
  assert.deepEqual(await authorizer.authorize(bob, getPods), { decision: 'NoOpinion', reason: '', error: 'Post "https://w/": connection refused' });
  clock = 1101;
  await authorizer.authorize(bob, getPods);
  assert.equal(calls.length, 4, 'errors are not cached');
  answer = { status: { allowed: true, denied: true, reason: 'both' } };
  const nonResource = { verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '/healthz' };
  assert.deepEqual(await authorizer.authorize(bob, nonResource), { decision: 'Deny', reason: 'both', error: 'webhook subject access review returned both allow and deny response' });
  assert.deepEqual((calls.at(-1) as { spec: unknown }).spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob', groups: ['dev'] });
});

test('match conditions: false skips the webhook; one that fails decides by the failure policy; v1beta1 names the groups `group`', async () => {
  const calls: { spec: Record<string, unknown> }[] = [];
  const authorizer = webhookAuthorizer({
    name: 'w', version: 'v1beta1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, failurePolicy: 'Deny',
    call: async (review) => {
      calls.push(review as { spec: Record<string, unknown> });
      return { status: { allowed: true } };
    },
    matches: (spec) => {
      if ((spec.resourceAttributes as { namespace?: string } | undefined)?.namespace === 'broken') throw new Error('cel evaluation error');
      return spec.user !== 'skipped';
    },
  });
  assert.deepEqual(await authorizer.authorize({ ...bob, name: 'skipped' }, getPods), { decision: 'NoOpinion', reason: '' });
  assert.equal(calls.length, 0);
  assert.deepEqual(await authorizer.authorize(bob, { ...getPods, namespace: 'broken' }), { decision: 'Deny', reason: '', error: 'cel evaluation error' });
  assert.equal((await authorizer.authorize(bob, getPods)).decision, 'Allow');
  assert.deepEqual(calls[0]!.spec.group, ['dev']);
  assert.equal(calls[0]!.spec.groups, undefined);
  // TTL 0: not cached.
  await authorizer.authorize(bob, getPods);
  assert.equal(calls.length, 2);
  assert.deepEqual(await authorizer.rulesFor(bob, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' });
});

test('the webhook token authenticator: the user named, audiences intersected, errors refused and not cached', async () => {
  let status: unknown = { authenticated: true, user: { username: 'alice', groups: ['g'] } };
  const reviews: { spec: unknown }[] = [];
  const authenticate = tokenWebhookAuthenticator({
    version: 'v1beta1', implicitAudiences: ['api'], cacheTtlMs: 60_000,
    call: async (review) => {
      reviews.push(review as { spec: unknown });
      if (status instanceof Error) throw status;
      return { status };
    },
  });
  const outcome = async (token: string, audiences?: string[]) => {
    try {
      return await authenticate(token, audiences);
    } catch (err) {
      assert.ok(err instanceof AuthenticationFailure);
      return (err as Error).message;
    }
  };
  assert.deepEqual(await outcome('t1'), { user: { name: 'alice', uid: '', groups: ['g'] }, audiences: ['api'] });
  assert.deepEqual(reviews[0]!.spec, { token: 't1', audiences: ['api'] });
  // Asked for another audience, which the webhook does not grant (it names none: the API's own count).
  assert.equal(await outcome('t1', ['other']), undefined);
  status = { authenticated: true, user: { username: 'alice' }, audiences: ['other'] };
  assert.deepEqual(await outcome('t2', ['other', 'api']), { user: { name: 'alice', uid: '', groups: [] }, audiences: ['other'] });
  status = new Error('Post "https://hook/": connection refused');
  assert.equal(await outcome('t3'), 'Post "https://hook/": connection refused');
  status = { authenticated: false, error: 'expired' };
  assert.equal(await outcome('t3'), 'expired');
  assert.equal(reviews.filter((r) => (r.spec as { token: string }).token === 't3').length, 2, 'an error is not cached');
  // Cached: the first answer for t1 stands.
  const before = reviews.length;
  assert.equal(((await outcome('t1')) as { user: { name: string } }).user.name, 'alice');
  assert.equal(reviews.length, before);
});
