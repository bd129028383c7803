// A webhook's service reference resolved to a ready endpoint of the service, with upstream's
// words when there is none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notFound } from '../../src/api/errors.ts';
import { matchLabels } from '../../src/api/labels.ts';
import type { KubeObject } from '../../src/api/index.ts';
import type { Store } from '../../src/registry/store.ts';
import { serviceEndpointResolver } from '../../src/registry/service-endpoints.ts';

/** Stores answering from fixed objects, as the resolver reads them (get, and list by label). */
function stores(services: KubeObject[], slices: KubeObject[]) {
  const services_ = {
    async get(ns: string, name: string) {
      const found = services.find((s) => s.metadata.namespace === ns && s.metadata.name === name);
      if (found === undefined) throw notFound({ group: '', resource: 'services' }, name);
      return found;
    },
  } as unknown as Store;
  const slices_ = {
    async list(ns: string, req: any) {
      const items = slices.filter((s) => s.metadata.namespace === ns && matchLabels(req.filter.labels, s.metadata.labels ?? {}));
      return { items: items.map((object) => ({ object })) };
    },
  } as unknown as Store;
  return serviceEndpointResolver(() => ({ services: services_, endpointSlices: slices_ }));
}

const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'ns', name }, spec }) as KubeObject;
const slice = (service: string, ports: unknown[], endpoints: unknown[]) => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'ns', name: `${service}-x`, labels: { 'kubernetes.io/service-name': service } }, ports, endpoints,
}) as unknown as KubeObject;

test('a ready endpoint with the service port\'s name', async () => {
  const resolve = stores(
    [service('hook', { ports: [{ name: 'https', port: 443 }, { name: 'metrics', port: 8080 }] })],
    [slice('hook', [{ name: 'metrics', port: 9090 }, { name: 'https', port: 9443 }], [
      { addresses: ['10.0.0.1'], conditions: { ready: false } },
      { addresses: ['10.0.0.2'], conditions: { ready: true } },
    ])],
  );
  assert.deepEqual(await resolve('ns', 'hook', 443), { host: '10.0.0.2', port: 9443 });
  assert.deepEqual(await resolve('ns', 'hook', 8080), { host: '10.0.0.2', port: 9090 });
});

test('upstream\'s words when there is none', async () => {
  const resolve = stores(
    [service('hook', { ports: [{ name: 'https', port: 443 }] }), service('idle', { ports: [{ port: 443 }] }), service('odd', { type: 'Headless' }),
      service('far', { type: 'ExternalName', externalName: 'hooks.example.com' })],
    [slice('idle', [{ port: 443 }], [{ addresses: ['10.0.0.3'], conditions: { ready: false } }])],
  );
  assert.deepEqual(await resolve('ns', 'missing', 443), { error: 'service "missing" not found' });
  assert.deepEqual(await resolve('ns', 'hook', 444), { error: 'no service port 444 found for service "hook"' });
  assert.deepEqual(await resolve('ns', 'hook', 443), { error: 'no endpoints available for service "hook"' });
  assert.deepEqual(await resolve('ns', 'idle', 443), { error: 'no endpoints available for service "idle"' });
  assert.deepEqual(await resolve('ns', 'odd', 443), { error: 'unsupported service type "Headless"' });
  assert.deepEqual(await resolve('ns', 'far', 8443), { host: 'hooks.example.com', port: 8443 });
});
