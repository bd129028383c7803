// The objects every cluster has from the start, made (or brought up to date) once at
// start-up, as kube-apiserver's bootstrap controllers make them: the default/kubernetes
// Service with its Endpoints and EndpointSlice, the default ServiceCIDR, flowcontrol's
// mandatory and suggested FlowSchemas and PriorityLevelConfigurations, and the Local
// APIServices of the served group versions.

import { isStatusError, type KubeObject } from '../api/index.ts';
import { semanticEqual } from './builtin/object.ts';
import { formatIP, parseCIDR } from './validation/ip.ts';
import type { ResourceRegistry } from './registry.ts';
import type { Store } from './store.ts';
import { kubernetesEndpoints } from './endpoint-reconciler.ts';
import { danglingCondition, flowControlProducer, levelOf, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './flowcontrol-config.ts';

export interface BootstrapOptions {
  /** --service-cluster-ip-range; the kubernetes Service takes its first address. */
  serviceClusterIPRange: string;
  /** The address clients reach Plinth at: `advertisedAddress`'s choice. */
  address: string;
  /** The port Plinth serves on. */
  port: number;
  /** `--endpoint-reconciler-type`: `none` makes no Endpoints or EndpointSlice for the kubernetes Service. */
  endpointReconciler?: 'lease' | 'none';
  /**
   * What extension API servers read to trust this server's clients and authenticating proxies
   * (kube-system/extension-apiserver-authentication's data); kept as given at every start.
   */
  authenticationTrust?: Record<string, string>;
}

/** The first address of the (first) service range: what upstream gives the kubernetes Service. */
export function kubernetesServiceIP(serviceClusterIPRange: string): string {
  const cidr = parseCIDR(serviceClusterIPRange.split(',')[0]!.trim());
  if (cidr === undefined) throw new Error(`invalid service range ${serviceClusterIPRange}`);
  return formatIP({ family: cidr.family, value: cidr.base + 1n });
}

/**
 * The default ServiceCIDR, `kubernetes`, of the configured ranges, Ready (upstream's
 * default-service-cidr controller; it creates it once and leaves it be when the flags change).
 */
function defaultServiceCIDR(serviceClusterIPRange: string, now: string): KubeObject {
  const cidrs = serviceClusterIPRange.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => parseCIDR(s)?.text ?? s);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: 'kubernetes' },
    spec: { cidrs },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now, reason: '', message: 'Kubernetes default Service CIDR is ready' }] },
  };
}

/**
 * The address this server tells others to reach it at (the kubernetes Service's endpoint,
 * discovery's serverAddressByClientCIDRs), as upstream defaults it: `--advertise-address`,
 * else the bind address; an unspecified one (0.0.0.0, ::) stands for the loopback address,
 * where upstream would take the host's default interface.
 */
export function advertisedAddress(advertiseAddress: string | undefined, bindAddress: string): string {
  const specified = (address: string | undefined): address is string => address !== undefined && address !== '' && address !== '0.0.0.0' && address !== '::';
  if (specified(advertiseAddress)) return advertiseAddress;
  if (specified(bindAddress)) return bindAddress;
  return bindAddress === '::' ? '::1' : '127.0.0.1';
}

function kubernetesObjects(opts: BootstrapOptions): { service: KubeObject; endpoints: KubeObject; slice: KubeObject } {
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: kubernetesServiceIP(opts.serviceClusterIPRange),
      sessionAffinity: 'None',
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: opts.port }],
    },
  };
  return { service, ...kubernetesEndpoints([opts.address], opts.port) };
}

/** The aggregator's priorities of the group versions Plinth serves (kube-apiserver's apiVersionPriorities). */
const apiServicePriorities: Record<string, { group: number; version: number }> = {
  'v1': { group: 18000, version: 1 },
  'apiregistration.k8s.io/v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'resource.k8s.io/v1': { group: 16200, version: 21 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
};

