// kubectl get of a CSI driver, a volume attachment and a resource slice: the columns
// upstream's printers define reach kubectl's output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as runKubectl, needsKubectl } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

async function create(path: string, body: object): Promise<void> {
  const res = await server.request('POST', path, { body });
  assert.equal(res.status, 201, res.text);
}

const kubectl = (...args: string[]) => runKubectl(server, ...args);

const header = (out: string) => out.split('\n')[0]!.trim().split(/\s{2,}/);

describe('kubectl get prints the storage and resource allocation columns', needsKubectl, () => {
  test('csidrivers', async () => {
    await create('/apis/storage.k8s.io/v1/csidrivers', { metadata: { name: 'cols.csi.example.com' }, spec: { tokenRequests: [{ audience: 'vault' }] } });
    const out = await kubectl('get', 'csidrivers', 'cols.csi.example.com');
    assert.deepEqual(header(out), ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
    assert.match(out, /^cols\.csi\.example\.com\s+true\s+false\s+false\s+vault\s+false\s+Persistent\s+\d+s$/m);
  });

  test('volumeattachments', async () => {
    await create('/apis/storage.k8s.io/v1/volumeattachments', {
      metadata: { name: 'cols-va' }, spec: { attacher: 'cols.csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
    });
    const out = await kubectl('get', 'volumeattachments', 'cols-va');
    assert.deepEqual(header(out), ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE']);
    assert.match(out, /^cols-va\s+cols\.csi\.example\.com\s+pv-1\s+node-1\s+false\s+\d+s$/m);
  });

  test('resourceslices', async () => {
    await create('/apis/resource.k8s.io/v1/resourceslices', {
      metadata: { name: 'cols-slice' },
      spec: { nodeName: 'node-1', driver: 'gpu.example.com', pool: { name: 'pool-a', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'gpu-0' }] },
    });
    const out = await kubectl('get', 'resourceslices', 'cols-slice');
    assert.deepEqual(header(out), ['NAME', 'NODE', 'DRIVER', 'POOL', 'AGE']);
    assert.match(out, /^cols-slice\s+node-1\s+gpu\.example\.com\s+pool-a\s+\d+s$/m);
  });
});
