// Admission webhooks against a real HTTPS webhook server on loopback: rules, selectors,
// failurePolicy, timeouts, JSON Patch mutation, warnings and sideEffects on dry run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { allow, deny, patch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

let server: TestServer;
let hooks: WebhookServer;

before(async () => {
  // The certificate also names the Service the service-reference test routes to it.
  [server, hooks] = await Promise.all([startServer(), startWebhookServer({ hosts: ['hook.default.svc'] })]);
});
after(async () => {
  await server?.stop();
  await hooks?.close();
});

const validating = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const mutating = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

let seq = 0;
function unique(prefix: string): string {
  seq += 1;
  return `${prefix}-${seq}`;
}

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  const name = unique('wh');
  const res = await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
  assert.equal(res.status, 201, res.text);
  return name;
}

function pod(name: string, labels: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
}

interface HookOptions {
  path: string;
  rules?: unknown[];
  /** Default: only the test's namespace, so that tests do not see each other's requests. */
  namespaceSelector?: unknown;
  objectSelector?: unknown;
  failurePolicy?: string;
  sideEffects?: string;
  timeoutSeconds?: number;
  matchPolicy?: string;
  clientConfig?: unknown;
  reinvocationPolicy?: string;
  matchConditions?: { name: string; expression: string }[];
}

const podCreate = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];

function webhook(name: string, ns: string | undefined, o: HookOptions): Record<string, unknown> {
  const hook: Record<string, unknown> = {
    name,
    clientConfig: o.clientConfig ?? { url: `${hooks.url}${o.path}`, caBundle: hooks.caBundle },
    rules: o.rules ?? podCreate,
    sideEffects: o.sideEffects ?? 'None',
    admissionReviewVersions: ['v1'],
  };
  if (o.namespaceSelector !== undefined) hook.namespaceSelector = o.namespaceSelector;
  else if (ns !== undefined) hook.namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': ns } };
  if (o.objectSelector !== undefined) hook.objectSelector = o.objectSelector;
  if (o.failurePolicy !== undefined) hook.failurePolicy = o.failurePolicy;
  if (o.timeoutSeconds !== undefined) hook.timeoutSeconds = o.timeoutSeconds;
  if (o.matchPolicy !== undefined) hook.matchPolicy = o.matchPolicy;
  if (o.reinvocationPolicy !== undefined) hook.reinvocationPolicy = o.reinvocationPolicy;
  if (o.matchConditions !== undefined) hook.matchConditions = o.matchConditions;
  return hook;
}

/**
 * Creates a configuration and waits until the watch cache has it: the webhook plugins read
 * configurations from there, as upstream's read them from an informer.
 */
async function configure(kind: 'validating' | 'mutating', webhooks: Record<string, unknown>[]): Promise<() => Promise<void>> {
  const collection = kind === 'validating' ? validating : mutating;
  const name = unique(`${kind}-config`);
  const res = await server.request('POST', collection, {
    body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration', metadata: { name }, webhooks },
  });
  assert.equal(res.status, 201, res.text);
  const cached = async () => (await server.request('GET', `${collection}?resourceVersion=0`)).json.items.some((c: any) => c.metadata.name === name);
  await eventually(async () => assert.ok(await cached(), 'the configuration reached the cache'));
  return async () => {
    await server.request('DELETE', `${collection}/${name}`);
    await eventually(async () => assert.ok(!(await cached()), 'the configuration left the cache'));
  };
}

