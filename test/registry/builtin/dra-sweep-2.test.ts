// resource.k8s.io/v1 against kube-apiserver v1.36's rules, a second sweep through a real
// server: a ResourceClaim's status.devices[*].conditions checked as metav1's
// ValidateConditions checks them (validateDeviceStatus in pkg/apis/resource/validation),
// in upstream's order beside the device's other causes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

const group = '/apis/resource.k8s.io/v1';

interface Cause { reason: string; message: string; field: string }

describe('resource.k8s.io/v1 second sweep', () => {
  let server: TestServer;
  let ns: string;
  let created = 0;
  const claims = () => `${group}/namespaces/${ns}/resourceclaims`;
  const causesOf = (json: { details?: { causes?: Cause[] } }) => (json.details?.causes ?? []).map((c) => [c.reason, c.field, c.message]);
  const spec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } };
  const result = { request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' };
  const at = 'status.devices[0].conditions';
  const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Configured', message: '' };

  /** A new claim, then its /status with the allocation and one device status carrying `device`'s fields. */
  async function writeDeviceStatus(device: Record<string, unknown>) {
    const name = `claim-${created++}`;
    const claim = await server.request('POST', claims(), { body: { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name }, spec } });
    assert.equal(claim.status, 201, claim.text);
    const status = { allocation: { devices: { results: [result] } }, devices: [{ driver: result.driver, pool: result.pool, device: result.device, ...device }] };
    return server.request('PUT', `${claims()}/${name}/status`, { body: { ...claim.json, status } });
  }

  before(async () => {
    server = await startServer();
    ns = await server.newNamespace('dra-sweep-2');
  });
  after(async () => {
    await server.stop();
  });

  test('a device status with well-formed conditions is stored', async () => {
    const res = await writeDeviceStatus({ conditions: [ready, { ...ready, type: 'example.com/Healthy', status: 'Unknown', reason: 'A:B,c_' }] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status.devices[0].conditions.length, 2);
  });

  const reasonRule = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";
  const nameRule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const cases: [name: string, device: Record<string, unknown>, expected: string[][]][] = [
    ['an unknown status, a repeated type, a missing time and reason', { conditions: [{ ...ready, status: 'Maybe' }, { ...ready, lastTransitionTime: undefined, reason: '' }] }, [
      ['FieldValueNotSupported', `${at}[0].status`, 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"'],
      ['FieldValueDuplicate', `${at}[1].type`, 'Duplicate value: "Ready"'],
      ['FieldValueRequired', `${at}[1].lastTransitionTime`, 'Required value: must be set'],
      ['FieldValueRequired', `${at}[1].reason`, 'Required value: must be set'],
    ]],
    ['a bad type, a negative generation, a bad reason', { conditions: [{ ...ready, type: 'not a type!', observedGeneration: -1, reason: 'Bad reason!' }] }, [
      ['FieldValueInvalid', `${at}[0].type`, `Invalid value: "not a type!": ${nameRule}`],
      ['FieldValueInvalid', `${at}[0].observedGeneration`, 'Invalid value: -1: must be greater than or equal to zero'],
      ['FieldValueInvalid', `${at}[0].reason`, `Invalid value: "Bad reason!": ${reasonRule}`],
    ]],
    ["Go's zero time (written with an offset) as the transition time", { conditions: [{ ...ready, lastTransitionTime: '0001-01-01T01:00:00+01:00' }] }, [
      ['FieldValueRequired', `${at}[0].lastTransitionTime`, 'Required value: must be set'],
    ]],
    ['a reason and a message too long', { conditions: [{ ...ready, reason: 'R'.repeat(1025), message: 'm'.repeat(32 * 1024 + 1) }] }, [
      ['FieldValueTooLong', `${at}[0].reason`, 'Too long: may not be more than 1024 bytes'],
      ['FieldValueTooLong', `${at}[0].message`, 'Too long: may not be more than 32768 bytes'],
    ]],
    ['too many conditions, one of them bad: both told', { conditions: Array.from({ length: 9 }, (_, i) => ({ ...ready, type: `T${i}`, status: i === 8 ? 'No' : 'True' })) }, [
      ['FieldValueTooMany', at, 'Too many: 9: must have at most 8 items'],
      ['FieldValueNotSupported', `${at}[8].status`, 'Unsupported value: "No": supported values: "False", "True", "Unknown"'],
    ]],
    ['a bad condition among the share ID, data and network data causes', {
      shareID: 'ABC', conditions: [{ ...ready, reason: '' }], networkData: { ips: ['10.0.0.1'] },
    }, [
      ['FieldValueInvalid', 'status.devices[0].shareID', 'Invalid value: "ABC": error validating uid: invalid UUID length: 3'],
      ['FieldValueInvalid', 'status.devices[0]', 'Invalid value: gpu.example.com/node-1/gpu-0/ABC: must be an allocated device in the claim'],
      ['FieldValueRequired', `${at}[0].reason`, 'Required value: must be set'],
      ['FieldValueInvalid', 'status.devices[0].networkData.ips[0]', 'Invalid value: "10.0.0.1": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)'],
    ]],
  ];
  for (const [name, device, expected] of cases) {
    test(`a device status's conditions are validated: ${name}`, async () => {
      const res = await writeDeviceStatus(device);
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.reason, 'Invalid');
      assert.deepEqual(causesOf(res.json), expected);
    });
  }
});
