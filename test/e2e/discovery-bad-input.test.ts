// Bad input to discovery, OpenAPI, health and APIServices, answered as kube-apiserver v1.36
// answers it: which handler serves a path decides its 404 and 406 words (go-restful's
// routes, plain handlers, the notfoundhandler at the end of the delegation chain), kube-openapi's
// handlers answer bare 404/406/301s and Go's ServeContent conditionals, the healthz package
// registers exact paths only, and kube-aggregator's ValidateAPIService checks every field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const v2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const served = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';
/** go-restful's own 406 (jsr311.go detectRoute), through kube-apiserver's serviceErrorHandler. */
const restful406 = { message: `406: Not Acceptable\n\nAvailable representations: ${served}`, reason: 'NotAcceptable', details: {}, code: 406 };
/** The negotiation 406 of a handler (negotiation.NewNotAcceptableError). */
const handler406 = { message: `only the following media types are accepted: ${served}`, reason: 'NotAcceptable', code: 406 };
/** go-restful's 404 for a path under a web service it has (NewGenericServerResponse: empty details). */
const restful404 = { message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };
/** The notfoundhandler at the end of the delegation chain: in v1.36 net/http's NotFound, plain text. */
const chainEnd404 = { code: 404, text: '404 page not found\n' };

function statusOf(json: any): Record<string, unknown> {
  const { message, reason, details, code } = json;
  return details === undefined ? { message, reason, code } : { message, reason, details, code };
}

/** The answer as the table's `want` spells it: the Status's fields, or the chain end's plain text. */
function answerOf(res: { status: number; text: string; json: any; headers: Record<string, unknown> }, want: Record<string, unknown>): Record<string, unknown> {
  if (want === chainEnd404) {
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    return { code: res.status, text: res.text };
  }
  assert.equal(res.headers['content-type'], 'application/json');
  return statusOf(res.json);
}

describe('discovery refuses as the handler serving the path does', () => {
  const cases: { name: string; path: string; accept?: string; want: Record<string, unknown> }[] = [
    { name: '/api is a go-restful route: an Accept naming nothing it produces is go-restful\'s 406', path: '/api', accept: 'text/html', want: restful406 },
    { name: '/api/v1 is a go-restful route', path: '/api/v1', accept: 'text/html', want: restful406 },
    { name: 'a built-in group version is a go-restful route', path: '/apis/apps/v1', accept: 'text/html', want: restful406 },
    { name: '/apis is the aggregator\'s handler: its negotiation 406', path: '/apis', accept: 'text/html', want: handler406 },
    { name: '/apis/{group} is the aggregator\'s group handler: its negotiation 406', path: '/apis/apps', accept: 'text/html', want: handler406 },
    { name: 'an entry go-restful takes (application/json) but the handler cannot serve: the handler\'s 406', path: '/api', accept: v2beta1, want: handler406 },
    { name: 'aggregated v2beta1 alone on /apis: passed over, nothing left', path: '/apis', accept: v2beta1, want: handler406 },
    { name: 'an unknown version of a built-in group is go-restful\'s 404, before any 406', path: '/apis/apps/v9', accept: 'text/html', want: restful404 },
    { name: 'an unknown version of the core group is go-restful\'s 404', path: '/api/v9', want: restful404 },
    { name: 'an unknown group reaches the notfoundhandler: net/http\'s plain-text 404, before any 406', path: '/apis/nope', accept: 'text/html', want: chainEnd404 },
    { name: 'an unknown group\'s version reaches the notfoundhandler', path: '/apis/nope/v1', want: chainEnd404 },
    { name: 'a trailing slash on an unknown group is the same path to it', path: '/apis/nope/', want: chainEnd404 },
    { name: 'an unknown built-in version keeps go-restful\'s 404 without any Accept', path: '/apis/apps/v9', want: restful404 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const res = await server.request('GET', c.path, c.accept === undefined ? {} : { headers: { accept: c.accept } });
      assert.equal(res.status, c.want.code, res.text);
      assert.deepEqual(answerOf(res, c.want), c.want);
    });
  }

  test('aggregated discovery\'s ETag is upstream\'s: the full SHA-512 of the list without its TypeMeta', async () => {
    const res = await server.request('GET', '/apis', { headers: { accept: v2 } });
    const { metadata, items } = res.json;
    const want = `"${createHash('sha512').update(JSON.stringify({ metadata, items })).digest('hex').toUpperCase()}"`;
    assert.equal(res.headers.etag, want);
    assert.match(String(res.headers.etag), /^"[0-9A-F]{128}"$/);
  });

  test('an APIService whose service was never read is listed Stale, with no resources', async () => {
    const name = 'v1.stale.example.com';
    const created = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec: { group: 'stale.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: 'default', name: 'nothing-here' } } },
    });
    assert.equal(created.status, 201, created.text);
    try {
      const item = await eventually(async () => {
        const list = await server.request('GET', '/apis', { headers: { accept: v2 } });
        const found = list.json.items.find((i: any) => i.metadata.name === 'stale.example.com');
        assert.ok(found);
        return found;
      });
      assert.deepEqual(item.versions, [{ version: 'v1', freshness: 'Stale' }]);
    } finally {
      await server.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    }
  });
});