describe('validating webhooks', () => {
  test('a refusal answers the webhook status with upstream\'s message; the review describes the request', async () => {
    const ns = await namespace();
    hooks.handle('/deny-bad', (review) => (review.request.name === 'bad' ? deny('no pods named bad', 403, { reason: 'Forbidden' }) : allow()));
    const remove = await configure('validating', [webhook('deny.bad.example.com', ns, { path: '/deny-bad' })]);
    try {
      const refused = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('bad') });
      assert.equal(refused.status, 403);
      assert.equal(refused.json.reason, 'Forbidden');
      assert.equal(refused.json.message, 'admission webhook "deny.bad.example.com" denied the request: no pods named bad');
      const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('good') });
      assert.equal(created.status, 201, created.text);

      const [first] = hooks.received('/deny-bad');
      assert.equal(first!.query, 'timeout=10s');
      const { apiVersion, kind, request } = first!.review;
      assert.equal(apiVersion, 'admission.k8s.io/v1');
      assert.equal(kind, 'AdmissionReview');
      assert.match(request.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(request.kind, { group: '', version: 'v1', kind: 'Pod' });
      assert.deepEqual(request.resource, { group: '', version: 'v1', resource: 'pods' });
      assert.deepEqual(request.requestKind, { group: '', version: 'v1', kind: 'Pod' });
      assert.equal(request.subResource, undefined);
      assert.equal(request.operation, 'CREATE');
      assert.equal(request.namespace, ns);
      assert.equal(request.name, 'bad');
      assert.equal(request.userInfo.username, 'admin');
      assert.ok(request.userInfo.groups.includes('system:masters'));
      assert.equal(request.object.metadata.name, 'bad');
      assert.equal(request.object.spec.serviceAccountName, 'default', 'built-in mutating plugins ran first');
      assert.equal(request.oldObject, null);
      assert.equal(request.dryRun, false);
      assert.deepEqual(request.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    } finally {
      await remove();
    }
  });

  test('a refusal without a status is 400 "without explanation"', async () => {
    const ns = await namespace();
    hooks.handle('/deny-bare', () => ({ response: { allowed: false } }));
    const remove = await configure('validating', [webhook('bare.example.com', ns, { path: '/deny-bare' })]);
    try {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
      assert.equal(res.status, 400);
      assert.equal(res.json.message, 'admission webhook "bare.example.com" denied the request without explanation');
    } finally {
      await remove();
    }
  });

  test('warnings of webhooks become Warning headers', async () => {
    const ns = await namespace();
    hooks.handle('/warn', () => allow({ warnings: ['pods should have owners', 'second "quoted" warning'] }));
    const remove = await configure('validating', [webhook('warn.example.com', ns, { path: '/warn' })]);
    try {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
      assert.equal(res.status, 201);
      const warnings = ([] as string[]).concat(res.headers.warning ?? []).join(', ');
      assert.match(warnings, /299 - "pods should have owners"/);
      assert.match(warnings, /299 - "second \\"quoted\\" warning"/);
    } finally {
      await remove();
    }
  });

  test('rules match operation, group, version, resource, subresource and scope', async () => {
    const ns = await namespace();
    hooks.handle('/rules', () => allow());
    const remove = await configure('validating', [
      webhook('update-only.example.com', ns, { path: '/rules', rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
      webhook('status-only.example.com', ns, { path: '/rules', rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['*'], resources: ['pods/status'] }] }),
      webhook('wrong-group.example.com', ns, { path: '/rules', rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['*'], resources: ['*'] }] }),
      webhook('cluster-scope.example.com', ns, { path: '/rules', rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }),
    ]);
    try {
      const before = hooks.received('/rules').length;
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'cm' }, data: { a: '1' } } })).status, 201);
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') })).status, 201);
      assert.equal(hooks.received('/rules').length, before, 'no rule matches a create of configmaps or pods in a namespace');

      assert.equal((await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/cm`, { raw: '{"data":{"a":"2"}}', headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
      const afterUpdate = hooks.received('/rules').slice(before);
      assert.equal(afterUpdate.length, 1);
      assert.equal(afterUpdate[0]!.review.request.operation, 'UPDATE');
      assert.equal(afterUpdate[0]!.review.request.oldObject.data.a, '1');
      assert.equal(afterUpdate[0]!.review.request.object.data.a, '2');

      const p = (await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json;
      const status = await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p/status`, { body: { ...p, status: { ...p.status, phase: 'Running' } } });
      assert.equal(status.status, 200, status.text);
      const afterStatus = hooks.received('/rules').slice(before + 1);
      assert.equal(afterStatus.length, 1, '"*" resources do not match subresources; pods/status does');
      assert.equal(afterStatus[0]!.review.request.subResource, 'status');
      assert.equal(afterStatus[0]!.review.request.requestSubResource, 'status');
    } finally {
      await remove();
    }
  });

  test('scope Cluster matches a namespace itself, with the namespaceSelector read from its own labels', async () => {
    hooks.handle('/ns-scope', (review) => deny(`no namespace ${review.request.name}`));
    const remove = await configure('validating', [webhook('ns-scope.example.com', undefined, {
      path: '/ns-scope',
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*'], scope: 'Cluster' }],
      namespaceSelector: { matchLabels: { 'webhook-test': 'refuse' } },
    })]);
    try {
      const refused = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: unique('refused'), labels: { 'webhook-test': 'refuse' } } } });
      assert.equal(refused.status, 403);
      assert.match(refused.json.message, /denied the request: no namespace refused-/);
      const [review] = hooks.received('/ns-scope').slice(-1);
      assert.equal(review!.review.request.kind.kind, 'Namespace');
      assert.equal(await namespace().then(() => 'created'), 'created', 'unlabelled namespaces do not match the selector');
    } finally {
      await remove();
    }
  });

  test('namespaceSelector and objectSelector choose the requests', async () => {
    const chosen = await namespace({ team: 'a' });
    const other = await namespace({ team: 'b' });
    hooks.handle('/selectors', () => deny('chosen'));
    const remove = await configure('validating', [webhook('selectors.example.com', undefined, {
      path: '/selectors',
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] },
      objectSelector: { matchLabels: { checked: 'yes' } },
    })]);
    try {
      assert.equal((await server.request('POST', `/api/v1/namespaces/${chosen}/pods`, { body: pod('checked', { checked: 'yes' }) })).status, 403);
      assert.equal((await server.request('POST', `/api/v1/namespaces/${chosen}/pods`, { body: pod('unchecked') })).status, 201);
      assert.equal((await server.request('POST', `/api/v1/namespaces/${other}/pods`, { body: pod('checked', { checked: 'yes' }) })).status, 201);
    } finally {
      await remove();
    }
  });

  test('DELETE sends the old object and no object', async () => {
    const ns = await namespace();
    hooks.handle('/deletes', (review) => (review.request.oldObject?.metadata?.labels?.keep === 'true' ? deny('kept') : allow()));
    const remove = await configure('validating', [webhook('deletes.example.com', ns, { path: '/deletes', rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    try {
      await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'kept', labels: { keep: 'true' } } } });
      await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'gone' } } });
      assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/kept`)).status, 403);
      assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/gone`)).status, 200);
      const last = hooks.received('/deletes').at(-1)!.review.request;
      assert.equal(last.operation, 'DELETE');
      assert.equal(last.object, null);
      assert.equal(last.oldObject.metadata.name, 'gone');
      assert.equal(last.options.kind, 'DeleteOptions');
    } finally {
      await remove();
    }
  });

  test('matchConditions choose the requests sent; one that fails to evaluate follows failurePolicy', async () => {
    const ns = await namespace();
    hooks.handle('/conditional', () => deny('refused by the webhook'));
    const conditions = [
      { name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" },
      { name: 'creates-only', expression: "request.operation == 'CREATE'" },
    ];
    let remove = await configure('validating', [webhook('conditional.example.com', ns, { path: '/conditional', matchConditions: conditions })]);
    try {
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('exempt', { exempt: 'yes' }) })).status, 201);
      assert.equal(hooks.received('/conditional').length, 0, 'a false condition: not sent');
      const sent = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('checked') });
      assert.equal(sent.status, 403, sent.text);
      assert.equal(sent.json.message, 'admission webhook "conditional.example.com" denied the request: refused by the webhook');
      assert.equal(hooks.received('/conditional').length, 1);
    } finally {
      await remove();
    }
    // A condition that fails to evaluate (no such key): Fail refuses without calling, Ignore skips the webhook.
    const broken = [{ name: 'broken', expression: "object.metadata.labels['missing'] == 'x'" }];
    remove = await configure('validating', [webhook('broken.example.com', ns, { path: '/conditional', matchConditions: broken, failurePolicy: 'Fail' })]);
    try {
      const refused = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('fails', { a: 'b' }) });
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.message, /^pods "fails" is forbidden: expression 'object\.metadata\.labels\['missing'\] == 'x'' resulted in error: no such key: missing$/);
    } finally {
      await remove();
    }
    remove = await configure('validating', [webhook('ignored.example.com', ns, { path: '/conditional', matchConditions: broken, failurePolicy: 'Ignore' })]);
    try {
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('ignored', { a: 'b' }) })).status, 201);
      assert.equal(hooks.received('/conditional').length, 1, 'still only the one call');
    } finally {
      await remove();
    }
  });

  test('a match condition reading a field the AdmissionRequest or Namespace type lacks refuses the configuration, in cel-go\'s words', async () => {
    const cases: [string, string | undefined][] = [
      ["request.userInfo.name == 'x'", "ERROR: <input>:1:17: undefined field 'name'\n | request.userInfo.name == 'x'\n | ................^"],
      ["request.kind.plural == 'pods'", "ERROR: <input>:1:13: undefined field 'plural'\n | request.kind.plural == 'pods'\n | ............^"],
      ["has(namespaceObject.metadata.uid)", "ERROR: <input>:1:29: undefined field 'uid'\n | has(namespaceObject.metadata.uid)\n | ............................^"],
      ["request.userInfo.username == 'x' && request.options.anything == 1 && namespaceObject.metadata.UID != ''", undefined],
      ["'x' in request.userInfo.extra && request.dryRun", undefined],
    ];
    for (const [expression, error] of cases) {
      const res = await server.request('POST', `${validating}?dryRun=All`, {
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'typed' },
          webhooks: [webhook('typed.example.com', undefined, { path: '/x', matchConditions: [{ name: 'c', expression }] })],
        },
      });
      if (error === undefined) {
        assert.equal(res.status, 201, `${expression}: ${res.text}`);
        continue;
      }
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json.details.causes, [{
        reason: 'FieldValueInvalid', field: 'webhooks[0].matchConditions[0].expression', message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${error}`,
      }], expression);
    }
  });

  test('a match condition that does not compile refuses the configuration', async () => {
    const res = await server.request('POST', validating, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'uncompiled' },
        webhooks: [webhook('uncompiled.example.com', undefined, { path: '/x', matchConditions: [{ name: 'bad', expression: 'object.metadata.name ==' }] })],
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.causes[0].field, 'webhooks[0].matchConditions[0].expression');
    assert.match(res.json.details.causes[0].message, /^Invalid value: "object\.metadata\.name ==": compilation failed: ERROR: <input>: /);
  });

  test('failurePolicy: Fail answers 500 when the webhook cannot be called, Ignore lets the request through', async () => {
    const ns = await namespace();
    const unreachable = { url: 'https://127.0.0.1:1/nothing', caBundle: hooks.caBundle };
    const remove = await configure('validating', [webhook('fail.example.com', ns, { path: '', clientConfig: unreachable, failurePolicy: 'Fail', objectSelector: { matchLabels: { policy: 'fail' } } }),
      webhook('ignore.example.com', ns, { path: '', clientConfig: unreachable, failurePolicy: 'Ignore', objectSelector: { matchLabels: { policy: 'ignore' } } })]);
    try {
      const failed = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('f', { policy: 'fail' }) });
      assert.equal(failed.status, 500);
      assert.equal(failed.json.reason, 'InternalError');
      assert.equal(failed.json.message, 'Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "https://127.0.0.1:1/nothing?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
      const ignored = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('i', { policy: 'ignore' }) });
      assert.equal(ignored.status, 201, ignored.text);
    } finally {
      await remove();
    }
  });

  test('a CA bundle that does not verify the webhook fails the call', async () => {
    const ns = await namespace();
    const other = await startWebhookServer();
    try {
      const remove = await configure('validating', [webhook('wrong-ca.example.com', ns, { path: '', clientConfig: { url: `${hooks.url}/x`, caBundle: other.caBundle } })]);
      try {
        const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
        assert.equal(res.status, 500);
        assert.match(res.json.message, /failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority/);
      } finally {
        await remove();
      }
    } finally {
      await other.close();
    }
  });

  test('timeoutSeconds bounds the call: Fail answers 500 with the deadline, Ignore goes on', async () => {
    const ns = await namespace();
    // The webhook holds every review until the test ends (or a generous deadline passes):
    // an answer before that is the server's own, at the timeout.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const deadline = setTimeout(release, 20_000);
    hooks.handle('/slow', async () => {
      await held;
      return allow();
    });
    const remove = await configure('validating', [
      webhook('slow-fail.example.com', ns, { path: '/slow', timeoutSeconds: 1, objectSelector: { matchLabels: { policy: 'fail' } } }),
      webhook('slow-ignore.example.com', ns, { path: '/slow', timeoutSeconds: 1, failurePolicy: 'Ignore', objectSelector: { matchLabels: { policy: 'ignore' } } }),
    ]);
    try {
      const failed = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('f', { policy: 'fail' }) });
      assert.equal(failed.status, 500, failed.text);
      assert.match(failed.json.message, /failed calling webhook "slow-fail.example.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=1s": context deadline exceeded/);
      const ignored = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('i', { policy: 'ignore' }) });
      assert.equal(ignored.status, 201, ignored.text);
      assert.deepEqual(hooks.received('/slow').map((r) => [r.review.request.name, r.query]), [['f', 'timeout=1s'], ['i', 'timeout=1s']]);
    } finally {
      clearTimeout(deadline);
      release();
      await remove();
    }
  });

  test('a service reference is called at a ready endpoint of the service; one that cannot be reached: failurePolicy decides', async () => {
    const ns = await namespace();
    hooks.handle('/validate-svc', (review) => (review.request.object.metadata.name === 'denied' ? deny('no') : allow()));
    const service = { service: { namespace: 'default', name: 'hook', path: '/validate-svc', port: hooks.port }, caBundle: hooks.caBundle };
    const remove = await configure('validating', [
      webhook('svc-fail.example.com', ns, { path: '', clientConfig: service, objectSelector: { matchLabels: { policy: 'fail' } } }),
      webhook('svc-ignore.example.com', ns, { path: '', clientConfig: service, failurePolicy: 'Ignore', objectSelector: { matchLabels: { policy: 'ignore' } } }),
    ]);
    const url = `https://hook.default.svc:${hooks.port}/validate-svc?timeout=10s`;
    const refusal = async (name: string) => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name, { policy: 'fail' }) });
      assert.equal(res.status, 500, res.text);
      return res.json.message;
    };
    const services = '/api/v1/namespaces/default/services';
    try {
      assert.equal(await refusal('a'), `Internal error occurred: failed calling webhook "svc-fail.example.com": failed to call webhook: Post "${url}": service "hook" not found`);
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('i', { policy: 'ignore' }) })).status, 201);

      // A ClusterIP service: a ready endpoint of its EndpointSlices for the port's name.
      const clusterIP = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: hooks.port }] } };
      assert.equal((await server.request('POST', services, { body: clusterIP })).status, 201);
      assert.equal(await refusal('b'), `Internal error occurred: failed calling webhook "svc-fail.example.com": failed to call webhook: Post "${url}": no endpoints available for service "hook"`);
      assert.equal((await server.request('DELETE', `${services}/hook`)).status, 200);

      // The webhook server listens on loopback, which an EndpointSlice may not name: an
      // ExternalName service reaches it, its certificate checked for hook.default.svc.
      const external = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } };
      await eventually(async () => assert.equal((await server.request('POST', services, { body: external })).status, 201));
      await eventually(async () => {
        const allowed = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('allowed', { policy: 'fail' }) });
        assert.equal(allowed.status, 201, allowed.text);
      });
      assert.equal(hooks.received('/validate-svc').at(-1)!.query, 'timeout=10s');
      const denied = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('denied', { policy: 'fail' }) });
      assert.equal(denied.status, 403, denied.text);
      await server.request('DELETE', `${services}/hook`);
    } finally {
      await remove();
    }
  });

  test('an invalid response (wrong uid) fails the call', async () => {
    const ns = await namespace();
    hooks.handle('/bad-uid', () => ({ response: { allowed: true, uid: 'not-the-uid' } }));
    const remove = await configure('validating', [webhook('bad-uid.example.com', ns, { path: '/bad-uid' })]);
    try {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
      assert.equal(res.status, 500);
      assert.match(res.json.message, /failed calling webhook "bad-uid.example.com": received invalid webhook response: expected response.uid="[0-9a-f-]+", got "not-the-uid"/);
    } finally {
      await remove();
    }
  });
});

