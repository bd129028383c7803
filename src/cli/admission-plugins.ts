// The admission chain kube-apiserver runs by default, as far as Plinth has its plugins, in
// v1.36's order (AllOrderedPlugins): NamespaceLifecycle, LimitRanger, ServiceAccount,
// (NodeRestriction), TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds,
// DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize, RuntimeClass,
// CertificateApproval, CertificateSigning, CertificateSubjectRestriction, DefaultIngressClass,
// PodTopologyLabels, NodeDeclaredFeatureValidator, PodResizeValidator, MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota.
// Of v1.36's default plugins, ClusterTrustBundleAttest, PodGroupProtection,
// PodGroupWorkloadExists and JobValidation are not here.

import type { AdmissionPlugin } from '../admission/chain.ts';
import { defaultStorageClassAdmission } from '../admission/default-storage-class.ts';
import { storageObjectInUseProtection } from '../admission/storage-object-in-use-protection.ts';
import { mutatingAdmissionPolicy } from '../admission/mutating-admission-policy.ts';
import { validatingAdmissionPolicy } from '../admission/validating-admission-policy.ts';
import { matchLabels, type LabelSelector } from '../api/labels.ts';
import { limitRanger } from '../admission/limit-ranger.ts';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { podResizeValidator } from '../admission/pod-resize-validator.ts';
import { nodeDeclaredFeatureValidator } from '../admission/node-declared-feature-validator.ts';
import { nodeRestriction, nodeRestrictionPluginName } from '../admission/node-restriction.ts';
import { certificateApproval, certificateSigning, certificateSubjectRestriction, type SignerAuthorizer } from '../admission/certificates.ts';
import { defaultIngressClassAdmission } from '../admission/default-ingress-class.ts';
import { defaultTolerationSeconds, type DefaultTolerations } from '../admission/default-toleration-seconds.ts';
import { persistentVolumeClaimResize } from '../admission/persistent-volume-claim-resize.ts';
import { runtimeClassAdmission } from '../admission/runtime-class.ts';
import { taintNodesByCondition } from '../admission/taint-nodes-by-condition.ts';
import { podSecurityAdmission, type PodSecurityConfiguration, type PodSecurityMetrics } from '../admission/pod-security/plugin.ts';
import { podTopologyLabels } from '../admission/pod-topology-labels.ts';
import { priorityAdmission } from '../admission/priority.ts';
import type { GroupResource } from '../admission/quota-usage.ts';
import { resourceQuotaAdmission } from '../admission/resource-quota.ts';
import { serviceAccountAdmission } from '../admission/service-account.ts';
import { WebhookAdmission, type WebhookConfigurationSource } from '../admission/webhook.ts';
import { internalError, isStatusError, type KubeObject } from '../api/index.ts';
import { clone } from '../api/json.ts';
import type { CacheWatcher } from '../cache/index.ts';
import type { Authorize } from '../cel/authz.ts';
import type { ServiceResolver } from '../admission/webhook-client.ts';
import type { Equivalents } from '../admission/equivalents.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';

export interface AdmissionPlugins {
  plugins: AdmissionPlugin[];
  /** Starts following the webhook configurations; call once the stores' caches run. */
  start(): Promise<void>;
  /**
   * Starts following the admission policies and their bindings; called once the server
   * serves (their types load on first use, which start-up need not wait for; until then
   * the plugins read them from storage). Settles once every followed configuration's watch
   * has delivered its initial state: /readyz's informer-sync.
   */
  startPolicies(): Promise<void>;
  close(): void;
}

function storeOf(registry: ResourceRegistry, group: string, resource: string): Store {
  const served = registry.lookup(group, 'v1', resource);
  if (served === undefined) throw new Error(`${resource}.${group} is not served`);
  return served.store;
}

/**
 * A namespace's objects of a resource in whichever version is served (object counts
 * name a group and resource only); none when it is not served.
 */
export async function namespaceObjects(registry: ResourceRegistry, gr: GroupResource, namespace: string): Promise<KubeObject[]> {
  const served = registry.all().find(({ type }) => type.group === gr.group && type.resource === gr.resource && type.namespaced);
  if (served === undefined) return [];
  return (await served.store.list(namespace)).items.map((item) => item.object);
}