describe('OpenAPI answers as kube-openapi and kube-aggregator do', () => {
  let appsHash = '';
  before(async () => {
    const index = await server.request('GET', '/openapi/v3');
    appsHash = /hash=([0-9A-F]+)/.exec(index.json.paths['apis/apps/v1'].serverRelativeURL)![1]!;
  });

  const bare = (res: { status: number; text: string; headers: Record<string, unknown> }) => [res.status, res.text, res.headers['content-type'], res.headers['content-length']];

  const cases: { name: string; path: string; headers?: Record<string, string>; status: number; contentType?: string; body?: string; vary?: string }[] = [
    { name: 'a group version no document has: the aggregator\'s bare 404', path: '/openapi/v3/apis/nope/v1', status: 404, body: '' },
    { name: 'a path that is no group version: the bare 404', path: '/openapi/v3/unknown', status: 404, body: '' },
    { name: '/openapi/v3/ is the prefix handler\'s, with an empty group version: the bare 404', path: '/openapi/v3/', status: 404, body: '' },
    { name: 'a trailing slash is another path: the bare 404', path: '/openapi/v3/apis/apps/v1/', status: 404, body: '' },
    { name: 'an Accept naming nothing handler3 serves: its bare 406', path: '/openapi/v3/apis/apps/v1', headers: { accept: 'text/html' }, status: 406, body: '', vary: 'Accept' },
    { name: 'an Accept with no media range at all: handler3 returns before writing, an empty 200', path: '/openapi/v3/apis/apps/v1', headers: { accept: 'garbage' }, status: 200, body: '', vary: 'Accept' },
    { name: 'application/* is JSON to handler3', path: '/openapi/v3/apis/apps/v1', headers: { accept: 'application/*' }, status: 200, contentType: 'application/json', vary: 'Accept' },
    { name: '/openapi/v2 with an Accept naming nothing it serves: the bare 406', path: '/openapi/v2', headers: { accept: 'text/html' }, status: 406, body: '', vary: 'Accept' },
    { name: 'application/* is JSON to /openapi/v2', path: '/openapi/v2', headers: { accept: 'application/*' }, status: 200, contentType: 'application/json', vary: 'Accept' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const res = await server.request('GET', c.path, { headers: c.headers ?? {} });
      assert.equal(res.status, c.status, res.text.slice(0, 200));
      if (c.body !== undefined) assert.deepEqual(bare(res), [c.status, '', undefined, '0']);
      if (c.contentType !== undefined) assert.equal(res.headers['content-type'], c.contentType);
      assert.equal(res.headers.vary, c.vary);
      assert.equal(res.headers['cache-control'], 'no-cache, private');
    });
  }

  test('a stale ?hash= is redirected (301) to the current one, with no body', async () => {
    const res = await server.request('GET', '/openapi/v3/apis/apps/v1?hash=WRONG');
    assert.equal(res.status, 301);
    assert.equal(res.headers.location, `/openapi/v3/apis/apps/v1?hash=${appsHash}`);
    assert.equal(res.headers.etag, `"${appsHash}"`);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers.vary, 'Accept');
    assert.equal(res.headers['cache-control'], 'no-cache, private');
    assert.equal(res.text, '');
  });

  test('the current ?hash= is immutable for a year: Cache-Control, Expires, Last-Modified', async () => {
    const res = await server.request('GET', `/openapi/v3/apis/apps/v1?hash=${appsHash}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'public, immutable');
    const expires = String(res.headers.expires);
    assert.match(expires, / UTC$/);
    assert.ok(Date.parse(expires.replace(/UTC$/, 'GMT')) > Date.now() + 364 * 86_400_000, expires);
    assert.ok(res.headers['last-modified']);
    assert.equal(res.headers['accept-ranges'], 'bytes');
  });

  test('conditional requests as Go\'s ServeContent: If-None-Match lists, weak tags and *, If-Match, If-Modified-Since', async () => {
    const path = '/openapi/v3/apis/apps/v1';
    const etag = `"${appsHash}"`;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await server.request('GET', path, { headers: { 'if-none-match': inm } });
      assert.equal(res.status, 304, inm);
      assert.equal(res.headers.etag, etag);
      assert.equal(res.headers['content-type'], undefined);
      assert.equal(res.headers['last-modified'], undefined, 'left out beside an ETag');
    }
    assert.equal((await server.request('GET', path, { headers: { 'if-none-match': '"other"' } })).status, 200);
    assert.equal((await server.request('GET', path, { headers: { 'if-match': '"other"' } })).status, 412);
    assert.equal((await server.request('GET', path, { headers: { 'if-match': etag } })).status, 200);
    const future = new Date(Date.now() + 3_600_000).toUTCString();
    assert.equal((await server.request('GET', path, { headers: { 'if-modified-since': future } })).status, 304);
    const v2 = await server.request('GET', '/openapi/v2');
    assert.equal((await server.request('GET', '/openapi/v2', { headers: { 'if-none-match': `W/${v2.headers.etag}` } })).status, 304);
  });

  test('the v3 index: sniffed as text by ServeContent, its paths sorted as Go marshals a map, no ETag', async () => {
    const res = await server.request('GET', '/openapi/v3');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.headers.etag, undefined);
    assert.ok(res.headers['last-modified']);
    const keys = Object.keys(res.json.paths);
    assert.deepEqual(keys, [...keys].sort());
  });

  test('documents name the Kubernetes release served in info.version', async () => {
    const index = await server.request('GET', '/openapi/v3');
    const doc = await server.request('GET', index.json.paths['api/v1'].serverRelativeURL);
    assert.equal(doc.json.info.version, 'v1.36.0');
    assert.equal((await server.request('GET', '/openapi/v2')).json.info.version, 'v1.36.0');
  });

  for (const path of ['/openapi/v2/', '/openapi', '/openapi/v1']) {
    test(`${path} is registered by nothing: the notfoundhandler's plain-text 404`, async () => {
      const res = await server.request('GET', path);
      assert.equal(res.status, 404);
      assert.deepEqual(answerOf(res, chainEnd404), chainEnd404);
    });
  }
});