/** A Local APIService for each built-in group version served (custom resources' groups get theirs from the CRD controller upstream). */
export function localAPIServices(registry: ResourceRegistry, now: string): KubeObject[] {
  const groupVersions = new Set<string>();
  for (const { type } of registry.served()) if (!type.customResource) groupVersions.add(type.group === '' ? type.version : `${type.group}/${type.version}`);
  return [...groupVersions].sort().flatMap((gv) => {
    const priority = apiServicePriorities[gv];
    if (priority === undefined) return [];
    const [group, version] = gv.includes('/') ? gv.split('/') as [string, string] : ['', gv];
    return [{
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `${version}.${group}`, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
      spec: { group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
      status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' }] },
    }];
  });
}

/** What of `desired` differs from `current`, compared on the fields bootstrap sets. */
function differs(desired: KubeObject, current: KubeObject, fields: string[]): boolean {
  if (!semanticEqual({ ...current.metadata.labels, ...desired.metadata.labels }, current.metadata.labels ?? {})) return true;
  return fields.some((f) => {
    const want = desired[f];
    const have = current[f];
    if (want !== null && typeof want === 'object' && !Array.isArray(want) && have !== null && typeof have === 'object' && !Array.isArray(have)) {
      return !semanticEqual({ ...(have as object), ...(want as object) }, have);
    }
    return !semanticEqual(want, have);
  });
}

/**
 * Creates `desired` when missing; when present and `reconcile` names fields, answers the
 * update that brings those fields (and the labels) back to what bootstrap wants, for the
 * caller to run. Concurrent creators (replicas starting together) are tolerated.
 */
async function ensure(store: Store, desired: KubeObject, reconcile: string[] = [], fieldManager?: string): Promise<(() => Promise<unknown>) | undefined> {
  const namespace = desired.metadata.namespace ?? '';
  const name = desired.metadata.name!;
  const current = await store.find(namespace, name);
  if (current === undefined) {
    try {
      await store.create(namespace, structuredClone(desired), fieldManager === undefined ? {} : { fieldManager });
      // Status is not taken on create: written after, as upstream's controllers do.
      if (desired.status !== undefined && store.type.subresources.includes('status')) {
        await store.guaranteedUpdate(namespace, name, undefined, {}, (obj) => ({ ...obj!, status: structuredClone(desired.status) }), { subresource: 'status', createIfMissing: false });
      }
    } catch (err) {
      if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
    }
    return undefined;
  }
  if (reconcile.length === 0 || !differs(desired, current, reconcile)) return;
  return () => store.guaranteedUpdate(namespace, name, undefined, {}, (obj) => {
    const next = obj!;
    next.metadata.labels = { ...next.metadata.labels, ...desired.metadata.labels };
    for (const f of reconcile) {
      const want = desired[f];
      const have = next[f];
      next[f] = want !== null && typeof want === 'object' && !Array.isArray(want) && have !== null && typeof have === 'object' && !Array.isArray(have)
        ? { ...(have as object), ...structuredClone(want as object) }
        : structuredClone(want);
    }
    return next;
  }, { createIfMissing: false });
}

/**
 * What upstream's legacy-token-tracking controller writes once: since when the server
 * tracks the use of legacy service-account tokens (a date). kube-controller-manager's
 * legacy-serviceaccount-token-cleaner reads it, and logs an error every run without it.
 */
function legacyTokenTracking(now: string): KubeObject {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'kube-apiserver-legacy-service-account-token-tracking', namespace: 'kube-system' },
    data: { since: now.slice(0, 'YYYY-MM-DD'.length) },
  };
}

function storeOf(registry: ResourceRegistry, group: string, version: string, resource: string): Store {
  const served = registry.lookup(group, version, resource);
  if (served === undefined) throw new Error(`bootstrap: ${group}/${version}/${resource} is not served`);
  return served.store;
}

/** kube-system/extension-apiserver-authentication: what extension API servers read to trust this server's clients and proxies. */
function authenticationTrustConfigMap(data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' }, data };
}

