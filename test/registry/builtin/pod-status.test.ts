// Writes through pods/status, checked as upstream's ValidatePodStatusUpdate checks them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { builtinType, storeUpdate } from '../../helpers/store.ts';

const pods = builtinType('pods');

type Json = Record<string, unknown>;

/** A stored pod as a kubelet read it: bound to node-1 unless `spec` says otherwise. */
function stored(status: Json, spec: Json = {}, metadata: Json = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u-1', generation: 1, ...metadata },
    spec: {
      containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '1', 'example.com/gpu': '1' } } }],
      restartPolicy: 'Always', nodeName: 'node-1', terminationGracePeriodSeconds: 30, ...spec,
    },
    status: { phase: 'Running', qosClass: 'Burstable', ...status },
  };
}

/** `old` with its status (and metadata) changed as a client writes it. */
function written(old: KubeObject, status: Json, metadata: Json = {}): KubeObject {
  return { ...old, metadata: { ...old.metadata, ...metadata }, status: { ...(old.status as Json), ...status } };
}

function causesOf(causes: StatusCause[]): { reason?: string; field?: string; message?: string }[] {
  return causes.map(({ reason, field, message }) => ({ reason, field, message }));
}

const running = (name: string) => ({ name, ready: true, restartCount: 0, image: 'nginx', imageID: '', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } });
const terminated = (name: string, exitCode: number) => ({
  name, ready: false, restartCount: 0, image: 'nginx', imageID: '',
  state: { terminated: { exitCode, startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:01Z' } },
});

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const valid: [string, KubeObject, Json, Json?][] = [
  ['a kubelet reports a dual-stack running pod', stored({}), {
    hostIP: '10.0.0.5', hostIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
    podIP: '10.244.0.7', podIPs: [{ ip: '10.244.0.7' }, { ip: 'fd00:10:244::7' }],
    conditions: [{ type: 'Ready', status: 'True' }, { type: 'example.com/warm', status: 'True', observedGeneration: 1 }],
    containerStatuses: [running('app')], observedGeneration: 1,
  }],
  ['a container that failed restarts under restartPolicy OnFailure', stored({ containerStatuses: [terminated('app', 1)] }, { restartPolicy: 'OnFailure' }), {
    containerStatuses: [running('app')],
  }],
  ['a container whose restart rule matches its exit code restarts under restartPolicy Never', stored({ containerStatuses: [terminated('app', 42)] }, {
    restartPolicy: 'Never',
    containers: [{ name: 'app', image: 'nginx', restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }] }],
  }), { containerStatuses: [running('app')] }],
  ['a sidecar init container restarts under restartPolicy Never', stored({ initContainerStatuses: [terminated('proxy', 0)] }, {
    restartPolicy: 'Never', initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
  }), { initContainerStatuses: [running('proxy')] }],
  ['an invalid pod IP already stored may be kept', stored({ podIP: '010.0.0.1', podIPs: [{ ip: '010.0.0.1' }] }), { phase: 'Running' }],
  ['a deletion cost already invalid may stay so', stored({}, {}, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '+1' } }), {}, {
    annotations: { 'controller.kubernetes.io/pod-deletion-cost': '+2' },
  }],
  ['a nomination an unbound pod already had may be kept', stored({ nominatedNodeName: 'node-2' }, { nodeName: undefined }), { nominatedNodeName: 'node-2' }],
];

for (const [name, old, status, metadata] of valid) {
  test(`pods/status: ${name}`, async () => {
    const { causes } = await storeUpdate(pods, written(old, status, metadata), old, 'status');
    assert.deepEqual(causesOf(causes), []);
  });
}

