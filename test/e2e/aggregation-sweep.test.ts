// The aggregation layer with things going wrong, checked against kube-aggregator's words:
// an APIService whose service is missing, has no ready endpoints, or is on another port (its
// Available condition's reasons and messages); an extension server that refuses connections,
// fails TLS, hangs or answers errors (the discovery check's FailedDiscoveryCheck messages, as
// Go's HTTP client words them, and the proxy's plain-text 503s); what the extension server is
// sent (the user in X-Remote-*, the path and query as Go re-encodes them, X-Forwarded-*,
// Audit-ID) and what the caller gets back; and what discovery shows meanwhile.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { upgradeThrough } from '../helpers/raw-upgrade.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const ns = 'sweep';
let server: TestServer;
/** The front-proxy CA extension servers trust the aggregator's client certificate with. */
let frontProxyCa = '';
/** An extension server's serving material (for the services below) and another CA's. */
let material: { caPem: string; certPem: string; keyPem: string };
let otherMaterial: { caPem: string; certPem: string; keyPem: string };
const extensions: https.Server[] = [];
const held: ServerResponse[] = [];
const seen: { url: string; method: string; headers: IncomingHttpHeaders }[] = [];

/** The service names the extension servers' certificate is for (`<name>.sweep.svc`). */
const certifiedServices = ['good', 'hang', 'stuck', 'failing', 'plain', 'gone', 'swap', 'pem', 'disco', 'insecure', 'stuck-neighbour', 'dropping'];

const resourceList = (group: string) => ({
  kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`,
  resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list'] }],
});

/**
 * One extension server's answers, by the group in the path: its discovery document, an echo
 * of what it was sent for other paths, an error and a text answer; `hang`'s discovery hangs
 * for anyone but the aggregator's check, `stuck` hangs for everyone.
 */
function answer(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers });
  const pathname = (req.url ?? '').split('?')[0]!;
  const [, apis, group, version, ...rest] = pathname.split('/');
  if (apis !== 'apis' || group === undefined || version === undefined) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    return;
  }
  const isCheck = req.headers['x-remote-user'] === 'system:kube-aggregator';
  if (group === 'stuck.sweep.example' || (group === 'hang.sweep.example' && !isCheck)) {
    held.push(res);
    return;
  }
  if (rest.length === 0) {
    if (group === 'failing.sweep.example') res.writeHead(500, { 'content-type': 'application/json' }).end('{}');
    else if (group === 'plain.sweep.example') res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(resourceList(group)));
    return;
  }
  const name = rest.at(-1);
  if (name === 'fail') {
    res.writeHead(500, { 'content-type': 'application/json', 'x-backend': 'yes' }).end('{"kind":"Status","apiVersion":"v1","status":"Failure","message":"backend broke","code":500}');
  } else if (name === 'text') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
  } else {
    res.writeHead(200, {
      'content-type': 'application/json', 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET', 'access-control-allow-headers': 'X-Any',
      'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'X-Backend',
    }).end(JSON.stringify({ url: req.url, headers: req.headers }));
  }
}

/** An HTTPS extension server requiring the aggregator's front-proxy client certificate. */
async function extensionServer(handler: (req: IncomingMessage, res: ServerResponse) => void = answer): Promise<https.Server & { port: number }> {
  const ext = https.createServer({ cert: material.certPem, key: material.keyPem, ca: frontProxyCa, requestCert: true, rejectUnauthorized: true }, handler);
  ext.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    seen.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers });
    socket.on('error', () => {});
    socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
  });
  await new Promise<void>((resolve) => ext.listen(0, '127.0.0.1', resolve));
  extensions.push(ext);
  return Object.assign(ext, { port: (ext.address() as AddressInfo).port });
}

let main: https.Server & { port: number };

before(async () => {
  const dir = tempDir('plinth-sweep-');
  const policy = path.join(dir, 'audit-policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  // Longer than kube-aggregator's 5 s discovery timeout, so that one shows.
  server = await startServer({ requestTimeoutMs: 10_000, auditPolicyFile: policy, auditLogPath: path.join(dir, 'audit.log') });
  const trust = await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
  frontProxyCa = trust.json.data['requestheader-client-ca-file'];
  material = await ensureServingMaterial(tempDir('plinth-sweep-ext-'), { hosts: certifiedServices.map((s) => `${s}.${ns}.svc`) });
  otherMaterial = await ensureServingMaterial(tempDir('plinth-sweep-other-'), { hosts: certifiedServices.map((s) => `${s}.${ns}.svc`) });
  main = await extensionServer();
  const created = await server.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  assert.equal(created.status, 201, created.text);
});
after(async () => {
  for (const res of held) res.destroy();
  for (const ext of extensions) {
    ext.closeAllConnections();
    ext.close();
  }
  await server?.stop();
});

async function create(urlPath: string, body: object): Promise<void> {
  const res = await server.request('POST', urlPath, { body });
  assert.equal(res.status, 201, res.text);
}

/** An ExternalName service reaching 127.0.0.1 (which an EndpointSlice may not name) at the APIService's port. */
function externalService(name: string): Promise<void> {
  return create(`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } });
}