/** Brings extension-apiserver-authentication to `data` (a client or proxy CA file changed). */
export async function updateAuthenticationTrust(registry: ResourceRegistry, data: Record<string, string>): Promise<void> {
  const update = await ensure(storeOf(registry, '', 'v1', 'configmaps'), authenticationTrustConfigMap(data), ['data']);
  await update?.();
}

/** A FlowSchema as made at start, with the Dangling condition its level (made at start too) gives it. */
function withFoundLevel(schema: KubeObject, now: string): KubeObject {
  return { ...schema, status: { conditions: [danglingCondition(levelOf(schema), true, now)] } };
}

/** An object to make if missing: its Store, the object, the fields to bring back to it when present, who writes it. */
type Work = [store: Store, desired: KubeObject, reconcile: string[], fieldManager?: string];

/**
 * Makes the objects every cluster has. Idempotent: across restarts it creates what is
 * missing and brings the kubernetes Service, Endpoints and EndpointSlice to the current
 * address and port. What is missing is made before this answers; the updates of objects
 * that exist run after, in `reconciled` (upstream's bootstrap controller reconciles them
 * in the background too), so a restart on another port is not held up by its writes.
 */
export async function bootstrapObjects(registry: ResourceRegistry, opts: BootstrapOptions, log: (message: string) => void): Promise<{ reconciled: Promise<void> }> {
  const { service, endpoints, slice } = kubernetesObjects(opts);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const work: Work[] = [
    [storeOf(registry, '', 'v1', 'services'), service, ['spec']],
    // Made if missing; kept by the endpoint reconciler from then on (endpoint-reconciler.ts), or by nobody with `none`.
    ...(opts.endpointReconciler === 'none' ? [] : [
      [storeOf(registry, '', 'v1', 'endpoints'), endpoints, []],
      [storeOf(registry, 'discovery.k8s.io', 'v1', 'endpointslices'), slice, []],
    ] as Work[]),
    [storeOf(registry, 'networking.k8s.io', 'v1', 'servicecidrs'), defaultServiceCIDR(opts.serviceClusterIPRange, now), []],
    // Made by upstream's producer, whose ensurer keeps them from then on (controllers/flowcontrol-ensurer.ts);
    // the schemas' status as the consumer's controller finds it (controllers/flow-schema-status.ts), their levels made here too.
    ...[...mandatoryPriorityLevels, ...suggestedPriorityLevels].map((o): Work => [storeOf(registry, 'flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations'), o, [], flowControlProducer]),
    ...[...mandatoryFlowSchemas, ...suggestedFlowSchemas].map((o): Work => [storeOf(registry, 'flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas'), withFoundLevel(o, now), [], flowControlProducer]),
    ...localAPIServices(registry, now).map((o): Work => [storeOf(registry, 'apiregistration.k8s.io', 'v1', 'apiservices'), o, []]),
    [storeOf(registry, '', 'v1', 'configmaps'), legacyTokenTracking(now), []],
    ...(opts.authenticationTrust !== undefined ? [[storeOf(registry, '', 'v1', 'configmaps'), authenticationTrustConfigMap(opts.authenticationTrust), ['data']] as Work] : []),
  ];
  // One object that cannot be written (a kubernetes Service whose ClusterIP moved with the
  // service range) is logged; the others are still made. All at once: their writes share
  // storage commits.
  const failed = (store: Store, desired: KubeObject) => (err: unknown) => {
    log(`bootstrap: ${store.type.resource} ${desired.metadata.name}: ${err instanceof Error ? err.message : String(err)}`);
  };
  const updates = await Promise.all(work.map(([store, desired, reconcile, fieldManager]) =>
    ensure(store, desired, reconcile, fieldManager).catch((err: unknown) => void failed(store, desired)(err))));
  const reconciled = Promise.all(updates.map((update, i) => update?.().catch(failed(work[i]![0], work[i]![1])))).then(() => {});
  return { reconciled };
}
