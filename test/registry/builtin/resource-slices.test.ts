// Strategies of resource.k8s.io/v1 ResourceSlices and DeviceClasses: defaults, dropped
// gated fields, generation and validation, case by case, with upstream's causes.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { loadCel } from '../../../src/cel/lazy.ts';
import { builtinType, storeCreate, storeUpdate } from '../../helpers/store.ts';

const slices = builtinType('resourceslices');
const classes = builtinType('deviceclasses');

// The store loads CEL before writes of types that declare it; these tests do not depend on that wiring.
before(async () => {
  await loadCel();
});

type Cause = [reason: string, field: string, message: string];

function causesOf(causes: StatusCause[]): Cause[] {
  return causes.map((c) => [c.reason ?? '', c.field ?? '', c.message ?? '']);
}

function slice(spec: Record<string, unknown>, name = 's'): KubeObject {
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name }, spec } as KubeObject;
}

/** A valid node-local slice's spec, with `extra` over it. */
function nodeSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { driver: 'gpu.example.com', pool: { name: 'pool-a', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', ...extra };
}

function deviceClass(spec: Record<string, unknown>, name = 'gpu'): KubeObject {
  return { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name }, spec } as KubeObject;
}

const cIdentifierMessage = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";
const subdomainMessage = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMessage = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const exactlyOneNode = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
const perDeviceNode = 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';