/** The APIService `v1.<group>` for service `sweep/<service>` at `port`, trusting the extension servers' CA unless told otherwise. */
function apiService(group: string, service: string, port: number, spec: Record<string, unknown> = { caBundle: Buffer.from(material.caPem).toString('base64') }): Promise<void> {
  return create('/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `v1.${group}` },
    spec: { group, version: 'v1', service: { namespace: ns, name: service, port }, groupPriorityMinimum: 100, versionPriority: 100, ...spec },
  });
}

interface Condition { type: string; status: string; reason: string; message: string }

async function available(group: string): Promise<Condition | undefined> {
  const res = await server.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/v1.${group}`);
  return (res.json.status?.conditions ?? []).find((c: Condition) => c.type === 'Available');
}

/** The Available condition once it has `reason` (waiting up to `timeoutMs`). */
function conditionWith(group: string, reason: string, timeoutMs?: number): Promise<Condition> {
  return eventually(async () => {
    const condition = await available(group);
    assert.equal(condition?.reason, reason, JSON.stringify(condition));
    return condition!;
  }, timeoutMs === undefined ? {} : { timeoutMs });
}

/** The APIService `v1.good.sweep.example`, made once, available. */
async function goodAvailable(): Promise<void> {
  if ((await server.request('GET', `/api/v1/namespaces/${ns}/services/good`)).status === 404) await externalService('good');
  if ((await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.good.sweep.example')).status === 404) await apiService('good.sweep.example', 'good', main.port);
  await conditionWith('good.sweep.example', 'Passed');
}

/** Upstream's proxyError: net/http's http.Error, plain text with a newline. */
function assertPlainError(res: { status: number; text: string; headers: Record<string, unknown> }, status: number, text: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.text, `${text}\n`);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
}

test('an APIService whose service is missing is ServiceNotFound; its group version answers upstream\'s plain-text 503, an upgrade too', async () => {
  await apiService('nosvc.sweep.example', 'nosvc', 443);
  const condition = await conditionWith('nosvc.sweep.example', 'ServiceNotFound');
  assert.equal(condition.status, 'False');
  assert.equal(condition.message, 'service/nosvc in "sweep" is not present');
  assertPlainError(await server.request('GET', '/apis/nosvc.sweep.example/v1/namespaces/default/things'), 503, 'service unavailable');
  assertPlainError(await server.request('GET', '/apis/nosvc.sweep.example/v1'), 503, 'service unavailable');
  const upgrade = await upgradeThrough(server, '/apis/nosvc.sweep.example/v1/namespaces/default/things/t/console', 'websocket', '', 'GET');
  assert.match(upgrade.head, /^HTTP\/1\.1 503 /);
  assert.equal(upgrade.body, 'service unavailable\n');
  upgrade.socket.destroy();
});

test('discovery keeps an unavailable APIService: listed in /apis and /apis/<group>, Stale with no resources in aggregated discovery', async () => {
  await apiService('stale.sweep.example', 'stale', 443);
  await conditionWith('stale.sweep.example', 'ServiceNotFound');
  const groups = await server.request('GET', '/apis');
  assert.deepEqual(groups.json.groups.find((g: { name: string }) => g.name === 'stale.sweep.example'), {
    name: 'stale.sweep.example', versions: [{ groupVersion: 'stale.sweep.example/v1', version: 'v1' }], preferredVersion: { groupVersion: 'stale.sweep.example/v1', version: 'v1' },
  });
  const group = await server.request('GET', '/apis/stale.sweep.example');
  assert.equal(group.status, 200);
  assert.equal(group.json.kind, 'APIGroup');
  const aggregated = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
  const item = aggregated.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'stale.sweep.example');
  assert.deepEqual(item.versions, [{ version: 'v1', freshness: 'Stale' }]);
});

test('a ClusterIP service on another port is ServicePortError; without EndpointSlices EndpointsNotFound; with none ready MissingEndpoints (upstream\'s words)', async () => {
  const service = (name: string, port: number) => create(`/api/v1/namespaces/${ns}/services`, {
    apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'https', port, targetPort: 8443 }] },
  });
  await service('wrongport', 8443);
  await apiService('wrongport.sweep.example', 'wrongport', 443);
  assert.equal((await conditionWith('wrongport.sweep.example', 'ServicePortError')).message, 'service/wrongport in "sweep" is not listening on port 443');

  await service('noslices', 443);
  await apiService('noslices.sweep.example', 'noslices', 443);
  assert.equal((await conditionWith('noslices.sweep.example', 'EndpointsNotFound')).message, 'cannot find endpointslices for service/noslices in "sweep"');
  assertPlainError(await server.request('GET', '/apis/noslices.sweep.example/v1/namespaces/default/things'), 503, 'service unavailable');

  await service('unready', 443);
  await create(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'unready-1', labels: { 'kubernetes.io/service-name': 'unready' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['10.9.9.9'], conditions: { ready: false } }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }],
  });
  await apiService('unready.sweep.example', 'unready', 443);
  const missing = await conditionWith('unready.sweep.example', 'MissingEndpoints');
  assert.equal(missing.status, 'False');
  assert.equal(missing.message, 'endpointslices for service/unready in "sweep" have no addresses with port name "https"');
});

test('an extension server refusing connections fails the discovery check in the words of Go\'s HTTP client', async () => {
  const port = await freePort();
  await externalService('refused');
  await apiService('refused.sweep.example', 'refused', port);
  const condition = await conditionWith('refused.sweep.example', 'FailedDiscoveryCheck');
  const url = `https://127.0.0.1:${port}/apis/refused.sweep.example/v1`;
  assert.equal(condition.status, 'False');
  assert.equal(condition.message, `failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  assertPlainError(await server.request('GET', '/apis/refused.sweep.example/v1/namespaces/default/things'), 503, 'service unavailable');
});

test('a failed discovery check is retried after its backoff: an extension server that starts late is Available in moments, not at the 30 s resync', async () => {
  const port = await freePort();
  await externalService('late');
  await apiService('late.sweep.example', 'late', port, { insecureSkipTLSVerify: true });
  await conditionWith('late.sweep.example', 'FailedDiscoveryCheck');
  const late = https.createServer({ cert: material.certPem, key: material.keyPem, ca: frontProxyCa, requestCert: true, rejectUnauthorized: true }, answer);
  await new Promise<void>((resolve) => late.listen(port, '127.0.0.1', resolve));
  extensions.push(late);
  assert.equal((await conditionWith('late.sweep.example', 'Passed', 5_000)).status, 'True');
});

test('an extension server whose certificate does not verify fails the discovery check in crypto/tls\'s words; insecureSkipTLSVerify passes', async () => {
  await goodAvailable();
  await externalService('wrongname');
  await externalService('insecure');
  const url = (group: string) => `https://127.0.0.1:${main.port}/apis/${group}/v1`;
  const failed = (group: string, words: string) => `failing or missing response from ${url(group)}: Get "${url(group)}": tls: failed to verify certificate: x509: ${words}`;
  // Another CA's bundle, and none at all (the system's roots).
  await apiService('badca.sweep.example', 'good', main.port, { caBundle: Buffer.from(otherMaterial.caPem).toString('base64') });
  assert.equal((await conditionWith('badca.sweep.example', 'FailedDiscoveryCheck')).message, failed('badca.sweep.example', 'certificate signed by unknown authority'));
  await apiService('noca.sweep.example', 'good', main.port, {});
  assert.equal((await conditionWith('noca.sweep.example', 'FailedDiscoveryCheck')).message, failed('noca.sweep.example', 'certificate signed by unknown authority'));
  // The certificate must name <service>.<namespace>.svc.
  await apiService('wrongname.sweep.example', 'wrongname', main.port);
  const names = new X509Certificate(material.certPem).subjectAltName!.split(', ').filter((e) => e.startsWith('DNS:')).map((e) => e.slice(4)).join(', ');
  assert.equal((await conditionWith('wrongname.sweep.example', 'FailedDiscoveryCheck')).message, failed('wrongname.sweep.example', `certificate is valid for ${names}, not wrongname.sweep.svc`));
  await apiService('insecure.sweep.example', 'insecure', main.port, { insecureSkipTLSVerify: true });
  assert.equal((await conditionWith('insecure.sweep.example', 'Passed')).status, 'True');
});

