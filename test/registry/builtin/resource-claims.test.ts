import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { loadCel } from '../../../src/cel/lazy.ts';
import { builtinType, memoryStore, putStored, storeCreate, storeUpdate, tryUpdate, withoutServerMeta } from '../../helpers/store.ts';

const claims = builtinType('resourceclaims');
const templates = builtinType('resourceclaimtemplates');

// Selectors compile in CEL, which loads on first use.
before(() => loadCel());

const claim = (spec: unknown, status?: unknown): KubeObject =>
  ({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'gpu', namespace: 'ns' }, spec, ...(status === undefined ? {} : { status }) }) as KubeObject;
const template = (spec: unknown): KubeObject =>
  ({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'gpu', namespace: 'ns' }, spec }) as KubeObject;
const exactly = (name: string, request: Record<string, unknown> = {}) => ({ name, exactly: { deviceClassName: 'gpu.example.com', ...request } });
const devices = (d: Record<string, unknown>) => ({ devices: d });

/** Causes as [reason, field, message], compared whole. */
const triples = (causes: StatusCause[]) => causes.map((c) => [c.reason, c.field, c.message]);

const dnsLabel = (v: string) => `Invalid value: "${v}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
const dnsSubdomain = (v: string) => `Invalid value: "${v}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const cIdentifier = (v: string) => `Invalid value: "${v}": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')`;
const requestRef = (v: string) => `Invalid value: "${v}": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'`;

test('a valid claim is created with upstream defaults: ExactCount, count 1, toleration operator Equal', async () => {
  const { obj, causes } = await storeCreate(claims, claim(devices({
    requests: [
      exactly('gpu', { selectors: [{ cel: { expression: 'device.attributes["gpu.example.com"].model == "a100"' } }], tolerations: [{ key: 'example.com/dirty', effect: 'NoSchedule' }] }),
      exactly('all', { allocationMode: 'All' }),
      { name: 'fallback', firstAvailable: [{ name: 'big', deviceClassName: 'big.example.com' }, { name: 'small', deviceClassName: 'small.example.com', count: 2 }] },
    ],
    constraints: [{ requests: ['gpu', 'fallback/big'], matchAttribute: 'gpu.example.com/numa' }, { distinctAttribute: 'gpu.example.com/slot' }],
    config: [{ requests: ['gpu'], opaque: { driver: 'gpu.example.com', parameters: { kind: 'GpuConfig', sharing: 'TimeSlicing' } } }],
  }), { allocation: { devices: { results: [] } } }));
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj).spec, devices({
    requests: [
      exactly('gpu', {
        selectors: [{ cel: { expression: 'device.attributes["gpu.example.com"].model == "a100"' } }],
        tolerations: [{ key: 'example.com/dirty', effect: 'NoSchedule', operator: 'Equal' }], allocationMode: 'ExactCount', count: 1,
      }),
      exactly('all', { allocationMode: 'All' }),
      { name: 'fallback', firstAvailable: [
        { name: 'big', deviceClassName: 'big.example.com', allocationMode: 'ExactCount', count: 1 },
        { name: 'small', deviceClassName: 'small.example.com', count: 2, allocationMode: 'ExactCount' },
      ] },
    ],
    constraints: [{ requests: ['gpu', 'fallback/big'], matchAttribute: 'gpu.example.com/numa' }, { distinctAttribute: 'gpu.example.com/slot' }],
    config: [{ requests: ['gpu'], opaque: { driver: 'gpu.example.com', parameters: { kind: 'GpuConfig', sharing: 'TimeSlicing' } } }],
  }));
  // A client does not set the status on create, and upstream's strategy sets no generation.
  assert.deepEqual(obj.status, {});
  assert.equal(obj.metadata.generation, undefined);
});