describe('health endpoints register exact paths', () => {
  const cases: { name: string; path: string; status: number; body?: string; nosniff?: boolean; notFound?: boolean }[] = [
    { name: 'a trailing slash is no registered path', path: '/healthz/', status: 404, notFound: true },
    { name: 'an unknown check name', path: '/healthz/unknown-check', status: 404, notFound: true },
    { name: 'a path under a check', path: '/livez/ping/x', status: 404, notFound: true },
    { name: 'a check\'s own handler ignores verbose: ok, without nosniff', path: '/livez/ping?verbose', status: 200, body: 'ok', nosniff: false },
    { name: 'a check\'s own handler ignores exclude', path: '/readyz/ping?exclude=ping&verbose', status: 200, body: 'ok', nosniff: false },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const res = await server.request('GET', c.path);
      assert.equal(res.status, c.status, res.text);
      if (c.notFound) assert.deepEqual(answerOf(res, chainEnd404), chainEnd404);
      if (c.body !== undefined) assert.equal(res.text, c.body);
      if (c.nosniff !== undefined) assert.equal(res.headers['x-content-type-options'], c.nosniff ? 'nosniff' : undefined);
    });
  }

  test('unmatched excludes are listed sorted and %q-quoted', async () => {
    const verbose = (await server.request('GET', '/readyz?verbose')).text;
    const res = await server.request('GET', '/readyz?exclude=zz&exclude=aa&exclude=ping&exclude=%01&verbose');
    assert.equal(res.status, 200, res.text);
    const warning = 'warn: some health checks cannot be excluded: no matches for "\\x01","aa","zz"\n';
    assert.equal(res.text, verbose.replace('[+]ping ok\n', '[+]ping excluded: ok\n').replace('readyz check passed\n', `${warning}readyz check passed\n`));
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });
});