test('a caBundle that is no PEM leaves the Available condition as it was; the proxy answers client-go\'s words with a 500', async () => {
  await externalService('pem');
  await apiService('pem.sweep.example', 'pem', main.port);
  await conditionWith('pem.sweep.example', 'Passed');
  const stored = await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.pem.sweep.example');
  const updated = await server.request('PUT', '/apis/apiregistration.k8s.io/v1/apiservices/v1.pem.sweep.example', {
    body: { ...stored.json, spec: { ...stored.json.spec, caBundle: Buffer.from('not a certificate').toString('base64') } },
  });
  assert.equal(updated.status, 200, updated.text);
  await eventually(async () => assertPlainError(await server.request('GET', '/apis/pem.sweep.example/v1/namespaces/default/things/t'), 500, 'unable to load root certificates: unable to parse bytes as PEM block'));
  const condition = (await available('pem.sweep.example'))!;
  assert.equal(condition.status, 'True');
  assert.equal(condition.reason, 'Passed');
});

test('an extension server answering its discovery with an error fails the check; one answering what is not JSON passes, listed Stale', async () => {
  await externalService('failing');
  await apiService('failing.sweep.example', 'failing', main.port);
  const url = `https://127.0.0.1:${main.port}/apis/failing.sweep.example/v1`;
  assert.equal((await conditionWith('failing.sweep.example', 'FailedDiscoveryCheck')).message, `failing or missing response from ${url}: bad status from ${url}: 500`);

  await externalService('plain');
  await apiService('plain.sweep.example', 'plain', main.port);
  await conditionWith('plain.sweep.example', 'Passed');
  // kube-aggregator's discovery manager cannot decode it: the version is listed Stale, without resources.
  const aggregated = await eventually(async () => {
    const res = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const item = res.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'plain.sweep.example');
    assert.ok(item !== undefined);
    return item;
  });
  assert.deepEqual(aggregated.versions, [{ version: 'v1', freshness: 'Stale' }]);
  // Its own discovery document is passed through as it came.
  const document = await server.request('GET', '/apis/plain.sweep.example/v1');
  assert.equal(document.status, 200);
  assert.equal(document.text, 'not json');
});