describe('ResourceSlice create', () => {
  test('a valid slice is stored with generation 1 and its taints get a time', async () => {
    const { obj, causes } = await storeCreate(slices, slice(nodeSpec({
      devices: [{
        name: 'gpu-0',
        attributes: { model: { string: 'a100' }, 'gpu.example.com/index': { int: 0 }, driverVersion: { version: '1.2.3-rc.1' } },
        capacity: { memory: { value: '40Gi' } },
        taints: [{ key: 'example.com/unhealthy', effect: 'NoSchedule' }],
      }],
    })));
    assert.deepEqual(causesOf(causes), []);
    assert.equal(obj.metadata.generation, 1);
    const taint = (obj.spec as { devices: { taints: { timeAdded?: string }[] }[] }).devices[0]!.taints[0]!;
    assert.match(taint.timeAdded ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('a taint keeps the time it was given', async () => {
    const { obj, causes } = await storeCreate(slices, slice(nodeSpec({
      devices: [{ name: 'gpu-0', taints: [{ key: 'k', effect: 'NoExecute', timeAdded: '2024-01-02T03:04:05Z' }] }],
    })));
    assert.deepEqual(causesOf(causes), []);
    assert.equal((obj.spec as { devices: { taints: { timeAdded: string }[] }[] }).devices[0]!.taints[0]!.timeAdded, '2024-01-02T03:04:05Z');
  });

  test('fields of alpha features off in v1.36 are dropped', async () => {
    const { obj, causes } = await storeCreate(slices, slice(nodeSpec({
      devices: [{ name: 'gpu-0', attributes: { model: { string: 'a100' } }, nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: '1' } } }],
    })));
    assert.deepEqual(causesOf(causes), []);
    assert.deepEqual((obj.spec as { devices: unknown[] }).devices[0], { name: 'gpu-0', attributes: { model: { string: 'a100' } } });
  });

  const cases: [name: string, spec: Record<string, unknown>, expected: Cause[]][] = [
    ['no node selection', { driver: 'gpu.example.com', pool: { name: 'p', generation: 0, resourceSliceCount: 1 } },
      [['FieldValueRequired', 'spec', `Required value: ${exactlyOneNode}`]]],
    ['two node selections', nodeSpec({ allNodes: true }),
      [['FieldValueInvalid', 'spec', `Invalid value: "{\`nodeName\`, \`allNodes\`}": ${exactlyOneNode}, but multiple fields are set`]]],
    ['allNodes false and perDeviceNodeSelection false', { ...nodeSpec({ allNodes: false, perDeviceNodeSelection: false }), nodeName: undefined },
      [
        ['FieldValueInvalid', 'spec.allNodes', 'Invalid value: false: must be either unset or set to true'],
        ['FieldValueInvalid', 'spec.perDeviceNodeSelection', 'Invalid value: false: must be either unset or set to true'],
        ['FieldValueRequired', 'spec', `Required value: ${exactlyOneNode}`],
      ]],
    ['an empty node name', nodeSpec({ nodeName: '' }),
      [
        ['FieldValueInvalid', 'spec.nodeName', 'Invalid value: "": must be either unset or set to a non-empty string'],
        ['FieldValueRequired', 'spec', `Required value: ${exactlyOneNode}`],
      ]],
    ['a bad node name', nodeSpec({ nodeName: 'Node_1' }),
      [['FieldValueInvalid', 'spec.nodeName', `Invalid value: "Node_1": ${subdomainMessage}`]]],
    ['a bad driver and pool', nodeSpec({ driver: 'GPU_example', pool: { name: 'a//b', generation: -1, resourceSliceCount: 0 } }),
      [
        ['FieldValueInvalid', 'spec.driver', `Invalid value: "GPU_example": ${subdomainMessage}`],
        ['FieldValueInvalid', 'spec.pool.name', `Invalid value: "": ${subdomainMessage}`],
        ['FieldValueInvalid', 'spec.pool.resourceSliceCount', 'Invalid value: 0: must be greater than zero'],
        ['FieldValueInvalid', 'spec.pool.generation', 'Invalid value: -1: must be greater than or equal to zero'],
      ]],
    ['a node selector with two terms', { ...nodeSpec(), nodeName: undefined, nodeSelector: { nodeSelectorTerms: [
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
    ] } },
    [['FieldValueInvalid', 'spec.nodeSelector.nodeSelectorTerms',
      'Invalid value: [{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]: must have exactly one node selector term']]],
    ['a node selector term with a bad requirement', { ...nodeSpec(), nodeName: undefined, nodeSelector: { nodeSelectorTerms: [
      { matchExpressions: [{ key: 'zone', operator: 'Exists', values: ['a'] }] },
    ] } },
    [['FieldValueForbidden', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]]],
    ['both shared counters and devices', nodeSpec({ devices: [{ name: 'd' }], sharedCounters: [{ name: 'set', counters: { mem: { value: '1' } } }] }),
      [['FieldValueInvalid', 'spec', 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed']]],
    ['bad and duplicate device names', nodeSpec({ devices: [{ name: 'gpu-0' }, { name: 'GPU.1' }, { name: 'gpu-0' }] }),
      [
        ['FieldValueInvalid', 'spec.devices[1].name', `Invalid value: "GPU.1": ${labelMessage}`],
        ['FieldValueDuplicate', 'spec.devices[2]', 'Duplicate value: "gpu-0"'],
      ]],
    ['bad attributes', nodeSpec({ devices: [{ name: 'd', attributes: {
      '1st': { bool: true },
      // v1.36 lets a name of more than one slash pass (kubernetes/kubernetes#141869; refused only later).
      'a/b/c': { bool: true },
      '/x': { int: 1 },
      both: { bool: true, int: 1 },
      none: {},
      long: { string: 'x'.repeat(65) },
      ver: { version: 'v1' },
    } }] }),
    [
      ['FieldValueInvalid', 'spec.devices[0].attributes', `Invalid value: "": the domain must not be empty`],
      ['FieldValueInvalid', 'spec.devices[0].attributes', `Invalid value: "1st": ${cIdentifierMessage}`],
      ['FieldValueInvalid', 'spec.devices[0].attributes[both]', 'Invalid value: {"int":1,"bool":true}: exactly one value must be specified'],
      ['FieldValueTooLong', 'spec.devices[0].attributes[long].string', 'Too long: may not be more than 64 bytes'],
      ['FieldValueInvalid', 'spec.devices[0].attributes[none]', 'Invalid value: "": exactly one value must be specified'],
      ['FieldValueInvalid', 'spec.devices[0].attributes[ver].version', 'Invalid value: "v1": must be a string compatible with semver.org spec 2.0.0'],
    ]],
    ['a list attribute, dropped while DRAListTypeAttributes is off', nodeSpec({ devices: [{ name: 'd', attributes: { cores: { ints: [1, 2] } } }] }),
      [['FieldValueInvalid', 'spec.devices[0].attributes[cores]', 'Invalid value: "": exactly one value must be specified']]],
    ['more than 32 attributes and capacities', nodeSpec({ devices: [{ name: 'd',
      attributes: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`a${i}`, { int: i }])),
      capacity: Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`c${i}`, { value: '1' }])) }] }),
    [['FieldValueInvalid', 'spec.devices[0]', 'Invalid value: 33: the total number of attributes and capacities must not exceed 32']]],
    ['a request policy without multiple allocations', nodeSpec({ devices: [{ name: 'd', capacity: { memory: { value: '10', requestPolicy: { default: '1', validValues: ['1'] } } } }] }),
      [['FieldValueForbidden', 'spec.devices[0].capacity[memory].requestPolicy', 'Forbidden: allowMultipleAllocations must be true']]],
    ['bad request policies', nodeSpec({ devices: [{ name: 'd', allowMultipleAllocations: true, capacity: {
      both: { value: '10', requestPolicy: { default: '1', validValues: ['1'], validRange: { min: '1' } } },
      values: { value: '10', requestPolicy: { default: '3', validValues: ['4', '2', '20'] } },
      range: { value: '10', requestPolicy: { default: '2', validRange: { min: '1', max: '12', step: '4' } } },
      nodefault: { value: '10', requestPolicy: { validRange: { min: '1' } } },
    } }] }),
    [
      ['FieldValueForbidden', 'spec.devices[0].capacity[both].requestPolicy', 'Forbidden: exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'],
      ['FieldValueRequired', 'spec.devices[0].capacity[nodefault].requestPolicy.default', 'Required value: required when validRange is defined'],
      ['FieldValueInvalid', 'spec.devices[0].capacity[range].requestPolicy.validRange.max', 'Invalid value: "12": max is larger than capacity value: 10'],
      ['FieldValueInvalid', 'spec.devices[0].capacity[range].requestPolicy.validRange.step', 'Invalid value: "2": value is not a multiple of a given step (4) from (1)'],
      ['FieldValueInvalid', 'spec.devices[0].capacity[range].requestPolicy.validRange.step', 'Invalid value: "12": value is not a multiple of a given step (4) from (1)'],
      ['FieldValueInvalid', 'spec.devices[0].capacity[values].requestPolicy.validValues[1]', 'Invalid value: "2": values must be sorted in ascending order'],
      ['FieldValueInvalid', 'spec.devices[0].capacity[values].requestPolicy.validValues[2]', 'Invalid value: "20": option is larger than capacity value: 10'],
      ['FieldValueInvalid', 'spec.devices[0].capacity[values].requestPolicy.validValues', 'Invalid value: "3": default value is not valid according to the requestPolicy'],
    ]],
    ['bad taints', nodeSpec({ devices: [{ name: 'd', taints: [{ key: 'a/b/c', value: 'x y', effect: 'NoSchedule' }] }] }),
      [
        ['FieldValueInvalid', 'spec.devices[0].taints[0].key', "Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"],
        ['FieldValueInvalid', 'spec.devices[0].taints[0].value', "Invalid value: \"x y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
      ]],
    ['more than 16 taints', nodeSpec({ devices: [{ name: 'd', taints: Array.from({ length: 17 }, () => ({ key: 'k', effect: 'NoSchedule' })) }] }),
      [['FieldValueTooMany', 'spec.devices[0].taints', 'Too many: 17: must have at most 16 items']]],
    ['more than 64 devices with taints', nodeSpec({ devices: Array.from({ length: 65 }, (_, i) => ({ name: `d${i}`, taints: i === 0 ? [{ key: 'k', effect: 'None' }] : undefined })) }),
      [['FieldValueTooMany', 'spec.devices', 'Too many: 65: must have at most 64 items']]],
    ['more than 2 counter consumptions', nodeSpec({ devices: [{ name: 'd', consumesCounters: Array.from({ length: 3 }, () => ({ counterSet: 'Set', counters: { Mem: { value: '1' } } })) }] }),
      [['FieldValueTooMany', 'spec.devices[0].consumesCounters', 'Too many: 3: must have at most 2 items']]],
    ['bad counters', nodeSpec({ devices: [{ name: 'd', consumesCounters: [{ counterSet: 'Set', counters: { Mem: { value: '1' } } }, { counterSet: '', counters: {} }] }] }),
      [
        ['FieldValueInvalid', 'spec.devices[0].consumesCounters[0].counterSet', `Invalid value: "Set": ${labelMessage}`],
        ['FieldValueInvalid', 'spec.devices[0].consumesCounters[0].counters', `Invalid value: "Mem": ${labelMessage}`],
        ['FieldValueRequired', 'spec.devices[0].consumesCounters[1].counterSet', 'Required value'],
        ['FieldValueRequired', 'spec.devices[0].consumesCounters[1].counters', 'Required value'],
      ]],
    ['too many and duplicate counter sets', { ...nodeSpec(), sharedCounters: Array.from({ length: 9 }, () => ({ name: 'set', counters: { mem: { value: '1' } } })) },
      [['FieldValueTooMany', 'spec.sharedCounters', 'Too many: 9: must have at most 8 items']]],
    ['duplicate counter sets', { ...nodeSpec(), sharedCounters: [{ name: 'set', counters: { mem: { value: '1' } } }, { name: 'set', counters: { mem: { value: '1' } } }] },
      [['FieldValueDuplicate', 'spec.sharedCounters[1]', 'Duplicate value: "set"']]],
    ['device nodes without per-device node selection', nodeSpec({ devices: [{ name: 'd', nodeName: 'n1' }] }),
      [['FieldValueInvalid', 'spec.devices[0]', 'Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec']]],
    ['per-device node selection', { ...nodeSpec({ perDeviceNodeSelection: true }), nodeName: undefined, devices: [
      { name: 'a' }, { name: 'b', nodeName: 'n1', allNodes: true }, { name: 'c', nodeName: '' }, { name: 'd', allNodes: true },
    ] },
    [
      ['FieldValueRequired', 'spec.devices[0]', `Required value: ${perDeviceNode}`],
      ['FieldValueInvalid', 'spec.devices[1]', `Invalid value: "{\`nodeName\`, \`allNodes\`}": ${perDeviceNode}`],
      ['FieldValueInvalid', 'spec.devices[2].nodeName', 'Invalid value: "": must not be empty'],
      ['FieldValueRequired', 'spec.devices[2]', `Required value: ${perDeviceNode}`],
    ]],
    ['binding conditions', nodeSpec({ devices: [
      { name: 'a', bindingFailureConditions: ['failed'] },
      { name: 'b', bindingConditions: ['ready', 'ready'], bindingFailureConditions: ['ready'] },
    ] }),
    [
      ['FieldValueInvalid', 'spec.devices[0].bindingConditions', 'Invalid value: null: bindingConditions are required to use bindingFailureConditions'],
      ['FieldValueDuplicate', 'spec.devices[1].bindingConditions[1]', 'Duplicate value: "ready"'],
      ['FieldValueInvalid', 'spec.devices[1].bindingFailureConditions[0]', 'Invalid value: "ready": bindingFailureConditions must not overlap with bindingConditions'],
    ]],
  ];
  for (const [name, spec, expected] of cases) {
    test(`${name}: upstream's causes`, async () => {
      const { causes } = await storeCreate(slices, slice(JSON.parse(JSON.stringify(spec)) as Record<string, unknown>));
      assert.deepEqual(causesOf(causes), expected);
    });
  }
});