const invalidClaims: [name: string, spec: unknown, causes: string[][]][] = [
  ['a request needs exactly or firstAvailable', devices({ requests: [{ name: 'gpu' }] }), [
    ['FieldValueRequired', 'spec.devices.requests[0]', 'Required value: exactly one of `exactly` or `firstAvailable` is required'],
  ]],
  ['a request may not have both', devices({ requests: [{ ...exactly('gpu'), firstAvailable: [{ name: 'a', deviceClassName: 'a' }] }] }), [
    ['FieldValueInvalid', 'spec.devices.requests[0]', 'Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'],
  ]],
  ['request names are DNS labels, unique', devices({ requests: [exactly('GPU'), exactly('a'), exactly('a')] }), [
    ['FieldValueInvalid', 'spec.devices.requests[0].name', dnsLabel('GPU')],
    ['FieldValueDuplicate', 'spec.devices.requests[2]', 'Duplicate value: "a"'],
  ]],
  ['a device class is required and a DNS subdomain', devices({ requests: [exactly('a', { deviceClassName: '' }), exactly('b', { deviceClassName: 'Bad_Class' })] }), [
    ['FieldValueRequired', 'spec.devices.requests[0].exactly.deviceClassName', 'Required value'],
    ['FieldValueInvalid', 'spec.devices.requests[1].exactly.deviceClassName', dnsSubdomain('Bad_Class')],
  ]],
  ['allocation modes and counts', devices({ requests: [exactly('a', { allocationMode: 'All', count: 2 }), exactly('b', { count: -1 }), exactly('c', { allocationMode: 'Some' })] }), [
    ['FieldValueInvalid', 'spec.devices.requests[0].exactly.count', "Invalid value: 2: must not be specified when allocationMode is 'All'"],
    ['FieldValueInvalid', 'spec.devices.requests[1].exactly.count', 'Invalid value: -1: must be greater than zero'],
    ['FieldValueNotSupported', 'spec.devices.requests[2].exactly.allocationMode', 'Unsupported value: "Some": supported values: "All", "ExactCount"'],
  ]],
  ['selectors need a CEL expression that evaluates to bool', devices({ requests: [exactly('a', { selectors: [{}, { cel: { expression: '1 + 1' } }, { cel: { expression: 'device.attributes["x"] == true' } }] })] }), [
    ['FieldValueRequired', 'spec.devices.requests[0].exactly.selectors[0].cel', 'Required value'],
    ['FieldValueInvalid', 'spec.devices.requests[0].exactly.selectors[1].cel.expression', 'Invalid value: "1 + 1": must evaluate to bool or the unknown type, not int'],
  ]],
  ['a selector expression is at most 10 KiB', devices({ requests: [exactly('a', { selectors: [{ cel: { expression: `"${'x'.repeat(10 * 1024)}" == ""` } }] })] }), [
    ['FieldValueTooLong', 'spec.devices.requests[0].exactly.selectors[0].cel.expression', 'Too long: may not be more than 10240 bytes'],
  ]],
  ['at most 32 selectors', devices({ requests: [exactly('a', { selectors: Array.from({ length: 33 }, () => ({ cel: { expression: 'true' } })) })] }), [
    ['FieldValueTooMany', 'spec.devices.requests[0].exactly.selectors', 'Too many: 33: must have at most 32 items'],
  ]],
  ['at most 32 requests', devices({ requests: Array.from({ length: 33 }, (_, i) => exactly(`r${i}`)) }), [
    ['FieldValueTooMany', 'spec.devices.requests', 'Too many: 33: must have at most 32 items'],
  ]],
  ['subrequests: names unique, at most 8, each with its class', devices({ requests: [
    { name: 'a', firstAvailable: [{ name: 'x', deviceClassName: '' }, { name: 'x', deviceClassName: 'c', allocationMode: 'All', count: 1 }] },
    { name: 'b', firstAvailable: Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, deviceClassName: 'c' })) },
  ] }), [
    ['FieldValueRequired', 'spec.devices.requests[0].firstAvailable[0].deviceClassName', 'Required value'],
    ['FieldValueInvalid', 'spec.devices.requests[0].firstAvailable[1].count', "Invalid value: 1: must not be specified when allocationMode is 'All'"],
    ['FieldValueDuplicate', 'spec.devices.requests[0].firstAvailable[1]', 'Duplicate value: "x"'],
    ['FieldValueTooMany', 'spec.devices.requests[1].firstAvailable', 'Too many: 9: must have at most 8 items'],
  ]],
  ['tolerations: key, operator, value and effect', devices({ requests: [exactly('a', { tolerations: [
    { key: 'bad key', operator: 'Exists', value: 'v' },
    { key: 'k', operator: 'In', effect: 'Never' },
    { key: 'k', value: 'not a value!' },
  ] })] }), [
    ['FieldValueInvalid', 'spec.devices.requests[0].exactly.tolerations[0].key', `Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
    ['FieldValueInvalid', 'spec.devices.requests[0].exactly.tolerations[0].value', 'Invalid value: "v": must be empty for operator `Exists`'],
    ['FieldValueNotSupported', 'spec.devices.requests[0].exactly.tolerations[1].operator', 'Unsupported value: "In": supported values: "Equal", "Exists"'],
    ['FieldValueNotSupported', 'spec.devices.requests[0].exactly.tolerations[1].effect', 'Unsupported value: "Never": supported values: "NoExecute", "NoSchedule", "None"'],
    ['FieldValueInvalid', 'spec.devices.requests[0].exactly.tolerations[2].value', `Invalid value: "not a value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`],
  ]],
  ['constraints refer to requests and name fully qualified attributes', devices({
    requests: [exactly('a'), { name: 'b', firstAvailable: [{ name: 'x', deviceClassName: 'c' }] }],
    constraints: [
      { requests: ['a', 'nope', 'b/y', 'a/b/c', 'a'], matchAttribute: 'numa' },
      { distinctAttribute: 'example.com/1slot' },
      { requests: ['b/x'] },
      { matchAttribute: '/name' },
    ],
  }), [
    ['FieldValueInvalid', 'spec.devices.constraints[0].requests[1]', requestRef('nope')],
    ['FieldValueInvalid', 'spec.devices.constraints[0].requests[2]', requestRef('b/y')],
    ['FieldValueInvalid', 'spec.devices.constraints[0].requests[3]', requestRef('a/b/c')],
    ['FieldValueDuplicate', 'spec.devices.constraints[0].requests[4]', 'Duplicate value: "a"'],
    ['FieldValueInvalid', 'spec.devices.constraints[0].matchAttribute', 'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash'],
    ['FieldValueInvalid', 'spec.devices.constraints[1].distinctAttribute', cIdentifier('1slot')],
    ['FieldValueRequired', 'spec.devices.constraints[2]', 'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'],
    ['FieldValueInvalid', 'spec.devices.constraints[3].matchAttribute', 'Invalid value: "": the domain must not be empty'],
  ]],
  ['an attribute name is at most 32 bytes after its domain', devices({ constraints: [{ matchAttribute: `example.com/${'a'.repeat(33)}` }] }), [
    ['FieldValueTooLong', 'spec.devices.constraints[0].matchAttribute', 'Too long: may not be more than 32 bytes'],
  ]],
  ['config: opaque parameters with a driver, a JSON object of at most 10 KiB', devices({
    requests: [exactly('a')],
    config: [
      { requests: ['b'] },
      { opaque: { driver: '', parameters: {} } },
      { opaque: { driver: 'gpu.example.com', parameters: { blob: 'x'.repeat(10 * 1024) } } },
      { opaque: { driver: 'gpu.example.com' } },
    ],
  }), [
    ['FieldValueInvalid', 'spec.devices.config[0].requests[0]', requestRef('b')],
    ['FieldValueRequired', 'spec.devices.config[0].opaque', 'Required value'],
    ['FieldValueRequired', 'spec.devices.config[1].opaque.driver', 'Required value'],
    ['FieldValueInvalid', 'spec.devices.config[1].opaque.driver', dnsSubdomain('')],
    ['FieldValueTooLong', 'spec.devices.config[2].opaque.parameters', 'Too long: may not be more than 10240 bytes'],
    ['FieldValueRequired', 'spec.devices.config[3].opaque.parameters', 'Required value'],
  ]],
];