test('an extension server\'s errors and answers that are not JSON reach the caller as it wrote them', async () => {
  await goodAvailable();
  const failed = await server.request('GET', '/apis/good.sweep.example/v1/namespaces/default/things/fail');
  assert.equal(failed.status, 500);
  assert.equal(failed.headers['content-type'], 'application/json');
  assert.equal(failed.headers['x-backend'], 'yes');
  assert.equal(failed.text, '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"backend broke","code":500}');
  const text = await server.request('GET', '/apis/good.sweep.example/v1/namespaces/default/things/text');
  assert.equal(text.status, 200);
  assert.equal(text.headers['content-type'], 'text/plain');
  assert.equal(text.text, 'plain words');
});

test('the extension server is sent the user in X-Remote-* (extra keys escaped as client-go escapes them), X-Forwarded-*, the Audit-ID; not the caller\'s credentials', async () => {
  await goodAvailable();
  const res = await server.request('GET', '/apis/good.sweep.example/v1/namespaces/default/things/echo', {
    headers: {
      'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters', 'Impersonate-Extra-x!y*z%2Fw': 'one',
      'X-Remote-User': 'mallory', 'X-Remote-Extra-Stolen': 'no', 'X-Remote-Note': 'kept', 'Proxy-Note': 'kept', 'X-Forwarded-For': '10.1.1.1',
    },
  });
  assert.equal(res.status, 200, res.text);
  const sent = res.json.headers as Record<string, string>;
  assert.equal(sent['x-remote-user'], 'alice');
  assert.equal(sent['x-remote-group'], 'system:masters, system:authenticated');
  assert.equal(sent['x-remote-extra-x!y*z%2fw'], 'one');
  assert.equal(sent['x-remote-extra-stolen'], undefined);
  assert.equal(sent.authorization, undefined);
  assert.deepEqual(Object.keys(sent).filter((h) => h.startsWith('impersonate-')), []);
  // Headers that are not the user's are passed on.
  assert.equal(sent['x-remote-note'], 'kept');
  assert.equal(sent['proxy-note'], 'kept');
  // Go's reverse proxy and apimachinery's proxy transport.
  assert.equal(sent['x-forwarded-for'], '10.1.1.1, 127.0.0.1');
  assert.equal(sent['x-forwarded-proto'], 'https');
  assert.equal(sent['x-forwarded-host'], `127.0.0.1:${main.port}`);
  assert.equal(sent['x-forwarded-uri'], '/apis/good.sweep.example/v1/namespaces/default/things/echo');
  assert.equal(sent.host, `127.0.0.1:${main.port}`);
  // The audit ID of the request, as kube-aggregator propagates it.
  assert.ok(typeof res.headers['audit-id'] === 'string' && res.headers['audit-id'] !== '');
  assert.equal(sent['audit-id'], res.headers['audit-id']);
});

