// The main thread's side of the apply worker (registry/apply-offload/client.ts) on its own:
// what it answers when a request cannot reach the worker.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplyOffload } from '../../src/registry/apply-offload/client.ts';

const offload = new ApplyOffload(0, () => new URL('../../src/cli/apply-worker.ts', import.meta.url));
after(() => offload.close());

function request(applied: unknown) {
  return {
    resource: 'apps/deployments', namespace: 'ns', name: 'web', configuration: { value: applied, duplicateFields: [] },
    current: { key: '/registry/deployments/ns/web', value: new TextEncoder().encode('{}'), createRevision: 1, modRevision: 1 },
    fromAnswer: undefined, fieldManager: 'm', force: true, directive: 'Ignore' as const,
    user: { name: 'u', uid: '', groups: [] },
    allowPrivileged: true,
  };
}

test('a request that does not copy to the worker is answered "none" at once, and leaves nothing pending', async () => {
  assert.equal(offload.accepts('apps/deployments'), false, 'the first apply starts the worker');
  assert.equal(await offload.whenReady(), true);
  // A function cannot be copied to another thread (DataCloneError).
  const answer = await offload.apply(request({ spec: { template: () => 0 } }));
  assert.equal(answer, undefined);
  assert.equal(offload.busy, false, 'no answer is waited for');
  // The worker still serves what does copy (an apply of an object it cannot read: not done).
  const next = await offload.apply(request({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }));
  assert.equal(next?.done, false);
  assert.equal(offload.busy, false);
});

test('an apply sent without its object\'s bytes, for an answer the worker does not keep, is answered "missing"', async () => {
  assert.equal(await offload.whenReady(), true);
  const { current, ...rest } = request({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
  const { value: _value, ...withoutBytes } = current;
  const answer = await offload.apply({ ...rest, current: withoutBytes, fromAnswer: 12345 });
  assert.deepEqual(answer, { id: (answer as { id: number }).id, done: false, missing: true });
  // With the bytes, the same apply is the worker's to try (here: not done, the object is not a Deployment it can read).
  const again = await offload.apply({ ...rest, current, fromAnswer: undefined });
  assert.equal(again?.done, false);
  assert.equal((again as { missing?: true }).missing, undefined);
});