for (const [name, spec, expected] of invalidClaims) {
  test(`an invalid claim is refused: ${name}`, async () => {
    const { causes } = await storeCreate(claims, claim(spec));
    assert.deepEqual(triples(causes), expected);
  });
}

test("a claim's spec is immutable; what defaults fill in is not a change", async () => {
  const created = (await storeCreate(claims, claim(devices({ requests: [exactly('gpu')] })))).obj;
  // The same spec without its defaults passes.
  assert.deepEqual((await storeUpdate(claims, { ...created, spec: devices({ requests: [exactly('gpu')] }), metadata: { ...created.metadata, labels: { a: 'b' } } }, created)).causes, []);
  const changed = await storeUpdate(claims, { ...created, spec: devices({ requests: [exactly('gpu', { deviceClassName: 'other.example.com' })] }) }, created);
  assert.deepEqual(triples(changed.causes), [[
    'FieldValueInvalid', 'spec',
    'Invalid value: {"Devices":{"Requests":[{"Name":"gpu","Exactly":{"DeviceClassName":"other.example.com","Selectors":null,"AllocationMode":"ExactCount","Count":1,"AdminAccess":null,"Tolerations":null,"Capacity":null},"FirstAvailable":null}],"Constraints":null,"Config":null}}: field is immutable',
  ]]);
});

