// The Store's side of an apply on the worker (registry/store.ts applyOffloaded), with a
// stand-in for the worker: what it is sent, and what the Store does with its answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import { WatchCache } from '../../src/cache/index.ts';
import type { ApplyOffload } from '../../src/registry/apply-offload/client.ts';
import type { OffloadAnswer, OffloadedApply } from '../../src/registry/apply-offload/messages.ts';
import { objectKey, resourcePrefix } from '../../src/registry/keys.ts';
import { Store } from '../../src/registry/store.ts';
import { MemoryBackend } from '../../src/storage/index.ts';
import { builtinType } from '../helpers/store.ts';

const type = builtinType('deployments');

function deployment(image: string): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } } },
  };
}

test('an apply whose object the worker was thought to keep goes again with its bytes when the worker no longer has it', async (t) => {
  await type.load?.();
  const backend = new MemoryBackend();
  const decoder: { store?: Store } = {};
  const cache = new WatchCache({ backend, prefix: resourcePrefix(type), decode: (kv) => decoder.store!.decode(kv), bookmark: { kind: type.kind, apiVersion: 'apps/v1' } });
  const sent: Array<Omit<OffloadedApply, 'id'>> = [];
  // The worker as the main thread sees it: it kept answer 7 for the object, by the main thread's count, but answers "missing".
  const worker = {
    accepts: () => true,
    answerAt: () => 7,
    stored: () => {},
    async apply(request: Omit<OffloadedApply, 'id'>): Promise<OffloadAnswer | undefined> {
      sent.push(request);
      return sent.length === 1 ? { id: 1, done: false, missing: true } : undefined;
    },
  };
  const store = new Store(type, backend, new AdmissionChain([]), cache, { applyOffload: worker as unknown as ApplyOffload });
  decoder.store = store;
  t.after(async () => {
    cache.close();
    await backend.close();
  });
  await cache.start();
  const created = await store.create('ns', deployment('v1'));
  const key = objectKey(type, 'ns', 'web');
  for (let i = 0; i < 500 && String(cache.get(key)?.revision) !== created.metadata.resourceVersion; i++) await new Promise((resolve) => setImmediate(resolve));

  const result = await store.apply('ns', 'web', deployment('v2'), { fieldManager: 'm', force: true });
  assert.equal((result.object.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image, 'v2', 'applied by the main thread after the worker gave none');
  assert.equal(sent.length, 2);
  assert.equal(sent[0]!.fromAnswer, 7);
  assert.equal(sent[0]!.current.value, undefined, 'first without the bytes');
  assert.equal(sent[1]!.fromAnswer, undefined);
  assert.match(new TextDecoder().decode(sent[1]!.current.value), /"image":"v1"/, 'then with the bytes of the object the apply started from');
  assert.equal(sent[1]!.current.modRevision, Number(created.metadata.resourceVersion));
});
