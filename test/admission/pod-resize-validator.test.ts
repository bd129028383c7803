// PodResizeValidator admission: a resize of a bound pod must fit its node's allocatable
// cpu and memory, on a Linux node; other writes are not its concern.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { podResizeValidator } from '../../src/admission/pod-resize-validator.ts';

const node = (name: string, os: string | undefined): KubeObject => ({
  apiVersion: 'v1', kind: 'Node',
  metadata: { name, ...(os === undefined ? {} : { labels: { 'kubernetes.io/os': os } }) },
  status: { allocatable: { cpu: '2', memory: '4Gi', pods: '110' } },
});
const nodes = new Map([['linux', node('linux', 'linux')], ['windows', node('windows', 'windows')]]);
const plugin = podResizeValidator({ get: async (name) => nodes.get(name) });

function pod(nodeName: string, generation: number, requests: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', generation }, spec: { nodeName, containers: [{ name: 'c', image: 'x', resources: { requests } }] } };
}

function attrs(object: KubeObject, oldObject: KubeObject, subresource = 'resize'): AdmissionAttributes {
  return { operation: 'UPDATE', group: '', version: 'v1', resource: 'pods', subresource, kind: 'Pod', namespace: 'ns', name: 'p', object, oldObject, dryRun: false, namespaced: true };
}

async function refusal(a: AdmissionAttributes): Promise<{ message: string; causes: unknown } | undefined> {
  try {
    await plugin.validate!(a);
    return undefined;
  } catch (err) {
    assert.ok(isStatusError(err) && err.code === 403, String(err));
    return { message: err.message, causes: err.details?.causes };
  }
}

test('a resize beyond the node\'s allocatable cpu and memory is refused with the NodeCapacity cause', async () => {
  const old = pod('linux', 1, { cpu: '1', memory: '1Gi' });
  assert.deepEqual(await refusal(attrs(pod('linux', 2, { cpu: '2500m', memory: '5Gi' }), old)), {
    message: 'pods "p" is forbidden: Node didn\'t have enough allocatable resources: cpu, requested: 2500, allocatable: 2000; memory, requested: 5368709120, allocatable: 4294967296',
    causes: [{ reason: 'NodeCapacity' }],
  });
  assert.equal(await refusal(attrs(pod('linux', 2, { cpu: '2', memory: '4Gi' }), old)), undefined, 'exactly the allocatable fits');
});

test('a node that is not Linux, or not there, refuses; writes that are not resizes of bound pods pass', async () => {
  assert.deepEqual(await refusal(attrs(pod('windows', 2, { cpu: '1' }), pod('windows', 1, { cpu: '500m' }))), {
    message: 'pods "p" is forbidden: pod resize is only supported on linux nodes, node "windows" is "windows"',
    causes: [{ reason: 'UnsupportedPlatform' }],
  });
  assert.equal((await refusal(attrs(pod('gone', 2, { cpu: '1' }), pod('gone', 1, { cpu: '500m' }))))?.message, 'pods "p" is forbidden: node "gone" not found');
  assert.equal(await refusal(attrs(pod('', 2, { cpu: '64' }), pod('', 1, { cpu: '1' }))), undefined, 'an unbound pod');
  assert.equal(await refusal(attrs(pod('linux', 1, { cpu: '64' }), pod('linux', 1, { cpu: '64' }))), undefined, 'the generation did not move');
  assert.equal(await refusal(attrs(pod('linux', 2, { cpu: '64' }), pod('linux', 1, { cpu: '1' }), '')), undefined, 'not through pods/resize');
});