describe('mutating webhooks', () => {
  test('a JSON Patch response changes the stored object; defaults fill in what it added, unknown fields are dropped', async () => {
    const ns = await namespace();
    hooks.handle('/inject', () => patch([
      { op: 'add', path: '/metadata/labels/injected', value: 'yes' },
      { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } },
      { op: 'add', path: '/spec/notAField', value: 1 },
    ]));
    const remove = await configure('mutating', [webhook('inject.example.com', ns, { path: '/inject' })]);
    try {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p', { app: 'x' }) });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.metadata.labels.injected, 'yes');
      const sidecar = res.json.spec.containers.find((c: any) => c.name === 'sidecar');
      assert.equal(sidecar.image, 'busybox');
      assert.equal(sidecar.terminationMessagePolicy, 'File', 'defaulted after the patch');
      assert.equal(res.json.spec.notAField, undefined, 'unknown fields a webhook adds are dropped, as upstream\'s decoding drops them');
      const stored = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`);
      assert.equal(stored.json.metadata.labels.injected, 'yes');
    } finally {
      await remove();
    }
  });

  test('mutating webhooks run in configuration order, each seeing the previous patches; validating webhooks see the result', async () => {
    const ns = await namespace();
    hooks.handle('/first', () => patch([{ op: 'add', path: '/metadata/annotations', value: { order: 'first' } }]));
    hooks.handle('/second', (review) => patch([{ op: 'replace', path: '/metadata/annotations/order', value: `${review.request.object.metadata.annotations.order},second` }]));
    hooks.handle('/check-order', (review) => (review.request.object.metadata.annotations?.order === 'first,second' ? allow() : deny('wrong order')));
    const removeMutating = await configure('mutating', [webhook('first.example.com', ns, { path: '/first' }), webhook('second.example.com', ns, { path: '/second' })]);
    const removeValidating = await configure('validating', [webhook('check.example.com', ns, { path: '/check-order' })]);
    try {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.metadata.annotations.order, 'first,second');
    } finally {
      await removeMutating();
      await removeValidating();
    }
  });

  test('a create reaches mutating webhooks as sent and defaulted, before the server names and prepares it; validating webhooks see it complete', async () => {
    const ns = await namespace();
    const seen: Record<string, any> = {};
    hooks.handle('/see-mutating', (review) => {
      seen.mutating = review.request;
      return allow();
    });
    hooks.handle('/see-validating', (review) => {
      seen.validating = review.request;
      return allow();
    });
    const removeMutating = await configure('mutating', [webhook('see.example.com', ns, { path: '/see-mutating' })]);
    const removeValidating = await configure('validating', [webhook('see.example.com', ns, { path: '/see-validating' })]);
    try {
      const body = { ...pod(''), metadata: { generateName: 'gen-' }, status: { phase: 'Running' } };
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
      assert.equal(res.status, 201, res.text);
      const mutating = seen.mutating;
      assert.equal(mutating.name, undefined, 'no name yet (omitted when empty)');
      assert.equal(mutating.object.metadata.name, undefined);
      assert.equal(mutating.object.metadata.uid, undefined);
      assert.equal(mutating.object.metadata.creationTimestamp ?? null, null);
      assert.equal(mutating.object.metadata.generation, undefined);
      assert.equal(mutating.object.spec.dnsPolicy, 'ClusterFirst', 'the defaults are there');
      assert.deepEqual(mutating.object.status, { phase: 'Running' }, 'the status the client sent, not yet reset');
      const validating = seen.validating;
      assert.equal(validating.name, res.json.metadata.name);
      assert.match(validating.name, /^gen-[a-z0-9]{5}$/);
      assert.equal(validating.object.metadata.uid, res.json.metadata.uid);
      assert.equal(validating.object.metadata.creationTimestamp, res.json.metadata.creationTimestamp);
      assert.equal(validating.object.status.phase, 'Pending');
    } finally {
      await removeMutating();
      await removeValidating();
    }
  });

  test('an update reaches mutating webhooks as sent and defaulted, before the server keeps its metadata and prepares it; validating webhooks see it prepared', async () => {
    const ns = await namespace();
    const seen: Record<string, any[]> = { mutating: [], validating: [] };
    hooks.handle('/see-update-mutating', (review) => {
      seen.mutating!.push(review.request);
      return allow();
    });
    hooks.handle('/see-update-validating', (review) => {
      seen.validating!.push(review.request);
      return allow();
    });
    const rules = [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }];
    const removeMutating = await configure('mutating', [webhook('see-update.example.com', ns, { path: '/see-update-mutating', rules })]);
    const removeValidating = await configure('validating', [webhook('see-update.example.com', ns, { path: '/see-update-validating', rules })]);
    try {
      const labels = { app: 'd' };
      const deployment = (image: string) => ({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
        spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image }] } } },
      });
      const created = await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('nginx:1') });
      assert.equal(created.status, 201, created.text);
      // A PUT without uid or creation time, the spec changed, a status of its own.
      const put = await server.request('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/d`, { body: { ...deployment('nginx:2'), status: { replicas: 7 } } });
      assert.equal(put.status, 200, put.text);
      const mutating = seen.mutating![0];
      assert.equal(mutating.object.metadata.uid, undefined, 'the uid is not filled in yet');
      assert.equal(mutating.object.metadata.creationTimestamp ?? null, null);
      assert.equal(mutating.object.metadata.generation, undefined, 'the generation is not kept nor bumped yet');
      assert.deepEqual(mutating.object.status, { replicas: 7 }, 'the status the client sent, not yet reset');
      assert.equal(mutating.object.spec.strategy.type, 'RollingUpdate', 'the defaults are there');
      assert.equal(mutating.oldObject.metadata.generation, 1);
      const validating = seen.validating![0];
      assert.equal(validating.object.metadata.uid, created.json.metadata.uid);
      assert.equal(validating.object.metadata.creationTimestamp, created.json.metadata.creationTimestamp);
      assert.equal(validating.object.metadata.generation, 2);
      assert.equal(validating.object.status?.replicas, undefined, 'the status reset to the stored one');
      assert.equal(put.json.metadata.generation, 2);
      assert.equal(put.json.status?.replicas, undefined);

      // A merge patch is built on the stored object: the webhook sees its metadata, the generation not yet bumped.
      const patched = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/d`, {
        raw: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:3' }] } } } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(seen.mutating![1].object.metadata.generation, 2);
      assert.equal(seen.validating![1].object.metadata.generation, 3);
    } finally {
      await removeMutating();
      await removeValidating();
    }
  });

  test('a Job a webhook changed gets the selector of its uid, set after mutating admission', async () => {
    const ns = await namespace();
    hooks.handle('/label-job', (review) => {
      assert.equal(review.request.object.metadata.uid, undefined);
      return patch([{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }]);
    });
    const rules = [{ operations: ['CREATE'], apiGroups: ['batch'], apiVersions: ['v1'], resources: ['jobs'] }];
    const remove = await configure('mutating', [webhook('label-job.example.com', ns, { path: '/label-job', rules })]);
    try {
      const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } };
      const res = await server.request('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, { body: job });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.metadata.annotations.seen, 'yes');
      const uid = res.json.metadata.uid;
      assert.equal(res.json.spec.selector.matchLabels['batch.kubernetes.io/controller-uid'], uid);
      assert.equal(res.json.spec.template.metadata.labels['controller-uid'], uid);
    } finally {
      await remove();
    }
  });

  test('the writer\'s managed fields are recorded before mutating admission: the webhook sees them, and what it adds is no one\'s', async () => {
    const ns = await namespace();
    hooks.handle('/sidecar', (review) => patch([
      { op: 'add', path: '/metadata/annotations', value: { 'seen-managers': review.request.object.metadata.managedFields.map((e: any) => e.manager).join(',') } },
      ...(review.request.operation === 'CREATE' ? [{ op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } }] : []),
    ]));
    const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];
    const remove = await configure('mutating', [webhook('sidecar.example.com', ns, { path: '/sidecar', rules })]);
    try {
      const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods?fieldManager=writer`, { body: pod('p') });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.metadata.annotations['seen-managers'], 'writer');
      assert.deepEqual(created.json.spec.containers.map((c: any) => c.name), ['c', 'sidecar']);
      const [entry] = created.json.metadata.managedFields;
      assert.equal(entry.manager, 'writer');
      assert.deepEqual(Object.keys(entry.fieldsV1['f:spec']['f:containers']), ['k:{"name":"c"}'], 'the sidecar is not the writer\'s');
      assert.equal(entry.fieldsV1['f:metadata'], undefined, 'nor the annotation');
      const patched = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p?fieldManager=labeler`, {
        raw: '{"metadata":{"labels":{"team":"a"}}}', headers: { 'content-type': 'application/merge-patch+json' },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.json.metadata.annotations['seen-managers'].split(',').sort(), ['labeler', 'writer'], 'the webhook saw the patcher\'s entry');
      const labeler = patched.json.metadata.managedFields.find((e: any) => e.manager === 'labeler');
      assert.deepEqual(labeler.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } } }, 'the annotation the webhook changed is not the patcher\'s');
    } finally {
      await remove();
    }
  });

  test('managed fields a webhook leaves unreadable are put back as the write recorded them, with upstream\'s warning; readable ones stay', async () => {
    const ns = await namespace();
    hooks.handle('/break-managed', () => patch([{ op: 'replace', path: '/metadata/managedFields/0/operation', value: 'Bogus' }]));
    hooks.handle('/rename-manager', () => patch([{ op: 'replace', path: '/metadata/managedFields/0/manager', value: 'renamed' }]));
    const onConfigMaps = (path: string) => ({ path, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] });
    const remove = await configure('mutating', [
      webhook('break-managed.example.com', ns, { ...onConfigMaps('/break-managed'), objectSelector: { matchLabels: { hook: 'break' } } }),
      webhook('rename-manager.example.com', ns, { ...onConfigMaps('/rename-manager'), objectSelector: { matchLabels: { hook: 'rename' } } }),
    ]);
    try {
      const broken = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=writer`, { body: { metadata: { name: 'broken', labels: { hook: 'break' } }, data: { a: '1' } } });
      assert.equal(broken.status, 201, broken.text);
      assert.deepEqual(broken.json.metadata.managedFields.map((e: any) => [e.manager, e.operation]), [['writer', 'Update']]);
      const warnings = ([] as string[]).concat(broken.headers.warning ?? []).join(', ');
      assert.match(warnings, /299 - "\.metadata\.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: operation must be `Apply` or `Update`"/);
      const renamed = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=writer`, { body: { metadata: { name: 'renamed', labels: { hook: 'rename' } }, data: { a: '1' } } });
      assert.equal(renamed.status, 201, renamed.text);
      assert.deepEqual(renamed.json.metadata.managedFields.map((e: any) => e.manager), ['renamed']);
      assert.equal(renamed.headers.warning, undefined);
    } finally {
      await remove();
    }
  });

  test('a patch that cannot be applied is 500; a patch on DELETE is refused', async () => {
    const ns = await namespace();
    hooks.handle('/broken-patch', () => patch([{ op: 'replace', path: '/spec/nothing/here', value: 1 }]));
    hooks.handle('/delete-patch', () => patch([{ op: 'add', path: '/metadata/labels', value: {} }]));
    const remove = await configure('mutating', [
      webhook('broken.example.com', ns, { path: '/broken-patch', rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }),
      webhook('on-delete.example.com', ns, { path: '/delete-patch', rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] }),
    ]);
    try {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'cm' } } });
      assert.equal(res.status, 500);
      await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 's' } } });
      const del = await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/s`);
      assert.equal(del.status, 500);
      assert.equal(del.json.message, 'Internal error occurred: admission webhook "on-delete.example.com" attempted to modify the object, which is not supported for this operation');
    } finally {
      await remove();
    }
  });

  test('the scale subresource is reviewed as an autoscaling/v1 Scale', async () => {
    const ns = await namespace();
    hooks.handle('/scale', (review) => patch([{ op: 'replace', path: '/spec/replicas', value: Math.min(review.request.object.spec.replicas, 3) }]));
    const remove = await configure('mutating', [webhook('cap-replicas.example.com', ns, { path: '/scale', rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] }] })]);
    try {
      const deployment = {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      };
      assert.equal((await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment })).status, 201);
      const res = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, { raw: '{"spec":{"replicas":10}}', headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.spec.replicas, 3);
      const { request } = hooks.received('/scale').at(-1)!.review;
      assert.deepEqual(request.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      assert.deepEqual(request.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
      assert.equal(request.subResource, 'scale');
      assert.equal(request.oldObject.spec.replicas, 1);
    } finally {
      await remove();
    }
  });

  test('a webhook for autoscaling/v2 sees a v1 HorizontalPodAutoscaler as v2, and its patch comes back in v1 (matchPolicy Equivalent)', async () => {
    const ns = await namespace();
    hooks.handle('/hpa-v2', (review) => patch([{ op: 'replace', path: '/spec/maxReplicas', value: Math.min(review.request.object.spec.maxReplicas, 7) }]));
    const v2Rules = [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] }];
    const remove = await configure('mutating', [
      webhook('cap-hpa.example.com', ns, { path: '/hpa-v2', rules: v2Rules }),
      webhook('exact-hpa.example.com', ns, { path: '/hpa-exact', rules: v2Rules, matchPolicy: 'Exact' }),
    ]);
    try {
      const hpa = {
        apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 20, targetCPUUtilizationPercentage: 50 },
      };
      const res = await server.request('POST', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, { body: hpa });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual([res.json.apiVersion, res.json.spec.maxReplicas, res.json.spec.targetCPUUtilizationPercentage], ['autoscaling/v1', 7, 50]);
      const { request } = hooks.received('/hpa-v2').at(-1)!.review;
      assert.deepEqual(request.kind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
      assert.deepEqual(request.requestKind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
      assert.deepEqual(request.requestResource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
      assert.equal(request.object.apiVersion, 'autoscaling/v2');
      assert.deepEqual(request.object.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
      assert.deepEqual(hooks.received('/hpa-exact'), [], 'matchPolicy Exact: not called for v1');
    } finally {
      await remove();
    }
  });
});