test('an update of a stored claim does not validate its spec again', async () => {
  // Stored before a rule it breaks (as an invalid selector stored by an older server).
  const stored = claim(devices({ requests: [exactly('gpu', { selectors: [{ cel: { expression: '1' } }], allocationMode: 'ExactCount', count: 1 })] }));
  const { causes } = await storeUpdate(claims, { ...stored, metadata: { ...stored.metadata, labels: { a: 'b' } } }, stored);
  assert.deepEqual(causes, []);
});

const allocated = (results: unknown[], extra: Record<string, unknown> = {}) => ({ allocation: { devices: { results } }, ...extra });
const result = (request: string, device = 'gpu-0', extra: Record<string, unknown> = {}) => ({ request, driver: 'gpu.example.com', pool: 'node-1', device, ...extra });

/** A status write of `status` over the stored claim of `spec` with `oldStatus`. */
async function writeStatus(spec: unknown, status: unknown, oldStatus?: unknown, meta: Record<string, unknown> = {}) {
  const fx = memoryStore(claims);
  const stored = await putStored(fx, { ...claim(spec, oldStatus ?? {}), metadata: { name: 'gpu', namespace: 'ns', uid: 'u1', ...meta } } as KubeObject);
  return tryUpdate(fx.store, { ...stored, status } as KubeObject, 'status');
}

