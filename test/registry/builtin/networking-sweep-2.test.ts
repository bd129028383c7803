// Bad input, second pass, against a running server: networking.k8s.io/v1 IPAddresses and
// ServiceCIDRs (pkg/apis/networking/validation's ValidateIPAddress and ValidateServiceCIDR,
// pkg/registry/networking/{ipaddress,servicecidr}/strategy.go) and an Ingress's empty rules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

const networking = '/apis/networking.k8s.io/v1';
const ref = { resource: 'services', namespace: 'default', name: 'web' };
const ipAddress = (name: string, spec: object) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name }, spec });
const serviceCIDR = (name: string, spec: object, status?: object) =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec, ...(status ? { status } : {}) });
const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'R', message: 'm' };

/** `field: message` of each cause, in order. */
function causes(res: { json: any }): string[] {
  return (res.json?.details?.causes ?? []).map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
}

describe('networking sweep, second pass', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  describe('IPAddress', () => {
    const cases: [string, string, object, string[]][] = [
      ['a name that is no IP address', 'foo', { parentRef: ref }, ['metadata.name: Invalid value: "foo": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
      ['an IPv6 name not in canonical form', '2001:db8:0::1', { parentRef: ref }, ['metadata.name: Invalid value: "2001:db8:0::1": must be in canonical form ("2001:db8::1")']],
      ['an IPv4-mapped IPv6 name', '::ffff:1.2.3.4', { parentRef: ref }, ['metadata.name: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address']],
      ['a name with leading zeros', '010.1.1.1', { parentRef: ref }, ['metadata.name: Invalid value: "010.1.1.1": must not have leading 0s']],
      ['a parent reference of bad parts', '10.0.0.7', { parentRef: { group: 'Bad_G', resource: 'a/b', name: '..', namespace: '%x' } }, [
        "spec.parentRef.group: Invalid value: \"Bad_G\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.parentRef.resource: Invalid value: \"a/b\": may not contain '/'",
        "spec.parentRef.name: Invalid value: \"..\": may not be '..'",
        "spec.parentRef.namespace: Invalid value: \"%x\": may not contain '%'",
      ]],
    ];
    for (const [name, ipName, spec, want] of cases) {
      test(`POST with ${name} answers 422`, async () => {
        const res = await server.request('POST', `${networking}/ipaddresses`, { body: ipAddress(ipName, spec) });
        assert.equal(res.status, 422, res.text);
        assert.equal(res.json.reason, 'Invalid');
        assert.deepEqual(causes(res), want);
      });
    }

    // The name rule is ValidateObjectMeta's (ValidateIPAddressName): its causes come before
    // the labels', and the path-segment check BeforeCreate runs after a valid strategy adds
    // none, since no IP address fails it.
    const notAnIP = (field: string, value: string) => `${field}: Invalid value: ${JSON.stringify(value)}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`;
    const metaCases: [string, object, string[]][] = [
      ["a name '.'", { name: '.' }, [notAnIP('metadata.name', '.')]],
      ["a name '..'", { name: '..' }, [notAnIP('metadata.name', '..')]],
      ["a name with '/' and '%'", { name: '10.0.0.1/8%x' }, [notAnIP('metadata.name', '10.0.0.1/8%x')]],
      ['a bad name and a bad label', { name: 'foo', labels: { 'a b': 'x' } }, [
        notAnIP('metadata.name', 'foo'),
        "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ]],
    ];
    for (const [name, metadata, want] of metaCases) {
      test(`POST with ${name} answers 422 with ValidateObjectMeta's causes`, async () => {
        const body = { ...ipAddress('', { parentRef: ref }), metadata };
        const res = await server.request('POST', `${networking}/ipaddresses`, { body });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(causes(res), want);
      });
    }

    test('a generateName is checked as a whole IP address, on create and on update', async () => {
      const generated = await server.request('POST', `${networking}/ipaddresses`, { body: { ...ipAddress('', { parentRef: ref }), metadata: { generateName: 'ip-' } } });
      assert.equal(generated.status, 422, generated.text);
      assert.equal(causes(generated)[0], notAnIP('metadata.generateName', 'ip-'));
      assert.deepEqual(generated.json.details.causes.map((c: { field: string }) => c.field), ['metadata.generateName', 'metadata.name']);
      // The name generated is the generateName itself (upstream's noopNameGenerator), not it and a suffix.
      assert.match(generated.json.details.causes[1].message, /^Invalid value: "ip-": /);
      const fromPrefix = await server.request('POST', `${networking}/ipaddresses`, { body: { ...ipAddress('', { parentRef: ref }), metadata: { generateName: '10.0.0.9' } } });
      assert.equal(fromPrefix.status, 201, fromPrefix.text);
      assert.equal(fromPrefix.json.metadata.name, '10.0.0.9');
      const again = await server.request('POST', `${networking}/ipaddresses`, { body: { ...ipAddress('', { parentRef: ref }), metadata: { generateName: '10.0.0.9' } } });
      assert.equal(again.status, 409, again.text);
      assert.match(again.json.message, /the server was not able to generate a unique name for the object/);

      const created = await server.request('POST', `${networking}/ipaddresses`, { body: ipAddress('10.0.0.8', { parentRef: ref }) });
      assert.equal(created.status, 201, created.text);
      const renamed = { ...created.json, metadata: { ...created.json.metadata, generateName: 'ip-' } };
      const updated = await server.request('PUT', `${networking}/ipaddresses/10.0.0.8`, { body: renamed });
      assert.equal(updated.status, 422, updated.text);
      assert.deepEqual(causes(updated), [notAnIP('metadata.generateName', 'ip-')]);
    });

    test('an IPv6 address in canonical form is a valid name; its parent stays', async () => {
      const created = await server.request('POST', `${networking}/ipaddresses`, { body: ipAddress('2001:db8::7', { parentRef: ref }) });
      assert.equal(created.status, 201, created.text);
      const moved = await server.request('PUT', `${networking}/ipaddresses/2001:db8::7`, { body: ipAddress('2001:db8::7', { parentRef: { ...ref, name: 'other' } }) });
      assert.equal(moved.status, 422, moved.text);
      assert.deepEqual(causes(moved), ['spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"default","Name":"other"}: field is immutable']);
    });
  });

  describe('ServiceCIDR', () => {
    const cases: [string, object, string[]][] = [
      ['no CIDRs', {}, ['spec.cidrs: Required value: at least one CIDR required']],
      ['three CIDRs', { cidrs: ['10.0.0.0/8', 'bad', 'fd00::/64'] }, ['spec.cidrs: Invalid value: {"CIDRs":["10.0.0.0/8","bad","fd00::/64"]}: may only hold up to 2 values']],
      ['CIDRs not in canonical form', { cidrs: ['10.0.0.1/8', '2001:DB8::/64'] }, [
        'spec.cidrs[0]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
        'spec.cidrs[1]: Invalid value: "2001:DB8::/64": must be in canonical form ("2001:db8::/64")',
      ]],
      ['two CIDRs of one family', { cidrs: ['10.0.0.0/8', '192.168.0.0/16'] }, [
        'spec.cidrs: Invalid value: ["10.0.0.0/8","192.168.0.0/16"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
      ]],
    ];
    for (const [name, spec, want] of cases) {
      test(`POST with ${name} answers 422`, async () => {
        const res = await server.request('POST', `${networking}/servicecidrs`, { body: serviceCIDR('bad', spec) });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(causes(res), want);
      });
    }

    test('create and update keep the status sent, and count no generation', async () => {
      const created = await server.request('POST', `${networking}/servicecidrs`, { body: serviceCIDR('kept', { cidrs: ['10.10.0.0/24'] }, { conditions: [ready] }) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.metadata.generation, undefined);
      assert.deepEqual(created.json.status, { conditions: [ready] });
      const updated = await server.request('PUT', `${networking}/servicecidrs/kept`, { body: serviceCIDR('kept', { cidrs: ['10.10.0.0/24'] }, { conditions: [{ ...ready, status: 'False' }] }) });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.status.conditions[0].status, 'False');
      // A status write keeps the stored spec and metadata (ResetObjectMetaForStatus).
      const body = serviceCIDR('kept', { cidrs: ['10.11.0.0/24'] }, { conditions: [ready] });
      const status = await server.request('PUT', `${networking}/servicecidrs/kept/status`, { body: { ...body, metadata: { name: 'kept', labels: { a: 'b' } } } });
      assert.equal(status.status, 200, status.text);
      assert.deepEqual(status.json.spec, { cidrs: ['10.10.0.0/24'] });
      assert.equal(status.json.metadata.labels, undefined);
    });

    test('an update may not change the CIDRs, only add the other family to a single one', async () => {
      const created = await server.request('POST', `${networking}/servicecidrs`, { body: serviceCIDR('fixed', { cidrs: ['10.20.0.0/24'] }) });
      assert.equal(created.status, 201, created.text);
      const put = (spec: object) => server.request('PUT', `${networking}/servicecidrs/fixed`, { body: serviceCIDR('fixed', spec) });
      assert.deepEqual(causes(await put({ cidrs: ['10.21.0.0/24'] })), ['spec.cidrs[0]: Invalid value: "10.21.0.0/24": field is immutable']);
      assert.deepEqual(causes(await put({ cidrs: [] })), ['spec.cidrs: Invalid value: []: field is immutable']);
      assert.deepEqual(causes(await put({})), ['spec.cidrs: Invalid value: null: field is immutable']);
      assert.deepEqual(causes(await put({ cidrs: ['10.21.0.0/24', '10.22.0.0/24'] })), [
        'spec.cidrs[0]: Invalid value: "10.21.0.0/24": field is immutable',
        'spec.cidrs: Invalid value: ["10.21.0.0/24","10.22.0.0/24"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
      ]);
      const dual = await put({ cidrs: ['10.20.0.0/24', 'fd00:20::/120'] });
      assert.equal(dual.status, 200, dual.text);
    });
  });

  test('an Ingress with an empty rules list and no default backend names the list it sent', async () => {
    const ns = await server.newNamespace('ing-empty');
    const res = await server.request('POST', `${networking}/namespaces/${ns}/ingresses`, {
      body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { rules: [] } },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res), ['spec: Invalid value: []: either `defaultBackend` or `rules` must be specified']);
  });
});