test('the extension server\'s CORS headers are removed from its answer, as apimachinery\'s proxy transport removes them', async () => {
  await goodAvailable();
  const res = await server.request('GET', '/apis/good.sweep.example/v1/namespaces/default/things/echo');
  assert.equal(res.status, 200);
  for (const name of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-allow-credentials']) assert.equal(res.headers[name], undefined, name);
  assert.equal(res.headers['access-control-expose-headers'], 'X-Backend');
});

test('the path and query reach the extension server as Go re-encodes them (url.Values.Encode: sorted, malformed pairs dropped)', async () => {
  await goodAvailable();
  const res = await server.request('GET', '/apis/good.sweep.example/v1/namespaces/default/things/x(1)%7E?b=2&a=1&a=0&sel=x%20in%20(p,q)&flag&bad=%zz&semi=1;2');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.url, '/apis/good.sweep.example/v1/namespaces/default/things/x%281%29~?a=1&a=0&b=2&flag=&sel=x+in+%28p%2Cq%29');
  // An upgrade is sent there the same way.
  const before = seen.length;
  const upgrade = await upgradeThrough(server, '/apis/good.sweep.example/v1/namespaces/default/things/x(1)/console?z=1&y=2', 'websocket', '', 'GET');
  assert.match(upgrade.head, /^HTTP\/1\.1 101 /);
  upgrade.socket.destroy();
  assert.ok(seen.slice(before).some((s) => s.url === '/apis/good.sweep.example/v1/namespaces/default/things/x%281%29/console?y=2&z=1'), JSON.stringify(seen.slice(before).map((s) => s.url)));
});

test('once available, an extension server gone answers 503 "error trying to reach service", an upgrade "error dialing backend"', async () => {
  const gone = await extensionServer();
  await externalService('gone');
  await apiService('gone.sweep.example', 'gone', gone.port);
  await conditionWith('gone.sweep.example', 'Passed');
  gone.closeAllConnections();
  await new Promise((resolve) => gone.close(resolve));
  assertPlainError(await server.request('GET', '/apis/gone.sweep.example/v1/namespaces/default/things'), 503, `error trying to reach service: dial tcp 127.0.0.1:${gone.port}: connect: connection refused`);
  const upgrade = await upgradeThrough(server, '/apis/gone.sweep.example/v1/namespaces/default/things/t/console', 'websocket', '', 'GET');
  assert.match(upgrade.head, /^HTTP\/1\.1 503 /);
  assert.equal(upgrade.body, `error dialing backend: dial tcp 127.0.0.1:${gone.port}: connect: connection refused\n`);
  upgrade.socket.destroy();
});