describe('sideEffects and dry run', () => {
  // A webhook with sideEffects Some or Unknown cannot be created through v1 (below); the 400
  // for a dry run reaching one is tested on the plugin in test/admission/webhook.test.ts.
  test('a dry run calls webhooks without side effects with dryRun: true and persists nothing', async () => {
    const ns = await namespace();
    hooks.handle('/dry', () => patch([{ op: 'add', path: '/metadata/labels/seen', value: 'dry' }]));
    const remove = await configure('mutating', [
      webhook('no-effects.example.com', ns, { path: '/dry', objectSelector: { matchLabels: { effects: 'none' } } }),
      webhook('on-dry-run.example.com', ns, { path: '/dry', sideEffects: 'NoneOnDryRun', objectSelector: { matchLabels: { effects: 'none-on-dry-run' } } }),
    ]);
    try {
      const before = hooks.received('/dry').length;
      const dry = await server.request('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, { body: pod('p', { effects: 'none' }) });
      assert.equal(dry.status, 201, dry.text);
      assert.equal(dry.json.metadata.labels.seen, 'dry', 'the answer is what the real request would store');
      const seen = hooks.received('/dry').slice(before);
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.review.request.dryRun, true);
      assert.deepEqual(seen[0]!.review.request.options.dryRun, ['All']);
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 404, 'nothing persisted');
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, { body: pod('q', { effects: 'none-on-dry-run' }) })).status, 201);
    } finally {
      await remove();
    }
  });

  test('sideEffects Some or Unknown are refused by validation, as upstream\'s v1 API', async () => {
    const res = await server.request('POST', validating, {
      body: { metadata: { name: unique('some') }, webhooks: [{ ...webhook('some.example.com', 'default', { path: '/x' }), sideEffects: 'Some' }] },
    });
    assert.equal(res.status, 422);
    assert.match(res.json.message, /webhooks\[0\]\.sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"/);
  });
});