/**
 * The webhook configurations of one kind, kept current by a watch, as upstream's plugins
 * read them from an informer: a request costs no list. Until started, and whenever the
 * watch has to be reopened, they are read from the watch cache instead.
 */
class WatchedConfigurations implements WebhookConfigurationSource {
  private readonly store: () => Store;
  private readonly log: (message: string) => void;
  private readonly byName = new Map<string, KubeObject>();
  private snapshot: KubeObject[] | undefined;
  private watcher: CacheWatcher | undefined;
  private synced = false;
  private closed = false;
  /** Settled the first time the watch's initial state is complete (upstream's informer HasSynced, for /readyz's informer-sync). */
  readonly firstSync: Promise<void>;
  private markSynced!: () => void;

  constructor(store: () => Store, log: (message: string) => void) {
    this.store = store;
    this.log = log;
    this.firstSync = new Promise((resolve) => { this.markSynced = resolve; });
  }

  /** Once synced, the objects at once (admission plugins then skip the write without a promise when there are none). */
  list(): KubeObject[] | Promise<KubeObject[]> {
    if (!this.synced) {
      // Every write of start-up asks (four sources, ~200 writes): the cache answers at once once it has loaded.
      return this.store().listCachedNow('') ?? this.store().list('', { consistency: { kind: 'any' } }).then((list) => list.items.map((item) => item.object));
    }
    this.snapshot ??= [...this.byName.values()];
    return this.snapshot;
  }

  async start(): Promise<void> {
    if (this.closed) return;
    const watcher = await this.store().watch('', { resourceVersion: '', sendInitialEvents: true, bookmarks: true });
    this.watcher = watcher;
    this.byName.clear();
    this.snapshot = undefined;
    void (async () => {
      try {
        for await (const event of watcher) {
          if (event.type === 'BOOKMARK') {
            // The initial state is complete once the bookmark announcing its end arrives (WatchList).
            if (event.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') {
              this.synced = true;
              this.markSynced();
            }
            continue;
          }
          const name = event.object.metadata.name ?? '';
          if (event.type === 'DELETED') this.byName.delete(name);
          else this.byName.set(name, event.object);
          this.snapshot = undefined;
        }
      } catch (err) {
        if (!this.closed) this.log(`admission: watch of ${this.store().type.resource} ended: ${(err as Error).message}`);
      }
      // A watch that ends (410 once it fell out of the event history, say) is reopened; meanwhile reads go to the cache.
      this.synced = false;
      if (!this.closed) this.start().catch((err: unknown) => this.log(`admission: rewatching ${this.store().type.resource}: ${(err as Error).message}`));
    })();
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
  }
}

/** The plugins in upstream's order. Stores are looked up when first needed: the chain is built before them. */
export interface AdmissionOptions {
  /** `--enable-admission-plugins`: the default-off plugins to run (NodeRestriction). */
  enabled?: readonly string[];
  /** `--disable-admission-plugins`: default plugins not to run. */
  disabled?: readonly string[];
  /** PodSecurity's configuration (`--admission-control-config-file`); upstream's defaults without one. */
  podSecurity?: PodSecurityConfiguration;
  /** PodSecurity's counters (`/metrics`). */
  podSecurityMetrics?: PodSecurityMetrics;
  /** The server's authorizer, for the certificate plugins; without it (tests) signers are allowed. */
  authorizeSigner?: SignerAuthorizer;
  /** The server's authorizer, for the `authorizer` of admission policies' and webhooks' expressions. */
  authorize?: Authorize;
  /** `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds` (300 each). */
  defaultTolerations?: DefaultTolerations;
  /** Where webhooks named by a service are called; without it (tests) their calls fail. */
  resolveService?: ServiceResolver;
  /** The NodeDeclaredFeatures gate (beta, on by default in v1.36): NodeDeclaredFeatureValidator checks pod updates under it. */
  nodeDeclaredFeatures?: boolean;
}

