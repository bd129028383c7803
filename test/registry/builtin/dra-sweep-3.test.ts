// resource.k8s.io/v1 against kube-apiserver v1.36's rules, a third sweep through a real
// server: opaque parameters and device status data (runtime.RawExtension, which decodes
// any JSON value) that are not JSON objects, told by validateRawExtension in
// pkg/apis/resource/validation; and a device's network addresses, read as
// IsValidInterfaceAddress (apimachinery's util/validation/ip.go) reads them through
// netutils.ParseCIDRSloppy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

const group = '/apis/resource.k8s.io/v1';

interface Cause { reason: string; message: string; field: string }

describe('resource.k8s.io/v1 third sweep', () => {
  let server: TestServer;
  let ns: string;
  let created = 0;
  const claims = () => `${group}/namespaces/${ns}/resourceclaims`;
  const causesOf = (json: { details?: { causes?: Cause[] } }) => (json.details?.causes ?? []).map((c) => [c.reason, c.field, c.message]);
  const requests = [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }];
  const result = { request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' };
  const notAnObject = 'Invalid value: "<value omitted>": must be a valid JSON object';

  /** A new claim, then its /status with the allocation and one device status carrying `device`'s fields. */
  async function writeDeviceStatus(device: Record<string, unknown>) {
    const name = `claim-${created++}`;
    const claim = await server.request('POST', claims(), { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name }, spec: { devices: { requests } } } });
    assert.equal(claim.status, 201, claim.text);
    const status = { allocation: { devices: { results: [result] } }, devices: [{ driver: result.driver, pool: result.pool, device: result.device, ...device }] };
    return server.request('PUT', `${claims()}/${name}/status`, { body: { ...claim.json, status } });
  }

  before(async () => {
    server = await startServer();
    ns = await server.newNamespace('dra-sweep-3');
  });
  after(async () => {
    await server.stop();
  });

  for (const [kind, parameters] of [['a string', 'abc'], ['a number', 1.5], ['an array', [1, 'x']], ['true', true]] as const) {
    test(`a claim's opaque parameters that are ${kind} are not a JSON object (after the driver's cause)`, async () => {
      const config = [{ opaque: { driver: 'Not_A_Driver', parameters } }];
      const res = await server.request('POST', claims(), { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: `params-${created++}` }, spec: { devices: { requests, config } } } });
      assert.equal(res.status, 422, res.text);
      const at = 'spec.devices.config[0].opaque';
      assert.deepEqual(causesOf(res.json), [
        ['FieldValueInvalid', `${at}.driver`, 'Invalid value: "Not_A_Driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
        ['FieldValueInvalid', `${at}.parameters`, notAnObject],
      ]);
    });
  }

  test("a claim template's and a device class's opaque parameters must be JSON objects", async () => {
    const config = [{ opaque: { driver: 'gpu.example.com', parameters: 'abc' } }];
    const template = await server.request('POST', `${group}/namespaces/${ns}/resourceclaimtemplates`, {
      body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'template' }, spec: { spec: { devices: { requests, config } } } },
    });
    assert.equal(template.status, 422, template.text);
    assert.deepEqual(causesOf(template.json), [['FieldValueInvalid', 'spec.spec.devices.config[0].opaque.parameters', notAnObject]]);
    const deviceClass = await server.request('POST', `${group}/deviceclasses`, {
      body: { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: `class-${ns}` }, spec: { config } },
    });
    assert.equal(deviceClass.status, 422, deviceClass.text);
    assert.deepEqual(causesOf(deviceClass.json), [['FieldValueInvalid', 'spec.config[0].opaque.parameters', notAnObject]]);
  });

  test("a device status's data that is not a JSON object is told among the device's causes", async () => {
    const res = await writeDeviceStatus({ data: [1, 2], networkData: { ips: ['10.0.0.1'] } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causesOf(res.json), [
      ['FieldValueInvalid', 'status.devices[0].data', notAnObject],
      ['FieldValueInvalid', 'status.devices[0].networkData.ips[0]', 'Invalid value: "10.0.0.1": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)'],
    ]);
  });

  test('a field beside the parameters keeps its decoding error for a value of the wrong type', async () => {
    const config = [{ opaque: { driver: 7, parameters: {} } }];
    const res = await server.request('POST', claims(), { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: `driver-${created++}` }, spec: { devices: { requests, config } } } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.message, /cannot unmarshal number into Go struct field .* of type string/);
  });

  test("a ControllerRevision's data (a RawExtension validated only as present) may be any JSON value", async () => {
    const revisions = `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;
    const res = await server.request('POST', revisions, { body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'revision' }, data: 'abc', revision: 1 } });
    assert.equal(res.status, 201, res.text);
    const read = await server.request('GET', `${revisions}/revision`);
    assert.equal(read.json.data, 'abc');
  });

  const canonical = (value: string) => `must be in canonical form (${JSON.stringify(value)})`;
  const notCIDR = 'must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)';
  const addresses: [name: string, address: string, message: string][] = [
    ['an IPv4-mapped IPv6 address is written in IPv4 form', '::ffff:10.0.0.1/24', canonical('10.0.0.1/24')],
    ['an IPv4-mapped IPv6 address with a prefix past 32 loses the 96 bits before IPv4', '::ffff:10.0.0.1/120', canonical('10.0.0.1/24')],
    ['an IPv4-mapped IPv6 address with a prefix of 33 to 95 gets a negative one', '::ffff:10.0.0.1/33', canonical('10.0.0.1/-63')],
    ['an IPv4-mapped IPv6 address past 128 bits', '::ffff:10.0.0.1/129', notCIDR],
    ['an IPv4 address past 32 bits', '10.0.0.1/33', notCIDR],
    ['more than three digits in an IPv4 part', '0010.0.0.1/24', canonical('10.0.0.1/24')],
    ['leading zeros in the prefix length', '10.0.0.1/0024', canonical('10.0.0.1/24')],
    ['more than four digits in an IPv6 group', '2001:db8::00001/64', canonical('2001:db8::1/64')],
    ['an IPv6 group past 16 bits', '2001:db8::10000/64', notCIDR],
    ['IPv6 in capitals', '2001:DB8::1/64', canonical('2001:db8::1/64')],
    ['an IPv4 tail in an IPv6 address', '2001:db8::10.0.0.1/64', canonical('2001:db8::a00:1/64')],
  ];
  for (const [name, address, message] of addresses) {
    test(`a device's network address: ${name}`, async () => {
      const res = await writeDeviceStatus({ networkData: { ips: ['10.0.0.2/24', address] } });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causesOf(res.json), [['FieldValueInvalid', 'status.devices[0].networkData.ips[1]', `Invalid value: ${JSON.stringify(address)}: ${message}`]]);
    });
  }
});