test('a valid allocation is written through status, with its tolerations defaulted', async () => {
  const spec = devices({ requests: [exactly('gpu')] });
  const { obj, causes } = await writeStatus(spec, {
    allocation: { devices: { results: [result('gpu', 'gpu-0', { tolerations: [{ key: 'k', effect: 'NoSchedule' }] })], config: [{ source: 'FromClaim', opaque: { driver: 'gpu.example.com', parameters: { a: 1 } } }] } },
    reservedFor: [{ resource: 'pods', name: 'p', uid: 'pod-uid' }],
    devices: [{ driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0', networkData: { interfaceName: 'eth1', ips: ['10.0.0.1/24'] } }],
  });
  assert.deepEqual(causes, []);
  assert.deepEqual((obj.status as { allocation: { devices: { results: { tolerations: unknown }[] } } }).allocation.devices.results[0]!.tolerations, [{ key: 'k', effect: 'NoSchedule', operator: 'Equal' }]);
});

test('an invalid status is refused with upstream causes', async () => {
  const spec = devices({ requests: [exactly('gpu'), { name: 'alt', firstAvailable: [{ name: 'one', deviceClassName: 'c' }] }] });
  const { causes } = await writeStatus(spec, {
    allocation: { devices: {
      results: [result('nope'), result('alt/one', 'Gpu_0', { pool: '', shareID: 'not-a-uuid', bindingFailureConditions: ['failed'] }), result('gpu', 'gpu-1', { shareID: '2A1B3C4D-0000-0000-0000-000000000000' })],
      config: [{ source: 'Elsewhere', opaque: { driver: 'gpu.example.com', parameters: {} } }],
    } },
    reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }, { resource: '', name: '', uid: 'u' }],
    devices: [{ driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-9', networkData: { ips: ['10.0.0.1', '10.0.0.01/24'] } }],
  });
  assert.deepEqual(triples(causes), [
    ['FieldValueRequired', 'status.reservedFor[1].resource', 'Required value'],
    ['FieldValueRequired', 'status.reservedFor[1].name', 'Required value'],
    ['FieldValueDuplicate', 'status.reservedFor[1]', 'Duplicate value: "u"'],
    ['FieldValueInvalid', 'status.devices[0]', 'Invalid value: gpu.example.com/node-1/gpu-9: must be an allocated device in the claim'],
    ['FieldValueInvalid', 'status.devices[0].networkData.ips[0]', 'Invalid value: "10.0.0.1": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)'],
    ['FieldValueInvalid', 'status.devices[0].networkData.ips[1]', 'Invalid value: "10.0.0.01/24": must be in canonical form ("10.0.0.1/24")'],
    ['FieldValueInvalid', 'status.allocation.devices.results[0].request', requestRef('nope')],
    ['FieldValueRequired', 'status.allocation.devices.results[1].pool', 'Required value'],
    ['FieldValueInvalid', 'status.allocation.devices.results[1].device', dnsLabel('Gpu_0')],
    ['FieldValueInvalid', 'status.allocation.devices.results[1].bindingConditions', 'Invalid value: null: bindingConditions are required to use bindingFailureConditions'],
    ['FieldValueInvalid', 'status.allocation.devices.results[1].shareID', 'Invalid value: "not-a-uuid": error validating uid: invalid UUID length: 10'],
    ['FieldValueInvalid', 'status.allocation.devices.results[2].shareID', 'Invalid value: "2A1B3C4D-0000-0000-0000-000000000000": uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters'],
    ['FieldValueNotSupported', 'status.allocation.devices.config[0].source', 'Unsupported value: "Elsewhere": supported values: "FromClaim", "FromClass"'],
  ]);
});

test('reservedFor needs an allocation, and gains no entries while the claim is deleted', async () => {
  const spec = devices({ requests: [exactly('gpu')] });
  const pod = (uid: string) => ({ resource: 'pods', name: uid, uid });
  assert.deepEqual(triples((await writeStatus(spec, { reservedFor: [pod('a')] })).causes), [
    ['FieldValueForbidden', 'status.reservedFor', 'Forbidden: may not be specified when `allocated` is not set'],
  ]);
  const deleting = { deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['resource.kubernetes.io/delete-protection'] };
  const before = allocated([result('gpu')], { reservedFor: [pod('a')] });
  assert.deepEqual(triples((await writeStatus(spec, allocated([result('gpu')], { reservedFor: [pod('a'), pod('b')] }), before, deleting)).causes), [
    ['FieldValueForbidden', 'status.reservedFor', 'Forbidden: new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'],
  ]);
  assert.deepEqual((await writeStatus(spec, allocated([result('gpu')], { reservedFor: [] }), before, deleting)).causes, []);
});

test('an allocation once set does not change; the status of deallocated devices goes with it', async () => {
  const spec = devices({ requests: [exactly('gpu')] });
  const before = allocated([result('gpu')], { devices: [{ driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' }] });
  assert.deepEqual(triples((await writeStatus(spec, allocated([result('gpu', 'gpu-1')]), before)).causes), [[
    'FieldValueInvalid', 'status.allocation',
    'Invalid value: {"Devices":{"Results":[{"Request":"gpu","Driver":"gpu.example.com","Pool":"node-1","Device":"gpu-1","AdminAccess":null,"Tolerations":null,"BindingConditions":null,"BindingFailureConditions":null,"ShareID":null,"ConsumedCapacity":null}],"Config":null},"NodeSelector":null,"AllocationTimestamp":null}: field is immutable',
  ]]);
  // Deallocation: the allocation goes, and the device's status with it.
  const { obj, causes } = await writeStatus(spec, { devices: [{ driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' }] }, before);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.status, {});
});

test('a valid claim template is created with defaults in its claim spec', async () => {
  const { obj, causes } = await storeCreate(templates, template({ metadata: { labels: { app: 'x' } }, spec: devices({ requests: [exactly('gpu')] }) }));
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { metadata: { labels: { app: 'x' } }, spec: devices({ requests: [exactly('gpu', { allocationMode: 'ExactCount', count: 1 })] }) });
});

test("an invalid claim template is refused: its claim's metadata and spec", async () => {
  const { causes } = await storeCreate(templates, template({
    metadata: { name: 'fixed', labels: { 'bad key!': 'x' } },
    spec: devices({ requests: [exactly('gpu', { deviceClassName: '' })] }),
  }));
  assert.deepEqual(triples(causes), [
    ['FieldValueInvalid', 'spec.metadata.labels', `Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
    ['FieldValueForbidden', 'spec.metadata.name', 'Forbidden: cannot be set'],
    ['FieldValueRequired', 'spec.spec.devices.requests[0].exactly.deviceClassName', 'Required value'],
  ]);
});

test("a claim template's spec is immutable", async () => {
  const created = (await storeCreate(templates, template({ spec: devices({ requests: [exactly('gpu')] }) }))).obj;
  assert.deepEqual((await storeUpdate(templates, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } }, created)).causes, []);
  const changed = await storeUpdate(templates, { ...created, spec: { spec: devices({ requests: [exactly('gpu', { count: 2 })] }) } }, created);
  assert.deepEqual(triples(changed.causes), [[
    'FieldValueInvalid', 'spec',
    'Invalid value: {"creationTimestamp":null,"Spec":{"Devices":{"Requests":[{"Name":"gpu","Exactly":{"DeviceClassName":"gpu.example.com","Selectors":null,"AllocationMode":"ExactCount","Count":2,"AdminAccess":null,"Tolerations":null,"Capacity":null},"FirstAvailable":null}],"Constraints":null,"Config":null}}}: field is immutable',
  ]]);
});
