// Where a webhook named by a Service is called: Plinth has no service network, so a service
// reference resolves to a ready endpoint of the service from its EndpointSlices, as
// upstream's endpoint resolver does (`--enable-aggregator-routing`); an ExternalName
// service to its name. The errors are upstream's words, which operators know from
// `kubectl` (`service "cert-manager-webhook" not found`).

import { isStatusError, type KubeObject } from '../api/index.ts';
import { parseLabelSelector } from '../api/labels.ts';
import type { ServiceEndpoint, ServiceResolver } from '../admission/webhook-client.ts';
import type { Store } from './store.ts';

type Raw = Record<string, unknown>;

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * Resolves services from the Stores' caches (a read of each, no round trip to storage). The
 * Stores are looked up at the first call: the resolver is made before they are registered.
 */
export function serviceEndpointResolver(stores: () => { services: Store; endpointSlices: Store }): ServiceResolver {
  return async (namespace, name, port) => {
    const { services, endpointSlices } = stores();
    let service: KubeObject;
    try {
      service = await services.get(namespace, name, { kind: 'any' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return { error: `service "${name}" not found` };
      throw err;
    }
    const spec = (service.spec ?? {}) as Raw;
    const type = text(spec.type) || 'ClusterIP';
    if (type === 'ExternalName') return { host: text(spec.externalName), port };
    if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') return { error: `unsupported service type "${type}"` };
    const servicePort = (Array.isArray(spec.ports) ? spec.ports as Raw[] : []).find((p) => p.port === port);
    if (servicePort === undefined) return { error: `no service port ${port} found for service "${name}"` };
    const portName = text(servicePort.name);
    const slices = await endpointSlices.list(namespace, {
      consistency: { kind: 'any' },
      filter: { labels: parseLabelSelector(`kubernetes.io/service-name=${name}`) },
    });
    const ready: ServiceEndpoint[] = [];
    for (const { object: slice } of slices.items) {
      const slicePort = ((slice as Raw).ports as Raw[] | undefined)?.find((p) => text(p.name) === portName);
      if (slicePort === undefined || typeof slicePort.port !== 'number') continue;
      for (const endpoint of ((slice as Raw).endpoints ?? []) as Raw[]) {
        if ((endpoint.conditions as Raw | undefined)?.ready === false) continue;
        const address = (endpoint.addresses as string[] | undefined)?.[0];
        if (address !== undefined) ready.push({ host: address, port: slicePort.port });
      }
    }
    // Upstream picks one at random, spreading calls over the endpoints.
    if (ready.length > 0) return ready[Math.floor(Math.random() * ready.length)]!;
    return { error: `no endpoints available for service "${name}"` };
  };
}