describe('ResourceSlice update', () => {
  const stored = (spec: Record<string, unknown>) => ({ ...slice(spec), metadata: { name: 's', generation: 3, uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' } }) as KubeObject;

  test('driver, pool name and node name never change', async () => {
    const { causes } = await storeUpdate(slices, slice(nodeSpec({ driver: 'other.example.com', pool: { name: 'pool-b', generation: 2, resourceSliceCount: 1 }, nodeName: 'node-2' })), stored(nodeSpec()));
    assert.deepEqual(causesOf(causes), [
      ['FieldValueInvalid', 'spec.pool.name', 'Invalid value: "pool-b": field is immutable'],
      ['FieldValueInvalid', 'spec.driver', 'Invalid value: "other.example.com": field is immutable'],
      ['FieldValueInvalid', 'spec.nodeName', 'Invalid value: "node-2": field is immutable'],
    ]);
  });

  test('a change of the spec bumps the generation; none keeps it', async () => {
    const changed = await storeUpdate(slices, slice(nodeSpec({ pool: { name: 'pool-a', generation: 2, resourceSliceCount: 1 } })), stored(nodeSpec()));
    assert.deepEqual(causesOf(changed.causes), []);
    assert.equal(changed.obj.metadata.generation, 4);
    const same = await storeUpdate(slices, slice(nodeSpec()), stored(nodeSpec()));
    assert.equal(same.obj.metadata.generation, 3);
  });

  test('stored taints are not checked again; changed ones are', async () => {
    const bad = { devices: [{ name: 'd', taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z', value: 'x y' }] }] };
    const kept = await storeUpdate(slices, slice(nodeSpec({ ...bad, pool: { name: 'pool-a', generation: 2, resourceSliceCount: 1 } })), stored(nodeSpec(bad)));
    assert.deepEqual(causesOf(kept.causes), []);
    const changed = { devices: [{ name: 'd', taints: [{ key: 'k2', effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z', value: 'x y' }] }] };
    const { causes } = await storeUpdate(slices, slice(nodeSpec(changed)), stored(nodeSpec(bad)));
    assert.deepEqual(causesOf(causes).map(([reason, field]) => [reason, field]), [['FieldValueInvalid', 'spec.devices[0].taints[0].value']]);
  });

  test('list attributes stay when the stored slice has them', async () => {
    const spec = nodeSpec({ devices: [{ name: 'd', attributes: { cores: { ints: [1, 2] } } }] });
    const { obj, causes } = await storeUpdate(slices, slice(spec), stored(spec));
    assert.deepEqual(causesOf(causes), []);
    assert.deepEqual((obj.spec as { devices: { attributes: unknown }[] }).devices[0]!.attributes, { cores: { ints: [1, 2] } });
  });
});

describe('DeviceClass', () => {
  test('a valid class is stored with generation 1', async () => {
    const { obj, causes } = await storeCreate(classes, deviceClass({
      selectors: [{ cel: { expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"' } }],
      config: [{ opaque: { driver: 'gpu.example.com', parameters: { mode: 'fast' } } }],
      extendedResourceName: 'example.com/gpu',
    }));
    assert.deepEqual(causesOf(causes), []);
    assert.equal(obj.metadata.generation, 1);
  });

  const cases: [name: string, spec: Record<string, unknown>, expected: Cause[]][] = [
    ['a selector without CEL', { selectors: [{}] }, [['FieldValueRequired', 'spec.selectors[0].cel', 'Required value']]],
    ['a selector that is not a boolean', { selectors: [{ cel: { expression: '"gpu"' } }] },
      [['FieldValueInvalid', 'spec.selectors[0].cel.expression', 'Invalid value: "\\"gpu\\"": must evaluate to bool or the unknown type, not string']]],
    ['a selector too long to compile', { selectors: [{ cel: { expression: `${'true && '.repeat(1280)}true` } }] },
      [['FieldValueTooLong', 'spec.selectors[0].cel.expression', 'Too long: may not be more than 10240 bytes']]],
    ['more than 32 selectors', { selectors: Array.from({ length: 33 }, () => ({ cel: { expression: 'true' } })) },
      [['FieldValueTooMany', 'spec.selectors', 'Too many: 33: must have at most 32 items']]],
    ['bad configuration', { config: [{}, { opaque: { driver: 'Bad_Driver', parameters: { a: 1 } } }, { opaque: { driver: 'd.example.com', parameters: { big: 'x'.repeat(10240) } } }] },
      [
        ['FieldValueRequired', 'spec.config[0].opaque', 'Required value'],
        ['FieldValueInvalid', 'spec.config[1].opaque.driver', `Invalid value: "Bad_Driver": ${subdomainMessage}`],
        ['FieldValueTooLong', 'spec.config[2].opaque.parameters', 'Too long: may not be more than 10240 bytes'],
      ]],
    ['a bad extended resource name', { extendedResourceName: 'gpu' },
      [['FieldValueInvalid', 'spec.extendedResourceName', 'Invalid value: "gpu": must be a valid extended resource name']]],
  ];
  for (const [name, spec, expected] of cases) {
    test(`${name}: upstream's causes`, async () => {
      const { causes } = await storeCreate(classes, deviceClass(spec));
      assert.deepEqual(causesOf(causes), expected);
    });
  }

  test('a selector that does not compile answers cel-go\'s compilation error', async () => {
    const { causes } = await storeCreate(classes, deviceClass({ selectors: [{ cel: { expression: 'gpu == 1' } }] }));
    assert.deepEqual(causesOf(causes), [['FieldValueInvalid', 'spec.selectors[0].cel.expression',
      "Invalid value: \"gpu == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'gpu' (in container '')\n | gpu == 1\n | ^"]]);
  });

  test('an update checks the spec as new and as an update, so a changed bad selector counts twice', async () => {
    const stored = { ...deviceClass({ selectors: [{ cel: { expression: 'true' } }] }), metadata: { name: 'gpu', generation: 1, uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' } } as KubeObject;
    const { causes } = await storeUpdate(classes, deviceClass({ selectors: [{ cel: { expression: '1' } }] }), stored);
    const cause: Cause = ['FieldValueInvalid', 'spec.selectors[0].cel.expression', 'Invalid value: "1": must evaluate to bool or the unknown type, not int'];
    assert.deepEqual(causesOf(causes), [cause, cause]);
    const ok = await storeUpdate(classes, deviceClass({ selectors: [{ cel: { expression: 'false' } }] }), stored);
    assert.deepEqual(causesOf(ok.causes), []);
    assert.equal(ok.obj.metadata.generation, 2);
  });
});

test('a pool name of 200k slashes is a cause per empty part, not a stack overflow', async () => {
  const { causes } = await storeCreate(slices, slice(nodeSpec({ pool: { name: '/'.repeat(200_000), generation: 1, resourceSliceCount: 1 } })));
  const pool = causes.filter((c) => c.field === 'spec.pool.name');
  assert.equal(pool.length, 200_002, 'too long, then one per part');
  assert.deepEqual(causesOf(pool.slice(0, 1)), [['FieldValueTooLong', 'spec.pool.name', 'Too long: may not be more than 253 bytes']]);
});