export function admissionPlugins(registry: ResourceRegistry, log: (message: string) => void, options: AdmissionOptions = {}): AdmissionPlugins {
  const enabled = options.enabled ?? [];
  const disabled = options.disabled ?? [];
  const authorizeSigner: SignerAuthorizer = options.authorizeSigner ?? (async () => true);
  const namespaces = () => storeOf(registry, '', 'namespaces');
  // A consistent read of the namespace as the watch cache holds it (read-only), rather than a
  // storage read and a decode per create; on etcd a consistent read still goes to etcd.
  const namespace = async (name: string): Promise<KubeObject | undefined> => {
    try {
      return (await namespaces().getForAnswer('', name)).object;
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  };
  const quotas = () => storeOf(registry, '', 'resourcequotas');
  const node = (name: string) => storeOf(registry, '', 'nodes').find('', name);
  const mutating = new WatchedConfigurations(() => storeOf(registry, 'admissionregistration.k8s.io', 'mutatingwebhookconfigurations'), log);
  const validating = new WatchedConfigurations(() => storeOf(registry, 'admissionregistration.k8s.io', 'validatingwebhookconfigurations'), log);
  const policies = new WatchedConfigurations(() => storeOf(registry, 'admissionregistration.k8s.io', 'validatingadmissionpolicies'), log);
  const bindings = new WatchedConfigurations(() => storeOf(registry, 'admissionregistration.k8s.io', 'validatingadmissionpolicybindings'), log);
  const mutatingPolicies = new WatchedConfigurations(() => storeOf(registry, 'admissionregistration.k8s.io', 'mutatingadmissionpolicies'), log);
  const mutatingBindings = new WatchedConfigurations(() => storeOf(registry, 'admissionregistration.k8s.io', 'mutatingadmissionpolicybindings'), log);
  // matchPolicy Equivalent: the request's other versions, and the object as they serve it.
  const equivalents: Equivalents = {
    equivalents: (attrs) => registry.equivalents(attrs.group, attrs.version, attrs.resource, attrs.subresource)
      .map(({ type }) => ({ group: type.group, version: type.version, resource: type.resource, kind: type.kind })),
    async convert(obj, from, to) {
      const source = registry.lookup(from.group, from.version, from.resource);
      const target = registry.lookup(to.group, to.version, to.resource);
      if (source === undefined || target === undefined) throw internalError(`unable to convert to ${to.group}/${to.version}, Resource=${to.resource}: unknown kind`);
      return target.store.convertFrom(obj, source.store);
    },
  };
  // The resource serving an admission policy's paramKind.
  const paramResource = (apiVersion: string, kind: string) => {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
    return registry.all().find(({ type }) => type.group === group && type.version === version && type.kind === kind);
  };
  const policySources = {
    equivalents,
    namespace,
    paramScope(apiVersion: string, kind: string) {
      const served = paramResource(apiVersion, kind);
      return served === undefined ? undefined : served.type.namespaced ? 'Namespaced' as const : 'Cluster' as const;
    },
    async params(apiVersion: string, kind: string, namespace: string, name: string | undefined, selector: LabelSelector | undefined) {
      const served = paramResource(apiVersion, kind);
      if (served === undefined) return undefined;
      const scope = served.type.namespaced ? namespace : '';
      if (name !== undefined) {
        const found = await served.store.find(scope, name);
        return found === undefined ? [] : [found];
      }
      const items = (await served.store.list(scope, { consistency: { kind: 'any' } })).items.map((item) => item.object);
      return selector === undefined ? items : items.filter((o) => matchLabels(selector, o.metadata.labels ?? {}));
    },
    ...(options.authorize !== undefined ? { authorize: options.authorize } : {}),
    log,
  };
  const webhooks = new WebhookAdmission({
    mutating,
    validating,
    async namespaceLabels(name) {
      try {
        return (await namespaces().get('', name, { kind: 'any' })).metadata.labels ?? {};
      } catch (err) {
        if (isStatusError(err) && err.code === 404) return undefined;
        throw err;
      }
    },
    ...(options.authorize !== undefined ? { authorize: options.authorize } : {}),
    ...(options.resolveService !== undefined ? { resolveService: options.resolveService } : {}),
    equivalents,
    log,
  });
  return {
    plugins: [
      namespaceLifecycle(namespace, (name) => namespaces().getNow('', name)),
      limitRanger({ list: async (namespace) => (await storeOf(registry, '', 'limitranges').list(namespace)).items.map((item) => item.object) }),
      serviceAccountAdmission({ get: (namespace, name) => storeOf(registry, '', 'serviceaccounts').find(namespace, name) }),
      ...(enabled.includes(nodeRestrictionPluginName) ? [nodeRestriction({
        pod: (namespace, name) => storeOf(registry, '', 'pods').find(namespace, name),
        node,
      })] : []),
      taintNodesByCondition(),
      podSecurityAdmission({
        namespace,
        pods: async (name) => (await storeOf(registry, '', 'pods').list(name, { consistency: { kind: 'any' } })).items.map((item) => item.object),
      }, options.podSecurity, options.podSecurityMetrics),
      priorityAdmission({
        get: (name) => storeOf(registry, 'scheduling.k8s.io', 'priorityclasses').find('', name),
        list: async () => (await storeOf(registry, 'scheduling.k8s.io', 'priorityclasses').list('', { consistency: { kind: 'any' } })).items.map((item) => item.object),
      }),
      defaultTolerationSeconds(options.defaultTolerations),
      defaultStorageClassAdmission(async () => (await storeOf(registry, 'storage.k8s.io', 'storageclasses').list('', { consistency: { kind: 'any' } })).items.map((item) => item.object)),
      storageObjectInUseProtection(),
      persistentVolumeClaimResize((name) => storeOf(registry, 'storage.k8s.io', 'storageclasses').find('', name)),
      runtimeClassAdmission((name) => storeOf(registry, 'node.k8s.io', 'runtimeclasses').find('', name)),
      certificateApproval(authorizeSigner),
      certificateSigning(authorizeSigner),
      certificateSubjectRestriction(),
      defaultIngressClassAdmission(async () => (await storeOf(registry, 'networking.k8s.io', 'ingressclasses').list('', { consistency: { kind: 'any' } })).items.map((item) => item.object)),
      podTopologyLabels(node),
      nodeDeclaredFeatureValidator({ get: node }, options.nodeDeclaredFeatures ?? true),
      podResizeValidator({ get: node }),
      mutatingAdmissionPolicy({
        ...policySources,
        policies: () => mutatingPolicies.list(),
        bindings: () => mutatingBindings.list(),
        mergeConfiguration: (attrs, obj, configuration) => registry.lookup(attrs.group, attrs.version, attrs.resource)!.store.mergeConfiguration(obj, configuration),
      }),
      webhooks.mutating,
      validatingAdmissionPolicy({ ...policySources, policies: () => policies.list(), bindings: () => bindings.list() }),
      webhooks.validating,
      resourceQuotaAdmission({
        list: async (namespace) => (await quotas().list(namespace)).items.map((item) => clone(item.object)),
        noneNow: (namespace) => quotas().listNow(namespace)?.length === 0,
        async updateStatus(quota) {
          const { metadata } = quota;
          await quotas().guaranteedUpdate(metadata.namespace!, metadata.name!, metadata.resourceVersion, {}, () => quota, { subresource: 'status' });
        },
        objects: (gr, namespace) => namespaceObjects(registry, gr, namespace),
      }),
    ].filter((plugin) => !disabled.includes(plugin.name)),
    async start() {
      await Promise.all([mutating.start(), validating.start()]);
    },
    async startPolicies() {
      const sources = [policies, bindings, mutatingPolicies, mutatingBindings];
      await Promise.all(sources.map((source) => source.start()));
      await Promise.all([mutating, validating, ...sources].map((source) => source.firstSync));
    },
    close() {
      mutating.close();
      validating.close();
      policies.close();
      bindings.close();
      mutatingPolicies.close();
      mutatingBindings.close();
      webhooks.close();
    },
  };
}