test('a kept-alive connection the extension server drops as a request arrives on it is no error of the caller\'s: a request without a body is sent again on a new one, as Go\'s transport does', async () => {
  // The server drops the next request that arrives on a connection it has answered on before.
  const served = new WeakSet<Socket>();
  let dropNext = false;
  let dropped = 0;
  const dropping = await extensionServer((req, res) => {
    const things = (req.url ?? '').startsWith('/apis/dropping.sweep.example/v1/namespaces/default/things');
    if (things && dropNext && served.has(req.socket)) {
      dropNext = false;
      dropped++;
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    answer(req, res);
  });
  await externalService('dropping');
  await apiService('dropping.sweep.example', 'dropping', dropping.port);
  await conditionWith('dropping.sweep.example', 'Passed');
  const things = '/apis/dropping.sweep.example/v1/namespaces/default/things';
  for (let i = 0; i < 20 && dropped === 0; i++) {
    dropNext = true;
    const res = await server.request('GET', things);
    assert.equal(res.status, 200, res.text);
  }
  assert.equal(dropped, 1, 'a request arrived on a kept-alive connection');
  // A request with a body is not sent twice: the caller hears of the reset.
  let refused = false;
  for (let i = 0; i < 20 && !refused; i++) {
    dropNext = true;
    const before = dropped;
    const res = await server.request('POST', things, { body: { kind: 'Thing' } });
    if (dropped > before) {
      assert.equal(res.status, 503, res.text);
      assert.match(res.text, /^error trying to reach service: /);
      refused = true;
    }
  }
  assert.ok(refused, 'a POST arrived on a kept-alive connection');
});

test('once available, an extension server whose certificate no longer verifies answers 503 "error trying to reach service" in crypto/tls\'s words', async () => {
  const swap = await extensionServer();
  await externalService('swap');
  await apiService('swap.sweep.example', 'swap', swap.port);
  await conditionWith('swap.sweep.example', 'Passed');
  swap.setSecureContext({ cert: otherMaterial.certPem, key: otherMaterial.keyPem, ca: frontProxyCa });
  swap.closeAllConnections();
  assertPlainError(
    await server.request('GET', '/apis/swap.sweep.example/v1/namespaces/default/things'), 503,
    'error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority',
  );
});

test('aggregated discovery as kube-aggregator\'s discovery manager merges it: the extension server\'s entry Current, a version it does not list Current without resources', async () => {
  const disco = await extensionServer((req, res) => {
    seen.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers });
    const pathname = (req.url ?? '').split('?')[0];
    if (pathname === '/apis' && (req.headers.accept ?? '').includes('as=APIGroupDiscoveryList')) {
      res.writeHead(200, { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }).end(JSON.stringify({
        kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {},
        items: [{
          metadata: { name: 'own.sweep.example' },
          versions: [{ version: 'v1', freshness: 'Stale', resources: [{ resource: 'things', responseKind: { group: '', version: '', kind: 'Thing' }, scope: 'Namespaced', singularResource: 'thing', verbs: ['get'] }] }],
        }],
      }));
    } else if (pathname === '/apis/own.sweep.example/v1' || pathname === '/apis/absent.sweep.example/v1') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(resourceList(pathname.split('/')[2]!)));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    }
  });
  await externalService('disco');
  await apiService('own.sweep.example', 'disco', disco.port);
  await apiService('absent.sweep.example', 'disco', disco.port);
  await conditionWith('own.sweep.example', 'Passed');
  await conditionWith('absent.sweep.example', 'Passed');
  const versions = await eventually(async () => {
    const res = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const of = (group: string) => res.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === group)?.versions;
    assert.ok(of('own.sweep.example') !== undefined && of('absent.sweep.example') !== undefined);
    return { own: of('own.sweep.example'), absent: of('absent.sweep.example') };
  });
  assert.deepEqual(versions.own, [{
    version: 'v1', resources: [{ resource: 'things', responseKind: { group: '', version: '', kind: 'Thing' }, scope: 'Namespaced', singularResource: 'thing', verbs: ['get'] }], freshness: 'Current',
  }]);
  assert.deepEqual(versions.absent, [{ version: 'v1', freshness: 'Current' }]);
});

test('hangs: a discovery request is cut at kube-aggregator\'s 5 s (503), a discovery check at its client\'s 5 s (FailedDiscoveryCheck), neither holding up another APIService', async () => {
  await externalService('hang');
  await externalService('stuck');
  await externalService('stuck-neighbour');
  await apiService('hang.sweep.example', 'hang', main.port);
  await conditionWith('hang.sweep.example', 'Passed');
  await apiService('stuck.sweep.example', 'stuck', main.port);
  const started = performance.now();
  const cut = server.request('GET', '/apis/hang.sweep.example/v1');
  // Another APIService is checked meanwhile.
  await apiService('neighbour.sweep.example', 'stuck-neighbour', main.port);
  await conditionWith('neighbour.sweep.example', 'Passed', 4_000);
  const url = `https://127.0.0.1:${main.port}/apis/stuck.sweep.example/v1`;
  const stuck = await conditionWith('stuck.sweep.example', 'FailedDiscoveryCheck', 15_000);
  assert.equal(stuck.message, `failing or missing response from ${url}: Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
  const res = await cut;
  assertPlainError(res, 503, 'error trying to reach service: context deadline exceeded');
  const took = performance.now() - started;
  assert.ok(took >= 4_900 && took < 9_000, `took ${took} ms`);
});
