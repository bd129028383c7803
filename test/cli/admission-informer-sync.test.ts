// The admission configurations' followers settle startPolicies (/readyz's informer-sync) once
// every watch has delivered its initial state, as upstream's informer-sync check waits for its
// informers' HasSynced, not once the watches are open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionPlugins } from '../../src/cli/admission-plugins.ts';
import type { ResourceRegistry } from '../../src/registry/registry.ts';

interface FakeEvent { type: string; object: { metadata: { name?: string; annotations?: Record<string, string> } } }

/** A registry whose stores' watches open at once and deliver their initial-events-end bookmark when told. */
function fakeRegistry() {
  const releases: (() => void)[] = [];
  const opened: string[] = [];
  const store = (resource: string) => ({
    type: { resource },
    async watch() {
      opened.push(resource);
      let release!: () => void;
      const released = new Promise<void>((resolve) => { release = resolve; });
      releases.push(release);
      let closed = false;
      let wake: (() => void) | undefined;
      async function* events(): AsyncGenerator<FakeEvent> {
        yield { type: 'ADDED', object: { metadata: { name: 'one' } } };
        await released;
        yield { type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } };
        while (!closed) await new Promise<void>((resolve) => { wake = resolve; });
      }
      const iterator = events();
      return Object.assign(iterator, { close() { closed = true; wake?.(); } });
    },
  });
  const stores = new Map<string, ReturnType<typeof store>>();
  const registry = {
    lookup(_group: string, _version: string, resource: string) {
      if (!stores.has(resource)) stores.set(resource, store(resource));
      return { store: stores.get(resource) };
    },
    all: () => [],
  } as unknown as ResourceRegistry;
  return { registry, releases, opened };
}

test('startPolicies settles once every admission configuration\'s watch has synced, not when the watches open', async () => {
  const { registry, releases, opened } = fakeRegistry();
  const setup = admissionPlugins(registry, () => {});
  try {
    await setup.start();
    let settled = false;
    const policies = setup.startPolicies().then(() => { settled = true; });
    // The four policy sources open their watches; the two webhook sources opened theirs in start().
    while (opened.length < 6) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) {
      releases[i]!();
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(settled, false, `settled with ${i + 1} of 6 watches synced`);
    }
    releases[5]!();
    await policies;
    assert.equal(settled, true);
  } finally {
    setup.close();
  }
});
