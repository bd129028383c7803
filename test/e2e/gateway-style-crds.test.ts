// CRDs in Gateway API's style (test/e2e/fixtures/gateway-style-crds.yaml: bounded lists
// and strings, many x-kubernetes-validations rules) applied with kubectl: accepted, cost
// estimates within budget, and objects that break their rules refused with the rules'
// messages at their paths.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const manifest = path.join(import.meta.dirname, 'fixtures/gateway-style-crds.yaml');
const gateways = '/apis/gateway.example.io/v1/namespaces/default/gateways';
const routes = '/apis/gateway.example.io/v1/namespaces/default/httproutes';

describe('Gateway-style CRDs and their rules', needsKubectl, () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
    await kubectl(server, 'apply', '-f', manifest);
    await eventually(async () => {
      assert.equal((await server.request('GET', gateways)).status, 200);
      assert.equal((await server.request('GET', routes)).status, 200);
    });
  });
  after(() => server?.stop());

  const gateway = (name: string, listeners: unknown[], extra: Record<string, unknown> = {}) => ({
    apiVersion: 'gateway.example.io/v1', kind: 'Gateway', metadata: { name }, spec: { gatewayClassName: 'example', listeners, ...extra },
  });
  const causes = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);

  test('a valid Gateway and HTTPRoute are created, defaults filled in', async () => {
    const created = await server.request('POST', gateways, { body: gateway('web', [{ name: 'http', port: 80, protocol: 'HTTP' }, { name: 'https', port: 443, protocol: 'HTTPS', hostname: 'a.example.com', tls: { certificateRefs: [{ name: 'cert' }] } }]) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.listeners[1].tls.mode, 'Terminate');
    const route = await server.request('POST', routes, {
      body: { apiVersion: 'gateway.example.io/v1', kind: 'HTTPRoute', metadata: { name: 'r' }, spec: { parentRefs: [{ name: 'web' }], hostnames: ['a.example.com'], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] } },
    });
    assert.equal(route.status, 201, route.text);
    assert.deepEqual(route.json.spec.rules[0].matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
  });

  test('listener rules: tls on HTTP, duplicate port/protocol/hostname (a nested comprehension)', async () => {
    const res = await server.request('POST', gateways, {
      body: gateway('bad', [
        { name: 'a', port: 80, protocol: 'HTTP', tls: { mode: 'Terminate' } },
        { name: 'b', port: 80, protocol: 'HTTP' },
      ]),
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res).sort(), [
      "spec.listeners: Invalid value: Combination of port, protocol and hostname must be unique for each listener",
      "spec.listeners: Invalid value: tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']",
    ].sort());
    assert.match(res.json.message, /^Gateway\.gateway\.example\.io "bad" is invalid: \[/);
  });

  test('route rules: path values, filters with backendRefs, unique hostnames (fieldPath), a redirect without its field', async () => {
    const res = await server.request('POST', routes, {
      body: {
        apiVersion: 'gateway.example.io/v1', kind: 'HTTPRoute', metadata: { name: 'bad' },
        spec: {
          hostnames: ['a.example.com', 'a.example.com'],
          rules: [{
            matches: [{ path: { type: 'PathPrefix', value: 'no-slash' } }, { path: { type: 'Exact', value: '/a//b' } }],
            backendRefs: [{ name: 'svc', port: 80 }],
            filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'b.example.com' } }, { type: 'RequestRedirect' }],
          }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res).sort(), [
      "spec.hostnames: Invalid value: hostnames must be unique",
      "spec.rules[0]: Invalid value: RequestRedirect filter must not be used together with backendRefs",
      "spec.rules[0].filters: Invalid value: RequestRedirect filter cannot be repeated",
      "spec.rules[0].filters[1]: Invalid value: filter.requestRedirect must be specified for RequestRedirect filter.type",
      "spec.rules[0].matches[0].path: Invalid value: value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']",
      "spec.rules[0].matches[1].path: Invalid value: must not contain '//' when type one of ['Exact', 'PathPrefix']",
    ].sort());
  });

  test('a backendRef without a port is refused (a rule on list items)', async () => {
    const res = await server.request('POST', routes, {
      body: { apiVersion: 'gateway.example.io/v1', kind: 'HTTPRoute', metadata: { name: 'noport' }, spec: { rules: [{ backendRefs: [{ name: 'svc' }] }] } },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res), ['spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference']);
  });

  test('kubectl apply of an object breaking a rule prints the rule\'s message', async () => {
    const file = path.join(server.dataDir, 'bad-gateway.json');
    writeFileSync(file, JSON.stringify(gateway('web', [{ name: 'tcp', port: 9000, protocol: 'TCP', hostname: 'x.example.com' }])));
    await assert.rejects(kubectl(server, 'apply', '-f', file), /The Gateway "web" is invalid: spec\.listeners: Invalid value: hostname must not be specified for protocols \['TCP', 'UDP'\]/);
  });
});