describe('APIServices are validated as kube-aggregator\'s ValidateAPIService', () => {
  const spec = { group: 'a.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 };
  const service = { namespace: 'default', name: 's' };
  const cases: { name: string; metaName?: string; spec: Record<string, unknown>; causes: [string, string][] }[] = [
    { name: 'groupPriorityMinimum 0', spec: { ...spec, groupPriorityMinimum: 0 }, causes: [['spec.groupPriorityMinimum', 'Invalid value: 0: must be positive and less than 20000']] },
    { name: 'groupPriorityMinimum above 20000', spec: { ...spec, groupPriorityMinimum: 20001 }, causes: [['spec.groupPriorityMinimum', 'Invalid value: 20001: must be positive and less than 20000']] },
    { name: 'versionPriority 0', spec: { ...spec, versionPriority: 0 }, causes: [['spec.versionPriority', 'Invalid value: 0: must be positive and less than 1000']] },
    {
      name: 'priorities left out are Go\'s zero int32s',
      spec: { group: 'a.example.com', version: 'v1' },
      causes: [['spec.groupPriorityMinimum', 'Invalid value: 0: must be positive and less than 20000'], ['spec.versionPriority', 'Invalid value: 0: must be positive and less than 1000']],
    },
    { name: 'a service port of 0', spec: { ...spec, service: { ...service, port: 0 } }, causes: [['spec.service.port', 'Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive']] },
    { name: 'a service port above 65535', spec: { ...spec, service: { ...service, port: 70000 } }, causes: [['spec.service.port', 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive']] },
    { name: 'insecureSkipTLSVerify with a caBundle', spec: { ...spec, service, caBundle: 'YWJj', insecureSkipTLSVerify: true }, causes: [['spec.insecureSkipTLSVerify', 'Invalid value: true: may not be true if caBundle is present']] },
    {
      name: 'a local APIService with a caBundle and insecureSkipTLSVerify',
      spec: { ...spec, caBundle: 'YWJj', insecureSkipTLSVerify: true },
      causes: [['spec.caBundle', 'Invalid value: "3 bytes": local APIServices may not have a caBundle'], ['spec.insecureSkipTLSVerify', 'Invalid value: true: local APIServices may not have insecureSkipTLSVerify']],
    },
    { name: 'a service without namespace or name', spec: { ...spec, service: {} }, causes: [['spec.service.namespace', 'Required value'], ['spec.service.name', 'Required value']] },
    { name: 'an empty group beside a version other than v1', metaName: 'v2.', spec: { ...spec, group: '', version: 'v2' }, causes: [['spec.group', 'Required value: only v1 may have an empty group and it better be legacy kube']] },
    {
      name: 'a group that is no DNS subdomain and a version that is no DNS-1035 label',
      metaName: 'V1.A_b',
      spec: { ...spec, group: 'A_b', version: 'V1' },
      causes: [
        ['spec.group', 'Invalid value: "A_b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
        ['spec.version', 'Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')'],
      ],
    },
    { name: 'a name other than version.group', metaName: 'v2.a.example.com', spec, causes: [['metadata.name', 'Invalid value: "v2.a.example.com": must be `spec.version+"."+spec.group`: "v1.a.example.com"']] },
  ];
  for (const c of cases) {
    test(`${c.name}: 422`, async () => {
      const body = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: c.metaName ?? 'v1.a.example.com' }, spec: c.spec };
      const res = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices?dryRun=All', { body });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json.details.causes.map((cause: any) => [cause.field, cause.message]), c.causes);
    });
  }

  test('a created local APIService is available at once, has no generation; a service port defaults to 443', async () => {
    const local = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices?dryRun=All', {
      body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.a.example.com' }, spec, status: { conditions: [{ type: 'Available', status: 'False' }] } },
    });
    assert.equal(local.status, 201, local.text);
    assert.equal(local.json.metadata.generation, undefined);
    const [condition] = local.json.status.conditions;
    assert.deepEqual({ ...condition, lastTransitionTime: undefined }, { type: 'Available', status: 'True', lastTransitionTime: undefined, reason: 'Local', message: 'Local APIServices are always available' });
    const remote = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices?dryRun=All', {
      body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.a.example.com' }, spec: { ...spec, service } },
    });
    assert.equal(remote.status, 201, remote.text);
    assert.deepEqual(remote.json.status, {});
    assert.equal(remote.json.spec.service.port, 443);
  });

  test('a status write keeps the spec and the labels; a condition status must be True, False or Unknown', async () => {
    const name = 'v1.status.example.com';
    const created = await server.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, labels: { a: 'b' } }, spec: { ...spec, group: 'status.example.com' } },
    });
    assert.equal(created.status, 201, created.text);
    try {
      const bad = await server.request('PUT', `/apis/apiregistration.k8s.io/v1/apiservices/${name}/status`, {
        body: { ...created.json, status: { conditions: [{ type: 'Available', status: 'Maybe' }] } },
      });
      assert.equal(bad.status, 422, bad.text);
      assert.deepEqual(bad.json.details.causes.map((cause: any) => [cause.field, cause.message]), [['status.conditions[0].status', 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']]);
      const changed = await server.request('PUT', `/apis/apiregistration.k8s.io/v1/apiservices/${name}/status`, {
        body: { ...created.json, metadata: { ...created.json.metadata, labels: { c: 'd' } }, spec: { ...created.json.spec, versionPriority: 99 } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.json.metadata.labels, { a: 'b' });
      assert.equal(changed.json.spec.versionPriority, 10);
    } finally {
      await server.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    }
  });
});
