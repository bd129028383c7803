// What validating and mutating admission policies share, as upstream's generic dispatcher
// and CEL composition (k8s.io/apiserver plugin/policy/generic, plugin/cel): variables
// evaluated lazily when an expression reads them (a failing one fails only what needs its
// value), params as CollectParams selects them (null without a paramRef; a paramKind's scope
// checked against the paramRef and the request), and no namespaceObject for a Namespace.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type Response, type TestServer } from '../helpers/server.ts';

const validatingPolicies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const validatingBindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const mutatingPolicies = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';
const mutatingBindings = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings';

describe('admission policies\' shared evaluation as upstream\'s', () => {
  let server: TestServer;
  before(async () => void (server = await startServer()));
  after(() => server?.stop());

  let seq = 0;

  /** A namespace of the test's own, labelled with its name for the policy's namespaceSelector. */
  async function namespace(name: string): Promise<string> {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels: { shared: name } } } })).status, 201);
    return name;
  }

  const configMapRules = (ns: string) => ({
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { shared: ns } },
  });

  async function create(path: string, body: Record<string, unknown>): Promise<void> {
    const res = await server.request('POST', path, { body });
    assert.equal(res.status, 201, res.text);
  }

  /** A ValidatingAdmissionPolicy and its binding, both named `name`. */
  async function validating(name: string, spec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}): Promise<void> {
    await create(validatingPolicies, { metadata: { name }, spec });
    await create(validatingBindings, { metadata: { name }, spec: { policyName: name, validationActions: ['Deny'], ...bindingSpec } });
  }

  /** A MutatingAdmissionPolicy and its binding, both named `name`. */
  async function mutating(name: string, spec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}): Promise<void> {
    await create(mutatingPolicies, { metadata: { name }, spec: { reinvocationPolicy: 'Never', ...spec } });
    await create(mutatingBindings, { metadata: { name }, spec: { policyName: name, ...bindingSpec } });
  }

  const createConfigMap = (ns: string) => server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `cm-${++seq}` }, data: { k: 'v' } } });
  /** The first answer to `send` that `check` accepts (once the policy reached the plugin's informers). */
  const once = (send: () => Promise<Response>, check: (res: Response) => void) => eventually(async () => {
    const res = await send();
    check(res);
    return res;
  });
  /** The message a validating policy's denial carries after the object's "is forbidden: ". */
  const denial = (res: Response) => String(res.json?.message).replace(/^.*? is forbidden: /, '');

  test('a variable is evaluated when an expression needs its value: one that fails fails only those, in upstream\'s words', async () => {
    const ns = await namespace('lazy-variables');
    await validating('lazy-variables', {
      matchConstraints: configMapRules(ns),
      variables: [
        { name: 'bad', expression: "object.data.missing == 'x'" },
        { name: 'size', expression: 'size(object.data)' },
        { name: 'twice', expression: 'variables.size * 2' },
      ],
      validations: [
        { expression: 'true || variables.bad' },
        { expression: 'variables.twice == 2' },
        { expression: 'variables.twice == 4' },
      ],
    });
    const res = await once(() => createConfigMap(ns), (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(res), "ValidatingAdmissionPolicy 'lazy-variables' with binding 'lazy-variables' denied request: failed expression: variables.twice == 4");

    const failingNs = await namespace('lazy-variables-fail');
    await validating('lazy-variables-fail', {
      matchConstraints: configMapRules(failingNs),
      variables: [{ name: 'bad', expression: "object.data.missing == 'x'" }],
      validations: [{ expression: 'variables.bad || false' }],
    });
    const failed = await once(() => createConfigMap(failingNs), (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(failed), "ValidatingAdmissionPolicy 'lazy-variables-fail' with binding 'lazy-variables-fail' denied request: expression 'variables.bad || false' resulted in error: composited variable \"bad\" fails to evaluate: no such key: missing");
  });

  test('a variable sees only those declared before it: a policy whose variable reads a later one is refused when written, so none cycles', async () => {
    const ns = await namespace('variable-order');
    const res = await server.request('POST', validatingPolicies, {
      body: {
        metadata: { name: 'variable-order' },
        spec: { matchConstraints: configMapRules(ns), variables: [{ name: 'a', expression: 'variables.b' }, { name: 'b', expression: 'variables.a' }], validations: [{ expression: 'variables.a == 1' }] },
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: { field: string }) => c.field), ['spec.variables[0].expression']);
    assert.match(res.json.details.causes[0].message, /^Invalid value: "variables\.b": compilation failed: ERROR: <input>:1:10: undefined field 'b'\n/);
  });

  test('an expression that only selects a variable has the variable\'s type, as upstream declares each variable', async () => {
    const ns = await namespace('typed-variables');
    await validating('typed-variables', {
      matchConstraints: configMapRules(ns),
      variables: [
        { name: 'b', expression: "object.data.k == 'v'" },
        { name: 'alias', expression: 'variables.b' },
        { name: 's', expression: "'named ' + object.metadata.name" },
      ],
      validations: [{ expression: '( variables.alias )' }, { expression: '!variables.b', messageExpression: 'variables.s' }],
      auditAnnotations: [{ key: 's', valueExpression: 'variables.s' }],
    });
    const res = await once(() => createConfigMap(ns), (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(res), `ValidatingAdmissionPolicy 'typed-variables' with binding 'typed-variables' denied request: named ${res.json.details.name}`);

    const refused = await server.request('POST', validatingPolicies, {
      body: { metadata: { name: 'string-variable' }, spec: { matchConstraints: configMapRules(ns), variables: [{ name: 's', expression: "'text'" }], validations: [{ expression: 'variables.s' }] } },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "variables.s": must evaluate to bool', field: 'spec.validations[0].expression' }]);
  });

  test('a mutation\'s variables are evaluated lazily over the object as the mutations before it left it', async () => {
    const ns = await namespace('mutating-variables');
    await mutating('mutating-variables', {
      matchConstraints: configMapRules(ns),
      variables: [
        { name: 'bad', expression: "object.data.missing == 'x'" },
        { name: 'first', expression: "object.metadata.labels['first']" },
      ],
      mutations: [
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'first': (true || variables.bad) ? 'one' : 'none'}}}" } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'second': variables.first}}}" } },
      ],
    });
    const res = await once(() => createConfigMap(ns), (r) => assert.equal(r.json?.metadata?.labels?.first, 'one', r.text));
    assert.equal(res.status, 201);
    assert.deepEqual(res.json.metadata.labels, { first: 'one', second: 'one' });
  });

  test('a binding without a paramRef evaluates its paramKind\'s policy with params null', async () => {
    const ns = await namespace('no-param-ref');
    await validating('no-param-ref', {
      matchConstraints: configMapRules(ns),
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'params != null' }],
    });
    const res = await once(() => createConfigMap(ns), (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(res), "ValidatingAdmissionPolicy 'no-param-ref' with binding 'no-param-ref' denied request: failed expression: params != null");

    const mutatingNs = await namespace('no-param-ref-mutating');
    await mutating('no-param-ref-mutating', {
      matchConstraints: configMapRules(mutatingNs),
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'params': params == null ? 'null' : 'set'}}}" } }],
    });
    const mutated = await once(() => createConfigMap(mutatingNs), (r) => assert.equal(r.status, 201, r.text));
    assert.equal(mutated.json.metadata.labels?.params, 'null');
  });

  test('a namespaced paramKind needs a namespace for a cluster-scoped request; a cluster-scoped one takes none', async () => {
    const name = 'namespaced-params';
    await validating(name, {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['rbac.authorization.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['clusterroles'] }],
        objectSelector: { matchLabels: { shared: name } },
      },
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'true' }],
    }, { paramRef: { name: 'p', parameterNotFoundAction: 'Allow' } });
    const clusterRole = () => server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { metadata: { name: `role-${++seq}`, labels: { shared: name } }, rules: [] } });
    const refused = await once(clusterRole, (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(refused), `ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources`);

    const ns = await namespace('cluster-params');
    await validating('cluster-params', {
      matchConstraints: configMapRules(ns),
      paramKind: { apiVersion: 'v1', kind: 'Namespace' },
      validations: [{ expression: 'true' }],
    }, { paramRef: { name: ns, namespace: ns, parameterNotFoundAction: 'Allow' } });
    const denied = await once(() => createConfigMap(ns), (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(denied), "ValidatingAdmissionPolicy 'cluster-params' with binding 'cluster-params' denied request: failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
  });

  test('a core paramKind that is not served is named as GroupVersionKind.String() writes it', async () => {
    const ns = await namespace('core-param-kind');
    await validating('core-param-kind', {
      matchConstraints: configMapRules(ns),
      paramKind: { apiVersion: 'v1', kind: 'Missing' },
      validations: [{ expression: 'true' }],
    }, { paramRef: { name: 'p', parameterNotFoundAction: 'Allow' } });
    const res = await once(() => createConfigMap(ns), (r) => assert.equal(r.status, 422, r.text));
    assert.equal(denial(res), "ValidatingAdmissionPolicy 'core-param-kind' denied request: failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Missing'");
  });

  test('a request of a Namespace sees no namespaceObject, its status and its deletion too', async () => {
    const name = 'namespace-object';
    await validating(name, {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['namespaces', 'namespaces/status'] }],
        objectSelector: { matchLabels: { shared: name } },
      },
      // The first warns always (the policy is in force), the second only when there is a namespaceObject.
      validations: [{ expression: 'false', message: 'in force' }, { expression: 'namespaceObject == null', message: 'a namespaceObject' }],
    }, { validationActions: ['Warn'] });
    await namespace(name);
    const inForce = "299 - \"Validation failed for ValidatingAdmissionPolicy 'namespace-object' with binding 'namespace-object': in force\"";
    const update = await once(async () => {
      const ns = (await server.request('GET', `/api/v1/namespaces/${name}`)).json;
      return server.request('PUT', `/api/v1/namespaces/${name}`, { body: { ...ns, metadata: { ...ns.metadata, annotations: { n: String(++seq) } } } });
    }, (r) => {
      assert.equal(r.status, 200, r.text);
      assert.ok(r.headers.warning, 'the policy is in force');
    });
    assert.equal(update.headers.warning, inForce, 'no namespaceObject on an update');
    const status = await server.request('PUT', `/api/v1/namespaces/${name}/status`, { body: update.json });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.headers.warning, inForce, 'no namespaceObject on a status update');
    const deleted = await server.request('DELETE', `/api/v1/namespaces/${name}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.headers.warning, inForce, 'no namespaceObject on a deletion');
  });
});

describe('admission policy variables whose authorizer check waits for a webhook\'s answer', () => {
  const dir = tempDir('plinth-policy-authz-');
  let webhook: https.Server;
  let server: TestServer;

  before(async () => {
    // The webhook allows only the widgets; of the rest it has no opinion (RBAC decides).
    const material = await ensureServingMaterial(dir);
    webhook = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const allowed = review.spec.resourceAttributes?.resource === 'widgets';
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: { allowed } }));
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const kubeconfig = path.join(dir, 'authz.kubeconfig');
    writeFileSync(kubeconfig, [
      'apiVersion: v1', 'kind: Config',
      'clusters:', '- name: authz', '  cluster:', `    server: https://127.0.0.1:${(webhook.address() as AddressInfo).port}/`, `    certificate-authority-data: ${Buffer.from(material.caPem).toString('base64')}`,
      'users:', '- name: apiserver', '  user:', '    token: webhook-secret',
      'contexts:', '- name: webhook', '  context: {cluster: authz, user: apiserver}', 'current-context: webhook', '',
    ].join('\n'));
    server = await startServer({ authorizationModes: ['Webhook', 'RBAC'], authorizationWebhook: { configFile: kubeconfig, version: 'v1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 } });
  });
  after(async () => {
    await server?.stop();
    webhook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an expression reading a variable (and a variable reading it) sees the webhook\'s answer', async () => {
    const ns = 'awaited-variables';
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns, labels: { shared: ns } } } })).status, 201);
    const policy = {
      metadata: { name: ns },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          namespaceSelector: { matchLabels: { shared: ns } },
        },
        variables: [
          { name: 'widgets', expression: "authorizer.group('example.com').resource('widgets').namespace(object.metadata.namespace).check('list').allowed()" },
          { name: 'both', expression: "variables.widgets && object.metadata.generateName == 'cm-'" },
        ],
        validations: [{ expression: '!variables.both', message: 'the webhook allows widgets' }],
      },
    };
    assert.equal((await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: policy })).status, 201);
    const binding = { metadata: { name: ns }, spec: { policyName: ns, validationActions: ['Deny'] } };
    assert.equal((await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: binding })).status, 201);
    const res = await eventually(async () => {
      const r = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { generateName: 'cm-' } } });
      assert.equal(r.status, 422, r.text);
      return r;
    });
    assert.match(res.json.message, /denied request: the webhook allows widgets$/);
  });
});