const invalidCases: [string, KubeObject, Json, { reason: string; field: string; message: string }[], Json?][] = [
  ['a nominated node name is a DNS subdomain', stored({}, { nodeName: undefined }), { nominatedNodeName: 'Node_1' }, [
    { reason: 'FieldValueInvalid', field: 'status.nominatedNodeName', message: `Invalid value: "Node_1": ${subdomainMessage}` },
  ]],
  ['a bound pod may not be nominated', stored({}), { nominatedNodeName: 'node-2' }, [
    { reason: 'FieldValueForbidden', field: 'status.nominatedNodeName', message: 'Forbidden: may not be set on pods that are already bound to a node' },
  ]],
  ['observed generations are not negative', stored({}), {
    observedGeneration: -1, conditions: [{ type: 'Ready', status: 'True', observedGeneration: -2 }],
  }, [
    { reason: 'FieldValueInvalid', field: 'status.conditions[0].observedGeneration', message: 'Invalid value: -2: must be a non-negative integer' },
    { reason: 'FieldValueInvalid', field: 'status.observedGeneration', message: 'Invalid value: -1: must be a non-negative integer' },
  ]],
  ['a custom condition type is a qualified name', stored({}), { conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'warm up', status: 'True' }] }, [
    {
      reason: 'FieldValueInvalid', field: 'status.conditions[1].Type',
      message: "Invalid value: \"warm up\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    },
  ]],
  ['the QoS class is immutable', stored({}), { qosClass: 'Guaranteed' }, [
    { reason: 'FieldValueInvalid', field: 'status.qosClass', message: 'Invalid value: "Guaranteed": field is immutable' },
  ]],
  ['a terminated container does not run again under restartPolicy Never', stored({ containerStatuses: [running('side'), terminated('app', 0)] }, {
    restartPolicy: 'Never', containers: [{ name: 'side', image: 'nginx' }, { name: 'app', image: 'nginx' }],
  }), { containerStatuses: [running('side'), running('app')] }, [
    { reason: 'FieldValueForbidden', field: 'status.containerStatuses[1].state', message: 'Forbidden: may not be transitioned to non-terminated state' },
  ]],
  ['a container that succeeded does not run again under restartPolicy OnFailure', stored({ containerStatuses: [terminated('app', 0)] }, { restartPolicy: 'OnFailure' }), {
    containerStatuses: [running('app')],
  }, [
    { reason: 'FieldValueForbidden', field: 'status.containerStatuses[0].state', message: 'Forbidden: may not be transitioned to non-terminated state' },
  ]],
  ['an init container does not run again under restartPolicy Never', stored({ initContainerStatuses: [terminated('init', 1)] }, {
    restartPolicy: 'Never', initContainers: [{ name: 'init', image: 'busybox' }],
  }), { initContainerStatuses: [running('init')] }, [
    { reason: 'FieldValueForbidden', field: 'status.initContainerStatuses[0].state', message: 'Forbidden: may not be transitioned to non-terminated state' },
  ]],
  ['an ephemeral container never runs again, whatever the pod restart policy', stored({ ephemeralContainerStatuses: [terminated('debug', 1)] }), {
    ephemeralContainerStatuses: [running('debug')],
  }, [
    { reason: 'FieldValueForbidden', field: 'status.ephemeralContainerStatuses[0].state', message: 'Forbidden: may not be transitioned to non-terminated state' },
  ]],
  ['pod IPs are valid addresses written strictly', stored({}), { podIPs: [{ ip: '10.0.0' }] }, [
    { reason: 'FieldValueInvalid', field: 'status.podIPs[0]', message: 'Invalid value: "10.0.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
  ]],
  ['pod IPs have no leading zeros and are not IPv4-mapped', stored({}), { podIPs: [{ ip: '10.0.0.01' }, { ip: '::ffff:10.0.0.2' }] }, [
    { reason: 'FieldValueInvalid', field: 'status.podIPs[0]', message: 'Invalid value: "10.0.0.01": must not have leading 0s' },
    { reason: 'FieldValueInvalid', field: 'status.podIPs[1]', message: 'Invalid value: "::ffff:10.0.0.2": must not be an IPv4-mapped IPv6 address' },
    { reason: 'FieldValueInvalid', field: 'status.podIPs', message: 'Invalid value: [{"ip":"10.0.0.01"},{"ip":"::ffff:10.0.0.2"}]: may specify no more than one IP for each IP family' },
  ]],
  ['pod IPs are one of each family, without duplicates', stored({}), { podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }] }, [
    { reason: 'FieldValueInvalid', field: 'status.podIPs', message: 'Invalid value: [{"ip":"10.0.0.1"},{"ip":"10.0.0.1"}]: may specify no more than one IP for each IP family' },
    { reason: 'FieldValueDuplicate', field: 'status.podIPs[1]', message: 'Duplicate value: {"ip":"10.0.0.1"}' },
  ]],
  ['three pod IPs are too many even across families', stored({}), { podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }, { ip: 'fd00::2' }] }, [
    { reason: 'FieldValueInvalid', field: 'status.podIPs', message: 'Invalid value: [{"ip":"10.0.0.1"},{"ip":"fd00::1"},{"ip":"fd00::2"}]: may specify no more than one IP for each IP family' },
  ]],
  ['the first host IP is hostIP', stored({}), { hostIP: '10.0.0.5', hostIPs: [{ ip: '10.0.0.6' }] }, [
    { reason: 'FieldValueInvalid', field: 'status.hostIPs[0].ip', message: 'Invalid value: "10.0.0.6": must be equal to `hostIP`' },
  ]],
  ['host IPs are valid, without duplicates, one of each family', stored({}), { hostIP: 'fd00::5', hostIPs: [{ ip: 'fd00::5' }, { ip: 'fd00::5' }] }, [
    { reason: 'FieldValueDuplicate', field: 'status.hostIPs[1]', message: 'Duplicate value: {"ip":"fd00::5"}' },
    { reason: 'FieldValueInvalid', field: 'status.hostIPs', message: 'Invalid value: [{"ip":"fd00::5"},{"ip":"fd00::5"}]: may specify no more than one IP for each IP family' },
  ]],
  ['resource claim statuses name the spec claims once', stored({}, { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }), {
    resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'Bad_Name' }, { name: 'gpu' }, { name: 'tpu' }],
  }, [
    { reason: 'FieldValueInvalid', field: 'status.resourceClaimStatuses[0].name', message: `Invalid value: "Bad_Name": ${subdomainMessage}` },
    { reason: 'FieldValueDuplicate', field: 'status.resourceClaimStatuses[1].name', message: 'Duplicate value: "gpu"' },
    { reason: 'FieldValueInvalid', field: 'status.resourceClaimStatuses[2].name', message: 'Invalid value: "tpu": must match the name of an entry in `spec.resourceClaims`' },
  ]],
  ['an extended resource claim status maps requests and names its claim', stored({}), {
    extendedResourceClaimStatus: { requestMappings: [
      { containerName: 'app', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' },
      { containerName: 'app', resourceName: 'example.com/fpga', requestName: 'r1' },
      { containerName: 'other', resourceName: 'example.com/gpu', requestName: 'r2' },
    ] },
  }, [
    {
      reason: 'FieldValueInvalid', field: 'status.extendedResourceClaimStatus.requestMappings[1].resourceName',
      message: 'Invalid value: "example.com/fpga": must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests',
    },
    {
      reason: 'FieldValueInvalid', field: 'status.extendedResourceClaimStatus.requestMappings[2].containerName',
      message: 'Invalid value: "other": must match the name of an entry in spec.initContainers.name or spec.containers.name',
    },
    { reason: 'FieldValueRequired', field: 'status.extendedResourceClaimStatus.resourceClaimName', message: 'Required value' },
  ]],
  ['an extended resource claim status has request mappings', stored({}), { extendedResourceClaimStatus: { resourceClaimName: 'web-extended-resources' } }, [
    { reason: 'FieldValueRequired', field: 'status.extendedResourceClaimStatus.requestMappings', message: 'Required value: at least one request mapping is required' },
  ]],
  ['a Linux container reports user ids in range', stored({}), {
    containerStatuses: [{ ...running('app'), user: { linux: { uid: -1, gid: 0, supplementalGroups: [1, 2147483648] } } }],
  }, [
    { reason: 'FieldValueInvalid', field: 'status.containerStatuses[0].user.linux.uid', message: 'Invalid value: -1: must be between 0 and 2147483647, inclusive' },
    { reason: 'FieldValueInvalid', field: 'status.containerStatuses[0].user.linux.supplementalGroups[1]', message: 'Invalid value: 2147483648: must be between 0 and 2147483647, inclusive' },
  ]],
  ['a Windows container reports no Linux user', stored({}, { os: { name: 'windows' } }), {
    initContainerStatuses: [{ ...running('init'), user: { linux: { uid: 0, gid: 0 } } }],
  }, [
    { reason: 'FieldValueForbidden', field: 'status.initContainerStatuses[0].user.linux', message: 'Forbidden: cannot be set for a windows pod' },
  ]],
  ['allocated resources name what the container asks for, with known health and unique ids', stored({}), {
    containerStatuses: [{ ...running('app'), allocatedResourcesStatus: [
      { name: 'example.com/gpu', resources: [{ resourceID: 'gpu-0', health: 'Healthy' }, { resourceID: 'gpu-0', health: 'Sick' }] },
      { name: 'claim:gpu', resources: [] },
      { name: 'memory' },
    ] }],
  }, [
    { reason: 'FieldValueNotSupported', field: 'status.containerStatuses[0].allocatedResourcesStatus[0].resources[1].health', message: 'Unsupported value: "Sick": supported values: "Healthy", "Unhealthy", "Unknown"' },
    { reason: 'FieldValueDuplicate', field: 'status.containerStatuses[0].allocatedResourcesStatus[0].resources[1].resourceID', message: 'Duplicate value: "gpu-0"' },
    {
      reason: 'FieldValueInvalid', field: 'status.containerStatuses[0].allocatedResourcesStatus[1].name',
      message: "Invalid value: \"claim:gpu\": must match one of the container's resource claims in a format 'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty",
    },
    { reason: 'FieldValueInvalid', field: 'status.containerStatuses[0].allocatedResourcesStatus[2].name', message: "Invalid value: \"memory\": must match one of the container's resource requests" },
  ]],
  ['an ephemeral container is allocated no resources', stored({}), {
    ephemeralContainerStatuses: [{ ...running('debug'), allocatedResourcesStatus: [{ name: 'cpu' }] }],
  }, [
    { reason: 'FieldValueForbidden', field: 'status.ephemeralContainerStatuses[0].allocatedResourcesStatus', message: 'Forbidden: must not be specified in container status' },
  ]],
  ['the mirror pod annotation may not be added', stored({}), {}, [
    { reason: 'FieldValueForbidden', field: 'metadata.annotations[kubernetes.io/config.mirror]', message: 'Forbidden: may not add mirror pod annotation' },
  ], { annotations: { 'kubernetes.io/config.mirror': 'abc' } }],
  ['a valid deletion cost may not become invalid', stored({}, {}, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '10' } }), {}, [
    { reason: 'FieldValueInvalid', field: 'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]', message: 'Invalid value: "010": must be a 32bit integer' },
  ], { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '010' } }],
];

for (const [name, old, status, want, metadata] of invalidCases) {
  test(`pods/status: ${name}`, async () => {
    const { causes } = await storeUpdate(pods, written(old, status, metadata), old, 'status');
    assert.deepEqual(causesOf(causes), want);
  });
}

test('pods/status: a status or condition written without observedGeneration keeps the old one', async () => {
  const old = stored({ observedGeneration: 3, conditions: [{ type: 'Ready', status: 'False', observedGeneration: 2 }, { type: 'Ready', status: 'False', observedGeneration: 3 }] });
  const { obj, causes } = await storeUpdate(pods, written(old, {
    observedGeneration: undefined, conditions: [{ type: 'Ready', status: 'True' }, { type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }],
  }), old, 'status');
  assert.deepEqual(causes, []);
  const status = obj.status as Json;
  assert.equal(status.observedGeneration, 3);
  assert.deepEqual((status.conditions as Json[]).map((c) => c.observedGeneration), [2, 3, undefined]);
});
