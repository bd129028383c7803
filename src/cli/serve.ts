// The composition root: builds storage, caches, registry, controllers and the server from a Config.
import { constants, existsSync } from 'node:fs';
import { access, mkdir, open, readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { AdmissionChain } from '../admission/chain.ts';
import { apiVersionOf, isStatusError, type KubeObject } from '../api/index.ts';
import { isEncodedHere, storedJsonWithResourceVersion, writtenObject, writtenView } from '../registry/codec.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { isStorageError, type Backend, type KeyValue } from '../storage/backend.ts';
import { WatchCache } from '../cache/index.ts';
import {
  AuthenticationFailure, audienceAgnostic, extendedTokenExpirationSeconds, projectedTokenExpirationSeconds, bearerTokenAuthenticator, clientCertificateAuthenticator, ensureAdminToken, forbiddenError, lazyServiceAccountKeys,
  openIdConfiguration, parseTokenFile, publicJwks, legacyServiceAccountTokenAuthenticator, requestAuthenticator, serviceAccountTokenAuthenticator, serviceAccountTokenIssuer, tokenFileAuthenticator, unionTokenAuthenticator,
  type Authenticator, type Authorizer, type BoundObject, type ServiceAccountKeys, type ServiceAccountTokenGetter,
} from '../auth/index.ts';
import { rbacEscalationCheck } from '../auth/escalation.ts';
import { draStatusAuthorization } from '../auth/dra-status-authorization.ts';
import { draAdminAccessCheck } from '../registry/builtin/resource-claim-admin-access.ts';
import { RbacAuthorizer } from '../auth/rbac.ts';
import { currentRequest, requestGroupResource } from '../api/request-context.ts';
import { reviewedUser, type AuthenticationApi } from '../endpoints/handlers/authentication.ts';
import { CrdController } from '../controllers/crd.ts';
import { ApiHandler } from '../endpoints/api-handler.ts';
import { KubeletClient, type KubeletTls } from '../endpoints/kubelet-client.ts';
import { PodNetworkClient } from '../endpoints/pod-network-client.ts';
import type { HealthCheck } from '../endpoints/health.ts';
import type { ApiMetrics } from '../server/metrics.ts';
import { AuditLog, auditSinks, loadAuditPolicy, truncatingSink, type AuditSink, type AuditTruncation } from '../server/audit.ts';
import { BlockingAuditSink, BufferedAuditSink } from '../server/audit-delivery.ts';
import { AgentPool } from '../admission/webhook-client.ts';
import { defaultBackoff, webhookCaller } from './webhook-caller.ts';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.ts';
import { instrumentedBackend } from '../storage/instrumented.ts';
import { WatchStreams, type WatchStreamStats } from '../endpoints/watch-streams.ts';
import { Discovery } from '../endpoints/discovery.ts';
import { OpenApiService } from '../endpoints/openapi-service.ts';
import { builtinDefinitionsCopy } from '../schema/builtin/index.ts';
import { builtinResourceTypes } from '../registry/builtin/index.ts';
import { resourcePrefix } from '../registry/keys.ts';
import { advertisedAddress, bootstrapObjects, updateAuthenticationTrust } from '../registry/bootstrap.ts';
import { LeaseEndpointReconciler } from '../registry/endpoint-reconciler.ts';
import { IdentityLeaseController } from '../registry/identity-lease.ts';
import { compileGoRegexp, type GoRegexp } from '../schema/regexp.ts';
import { runtimeConfigDisabled } from './runtime-config.ts';
import { formatDuration } from '../encoding/protobuf/special-types.ts';
import { loadedProtobufCodec } from '../encoding/protobuf-loader.ts';
import { customResourceDefinitionsType } from '../registry/crd/customresourcedefinitions.ts';
import { CustomResourceStore } from '../registry/crd/custom-resource-store.ts';
import { WebhookConverter } from '../registry/crd/conversion-webhook.ts';
import { ConvertingBackend } from '../registry/crd/converting-backend.ts';
import { serviceEndpointResolver } from '../registry/service-endpoints.ts';
import type { CustomResourceVersion } from '../registry/crd/custom-resource.ts';
import { ResourceRegistry } from '../registry/registry.ts';
import type { Definitions } from '../schema/types.ts';
import { Store } from '../registry/store.ts';
import { ApplyOffload } from '../registry/apply-offload/client.ts';
import { ApiServer } from '../server/server.ts';
import { ensureClientMaterial, ensureFrontProxyMaterial, ensureServingMaterial, frontProxyClientName } from '../server/tls-material.ts';
import { certificateNames, readServingFiles } from '../server/serving-files.ts';
import { followServingFiles } from './serving-certificate.ts';
import { followClientCas, readCaBundle } from './client-ca.ts';
import { watchFile } from './watch-file.ts';
import type { Verbosity } from './logger.ts';
import { compactorFor, EncryptingBackend, grpcKmsService, openBackend, transformationStatus, withTimeToLive, type TransformationObserver } from '../storage/index.ts';
import { keyResourceResolver, loadEncryptionConfig, resourceTransformers, startKmsProviders, type KmsProviders } from './encryption-config.ts';
import { ensureSystemPriorityClasses } from '../registry/builtin/priorityclasses.ts';
import { admissionPlugins } from './admission-plugins.ts';
import { controllersLease, electedControllers, LeaderControllers } from './leader-controllers.ts';
import { controllerEnabled } from './controllers-flag.ts';
import { UsageError, type AuditWebhookFlags, type Config } from './config.ts';
import { failureOfFlags } from './flag-parsing.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { RbacInformers, rbacStores, reconcileBootstrapPolicy } from './rbac.ts';
import { FlowControlInformers } from './flow-control.ts';
import { authorizationSetup } from './authorization.ts';
import { bootstrapTokenAuthenticator, type BootstrapSecretGetter } from '../auth/bootstrap-token.ts';
import { ApiAggregation } from '../controllers/api-aggregation.ts';
import { NodeAuthorization } from './node-authorization.ts';
import { authenticationSetup, authenticationTrustOf } from './authentication.ts';
import { podSecurityConfiguration } from './admission-config.ts';
import { joinHostPort } from '../api/go-dial-error.ts';

export const plinthVersion = '0.1.0';

/** Namespaces that exist in every cluster, as kube-apiserver's bootstrap controller makes them. */
const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export interface RunningServer {
  url: string;
  port: number;
  kubeconfigPath: string;
  /** The admin bearer token. */
  token: string;
  caPem: string;
  /** The admin's client certificate and key (CN=kubernetes-admin, O=system:masters), when the data dir's client CA signs them. */
  adminCertificate?: { certPem: string; keyPem: string };
  registry: ResourceRegistry;
  /**
   * Settles once the start-up steps that run after the server serves have finished (the
   * aggregator's informers, the identity lease, the admission policies' informers): what
   * /readyz's post-start hooks and informer-sync wait for.
   */
  started: Promise<void>;
  /** Open watchers across all watch caches (to check that watches are released). */
  watcherCount(): number;
  /** The apply worker thread, when the server may start one (tests): whether it is ready, and how many applies it finished. */
  applyWorker: ApplyOffload | undefined;
  /** Open watch streams and what each holds for its client (to check that slow clients are bounded). */
  watchStreamStats(): WatchStreamStats;
  /**
   * What storage holds now, and a function that puts it back: objects created since are
   * deleted, changed ones restored, deleted ones recreated (through storage, so watches
   * and caches see every change). For test suites resetting a server between tests.
   */
  snapshot(): Promise<() => Promise<void>>;
  /** Graceful stop: stop accepting, finish in-flight requests, end watches, close storage. */
  close(): Promise<void>;
}

/** Every key under /registry/, in pages. */
async function allKeys(backend: Backend): Promise<KeyValue[]> {
  const out: KeyValue[] = [];
  let startAfter: string | undefined;
  for (;;) {
    const page = await backend.list('/registry/', { limit: 1000, ...(startAfter !== undefined ? { startAfter } : {}), countRemaining: false });
    out.push(...page.items);
    if (!page.more || page.items.length === 0) return out;
    startAfter = page.items[page.items.length - 1]!.key;
  }
}

/**
 * The client certificate Plinth proxies to extension API servers with: the flags', else the
 * data dir's front-proxy client (whose CA is then the default request-header CA).
 */
async function frontProxyMaterial(config: Config, dataDir: string): Promise<{ client: { certPem: string; keyPem: string }; defaultCaFile?: string }> {
  if (config.proxyClientCertFile !== undefined) {
    // Read and checked as upstream's aggregator-proxy-cert content: both files, a certificate and its key.
    try {
      const { certPem, keyPem } = await readServingFiles(config.proxyClientCertFile, config.proxyClientKeyFile!);
      return { client: { certPem, keyPem } };
    } catch (err) {
      throw new UsageError(`--proxy-client-cert-file, --proxy-client-key-file: ${(err as Error).message}`);
    }
  }
  const material = await ensureFrontProxyMaterial(dataDir, { sync: config.syncDataDirFiles });
  return { client: { certPem: material.certPem, keyPem: material.keyPem }, ...(config.requestHeader === undefined ? { defaultCaFile: path.join(dataDir, 'pki', 'front-proxy-ca.crt') } : {}) };
}

function storeFor(registry: ResourceRegistry, group: string, version: string, resource: string): Store {
  const served = registry.lookup(group, version, resource);
  if (served === undefined) throw new Error(`${group}/${version}/${resource} is not served`);
  return served.store;
}

/** A backend behind upstream's truncate backend when `--audit-<backend>-truncate-enabled`. */
function truncated(sink: AuditSink, truncation: AuditTruncation | undefined, log: (message: string) => void): AuditSink {
  return truncation === undefined ? sink : truncatingSink(sink, truncation, log);
}

/** `--audit-webhook-*`: the webhook backend in its mode, sending through the kubeconfig's webhook with upstream's retries. */
async function auditWebhookSink(flags: AuditWebhookFlags, log: (message: string) => void): Promise<{ sink: AuditSink; close(): Promise<void> }> {
  let connection;
  try {
    connection = await loadWebhookKubeconfig(flags.configFile);
  } catch (err) {
    throw new UsageError(`--audit-webhook-config-file: ${(err as Error).message}`);
  }
  const agents = new AgentPool();
  const call = webhookCaller(connection, agents, { backoff: { ...defaultBackoff, initialMs: flags.initialBackoffMs } });
  const deliver = async (items: object[]) => {
    await call({ kind: 'EventList', apiVersion: flags.version, metadata: {}, items });
  };
  const sink = flags.batch === undefined
    ? new BlockingAuditSink({ name: 'webhook', deliver, strict: flags.mode === 'blocking-strict', log })
    : new BufferedAuditSink({ name: 'webhook', deliver, ...flags.batch, log });
  return {
    sink,
    async close() {
      await sink.close();
      agents.close();
    },
  };
}

/** `--audit-log-*`: the log file in its mode (upstream's log backend blocks by default; batch mode buffers before it). */
function auditLogSink(config: Config, log: (message: string) => void): AuditSink {
  const file = new AuditLog({
    path: config.auditLogPath!, maxSizeMB: config.auditLogMaxSizeMB, maxBackups: config.auditLogMaxBackups, maxAgeDays: config.auditLogMaxAgeDays,
    compress: config.auditLogCompress, format: config.auditLogFormat, onError: log, strict: config.auditLogMode === 'blocking-strict',
  });
  if (config.auditLogBatch === undefined) return file;
  return new BufferedAuditSink({
    name: 'log',
    deliver(events) {
      for (const event of events) file.write(event);
      file.flush();
    },
    ...config.auditLogBatch, log,
  });
}

/** What tests may hand in instead of what the Config names. */
export interface ServeDependencies {
  /** Storage to serve from (the server closes it), perhaps shared with other servers; by default the one --storage names. */
  backend?: Backend;
  /** Which addresses nodes/proxy may reach; upstream's rule (no loopback or link-local) by default. Tests' kubelets listen on loopback. */
  proxyableAddress?: (ip: string) => boolean;
  /** Which pod IPs pods/proxy may reach; upstream's rule (global unicast) by default. Tests' pods listen on loopback. */
  podAddressAllowed?: (ip: string) => boolean;
  /** The verbosity the process's logger reads, so that PUT /debug/flags/v changes both; by default one of its own at `config.verbosity`. */
  verbosity?: Verbosity;
}

/** Builds the object graph from a Config and starts serving (the composition root). */
export async function serve(config: Config, log: (message: string) => void = (m) => console.error(m), deps: ServeDependencies = {}): Promise<RunningServer> {
  // prom-client loads while the certificates and storage are read.
  const metricsModule = import('../server/metrics.ts');
  const dataDir = path.resolve(config.dataDir);
  await makeDataDir(dataDir);

  const [material, tokens, clientMaterial, frontProxy] = await Promise.all([
    config.tlsCertFile === undefined
      ? ensureServingMaterial(dataDir, { hosts: extraHosts(config.bindAddress, config.advertiseAddress), sync: config.syncDataDirFiles })
      : readServingFiles(config.tlsCertFile, config.tlsPrivateKeyFile!).catch((err: unknown) => {
        throw failureOfFlags(err, '--tls-cert-file, --tls-private-key-file');
      }),
    loadTokens(config, dataDir),
    config.clientCaFile === undefined ? ensureClientMaterial(dataDir, { sync: config.syncDataDirFiles }) : undefined,
    frontProxyMaterial(config, dataDir),
  ]);
  // Checked now, as upstream's dynamic CA content from file: a bundle with no certificate fails the start.
  const clientCaPem = clientMaterial?.clientCaPem ?? await readCaBundle(config.clientCaFile!).catch((err: unknown) => {
    throw new UsageError(`--client-ca-file: ${(err as Error).message}`);
  });
  warnOfTokenExpirations(config, log);
  const kubeletTls = await kubeletClientTls(config);
  // Keys named by flags are read now, so that a wrong path fails the start; the default one is made on first use.
  const keyOptions = { dataDir, ...(config.serviceAccountSigningKeyFile !== undefined ? { signingKeyFile: config.serviceAccountSigningKeyFile } : {}), keyFiles: config.serviceAccountKeyFiles, sync: config.syncDataDirFiles };
  const serviceAccountKeys = lazyServiceAccountKeys(keyOptions);
  if (config.serviceAccountSigningKeyFile !== undefined || config.serviceAccountKeyFiles.length > 0) await serviceAccountKeys().catch((err: unknown) => {
    throw new UsageError(serviceAccountKeyProblem(config, err as Error));
  });

  // --tls-sni-cert-key: each pair read and checked now, as upstream fails its start on one that does not load.
  const sniCertificates = await Promise.all(config.tlsSniCertKeys.map(async ({ certFile, keyFile, names }) => {
    try {
      const { certPem, keyPem } = await readServingFiles(certFile, keyFile);
      return { certPem, keyPem, names: names.length > 0 ? names : certificateNames(certPem) };
    } catch (err) {
      throw new UsageError(`failed to load SNI cert and key: ${(err as Error).message}`);
    }
  }));
  // Auditing needs a policy and a backend (the log, a webhook or both), as upstream; a policy or
  // a webhook kubeconfig that does not load fails the start.
  if (config.auditPolicyFile !== undefined && config.auditLogPath !== undefined) await ensureAuditLogFile(config.auditLogPath);
  const auditWebhook = config.auditPolicyFile === undefined || config.auditWebhook === undefined ? undefined : await auditWebhookSink(config.auditWebhook, log);
  const auditBackends = [
    ...(config.auditLogPath !== undefined ? [truncated(auditLogSink(config, log), config.auditLogTruncate, log)] : []),
    ...(auditWebhook !== undefined ? [truncated(auditWebhook.sink, config.auditWebhook?.truncate, log)] : []),
  ];
  const audit = config.auditPolicyFile === undefined || auditBackends.length === 0 ? undefined : {
    policy: await loadAuditPolicy(config.auditPolicyFile, log).catch((err: unknown) => {
      throw new UsageError(`--audit-policy-file: ${(err as Error).message}`);
    }),
    log: auditSinks(auditBackends),
    // An answer written as Protobuf is audited as the object it is (the codec loads at its first use).
    decodeProtobuf: (bytes: Uint8Array) => loadedProtobufCodec()?.decodeProtobufObject(bytes),
  };
  const builtinTypes = builtinResourceTypes({ serviceClusterIPRange: config.serviceClusterIPRange, serviceNodePortRange: config.serviceNodePortRange });
  // --runtime-config: what is turned off stays registered for the server's own use, unserved.
  const crdType = customResourceDefinitionsType();
  let runtimeDisabled: ReturnType<typeof runtimeConfigDisabled>;
  try {
    runtimeDisabled = runtimeConfigDisabled(config.runtimeConfig, [...builtinTypes, crdType]);
  } catch (err) {
    throw new UsageError(`--runtime-config: ${(err as Error).message}`);
  }
  const corsOrigins = config.corsAllowedOrigins.map(corsOrigin);
  // /metrics: watchers and objects are read from the watch caches when scraped; every
  // storage call is timed (etcd_request_duration_seconds, whatever the backend), and the
  // embedded storage's syncs too.
  const cacheTypes = new Map<WatchCache, ResourceType>();
  // The same caches by group and resource: a list's work estimate reads how many objects it holds.
  const cachesByResource = new Map<string, WatchCache>();
  const metrics: ApiMetrics = new (await metricsModule).ApiMetrics({
    registeredWatchers: () => [...cacheTypes].map(([cache, type]) => ({ group: type.group, version: type.version, kind: type.kind, count: cache.watcherCount })),
    storageObjects: () => [...cacheTypes].map(([cache, type]) => ({ resource: type.group === '' ? type.resource : `${type.resource}.${type.group}`, count: cache.size })),
  });
  metrics.disable(config.disabledMetrics);
  const kubelet = new KubeletClient(kubeletTls, deps.proxyableAddress, metrics.kubelet);
  const podNetwork = new PodNetworkClient(deps.podAddressAllowed);
  const podSecurity = await podSecurityConfiguration(config.admissionControlConfigFile);
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : config.serviceAccountIssuers;
  // A configuration file that does not load fails the start, before storage is opened.
  // Without --requestheader-*, authenticating proxies are the data dir's front-proxy CA's, with kubeadm's headers.
  const requestHeader = config.requestHeader ?? (frontProxy.defaultCaFile === undefined ? undefined : {
    clientCaFile: frontProxy.defaultCaFile, allowedNames: [frontProxyClientName], usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'],
    groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-'],
  });
  const authn = await authenticationSetup({ ...config, ...(requestHeader !== undefined ? { requestHeader } : {}) }, apiAudiences, log, clientCaPem, metrics);
  const authz = await authorizationSetup(config, log, metrics);
  // Applies of built-in workloads may run on a worker thread; the storage syncs off the loop while they do.
  const applyOffload = config.applyWorkerAfter >= 0 ? new ApplyOffload(config.applyWorkerAfter, applyWorkerEntry) : undefined;
  if (deps.backend === undefined && config.storage === 'etcd') await checkEtcdTlsFiles(config);
  const stored = deps.backend ?? await openBackend(config.storage, {
    dataDir, etcdServers: config.etcdServers, etcdPrefix: config.etcdPrefix,
    etcdCaFile: config.etcdCaFile, etcdCertFile: config.etcdCertFile, etcdKeyFile: config.etcdKeyFile, leaseReuseSeconds: config.leaseReuseDurationSeconds, log,
    onWalSync: (seconds, onLoop) => metrics.walSync(seconds, onLoop),
    syncLater: applyOffload === undefined ? undefined : () => applyOffload.busy,
  });
  const timedStorage = instrumentedBackend(stored, (operation, resource, seconds) => metrics.storageCall(operation, '', resource, seconds));
  const encryption = await withEncryption(config, builtinTypes, timedStorage, metrics, log);
  const backend = encryption.backend;
  // Compaction needs no transformation: it works on the storage itself.
  const compactor = compactorFor(stored, { intervalMs: config.etcdCompactionIntervalMs, onError: (err) => log(`storage compaction failed: ${(err as Error).message}`) });
  compactor.start();

  const registry = new ResourceRegistry();
  const namespaces: { store?: Store } = {};
  // Set once the Stores exist: the RBAC rules (when RBAC is a mode) and the authorizer in use.
  const authorization: { rbac?: RbacAuthorizer; authorizer?: Authorizer } = {};
  // Webhooks named by a service (admission and conversion) are called at an endpoint of it.
  const resolveService = serviceEndpointResolver(() => ({
    services: registry.lookup('', 'v1', 'services')!.store,
    endpointSlices: registry.lookup('discovery.k8s.io', 'v1', 'endpointslices')!.store,
  }));
  const admissionSetup = admissionPlugins(registry, log, {
    resolveService,
    podSecurity,
    podSecurityMetrics: metrics.podSecurity,
    defaultTolerations: { notReadySeconds: config.defaultNotReadyTolerationSeconds, unreachableSeconds: config.defaultUnreachableTolerationSeconds },
    enabled: config.enableAdmissionPlugins,
    disabled: config.disableAdmissionPlugins,
    nodeDeclaredFeatures: config.featureGates.NodeDeclaredFeatures ?? true,
    // The certificate plugins ask the authorizer about signers, as upstream's IsAuthorizedForSignerName.
    async authorizeSigner(user, verb, signerName) {
      const decision = await authorization.authorizer?.authorize(user, {
        verb, group: 'certificates.k8s.io', resource: 'signers', subresource: '', namespace: '', name: signerName, path: '',
      });
      return decision?.decision === 'Allow';
    },
    // Admission policies' and webhooks' `authorizer` asks the server's own.
    authorize: (user, attributes) => authorization.authorizer?.authorize(user, attributes) ?? { decision: 'NoOpinion', reason: 'the authorizer is not ready' },
  });
  // Escalation prevention, DRA's admin access and status authorization are admission's
  // strategy step: after mutating admission, before (escalation) or with the type's validation.
  const admission = new AdmissionChain([
    rbacEscalationCheck({ resolver: () => authorization.rbac, authorizer: () => authorization.authorizer }),
    draAdminAccessCheck(async (name) => (await registry.lookup('', 'v1', 'namespaces')!.store.find('', name))),
    draStatusAuthorization(() => authorization.authorizer),
    ...admissionSetup.plugins,
  ]);
  const caches: WatchCache[] = [];
  const garbageCollectorRuns = config.enableGarbageCollector && controllerEnabled(config.controllers, 'garbage-collector-controller');
  let serving = false;
  let closing: Promise<void> | undefined;
  const newCache = (type: ResourceType, decode: (kv: KeyValue) => KubeObject, encode?: (kv: KeyValue) => Uint8Array | undefined, from: Backend = backend) => registerCache(type, new WatchCache({
    backend: from,
    prefix: resourcePrefix(type),
    decode,
    ...(encode ? { encode, decodesLater: isEncodedHere, writtenObject, writtenView } : {}),
    // The garbage collector's metadata informers read every object's view once the caches load.
    metadataViewsOnLoad: garbageCollectorRuns,
    bookmark: { kind: type.kind, apiVersion: apiVersionOf(type.group, type.version) },
    historyWindowMs: config.etcdCompactionIntervalMs,
    loadWaitMs: config.storageInitializationTimeoutMs,
    maxHistoryBytes: config.watchCacheWindowBytes,
    watcherQueueBytes: config.watchMaxQueuedBytes,
    bookmarkIntervalMs: config.watchBookmarkIntervalMs,
    maxWaitMs: config.watchCacheWaitMs,
    snapshotTtlMs: config.featureGates.ListFromCacheSnapshot ? config.listSnapshotTtlMs : 0,
    log,
  }));
  function registerCache(type: ResourceType, cache: WatchCache): WatchCache {
    cacheTypes.set(cache, type);
    cachesByResource.set(`${type.group}/${type.resource}`, cache);
    return cache;
  }
  // A Store reads the managed fields of managers that wrote through another version of its objects by the Store of that version.
  const equivalentStores = (type: ResourceType) => (): Store[] => registry.equivalents(type.group, type.version, type.resource).map((r) => r.store);
  for (const type of [...builtinTypes, crdType]) {
    // The cache decodes with the Store's decoder; the Store reads through the cache.
    const decoder: { store?: Store } = {};
    // Built-in objects stored as served are shown as stored: their JSON comes from the stored bytes.
    // A type that stores nothing (bindings, componentstatuses) has no cache.
    const cache = type.virtual ? undefined : newCache(type, (kv) => decoder.store!.decode(kv), type.storage === undefined ? storedJsonWithResourceVersion : undefined);
    // Events live for --event-ttl after their last write, as upstream's event storage's TTLFunc keeps them (both APIs store core/v1 Events).
    const storesEvents = config.eventTtlSeconds > 0 && resourcePrefix(type) === '/registry/events/';
    const store = new Store(type, storesEvents ? withTimeToLive(backend, config.eventTtlSeconds) : backend, admission, cache, { applyOffload, equivalents: equivalentStores(type) });
    decoder.store = store;
    if (cache !== undefined) caches.push(cache);
    registry.add({ type, store, ...(runtimeDisabled.has(`${type.group}/${type.version}/${type.resource}`) ? { disabled: true } : {}) });
    if (type.group === '' && type.resource === 'namespaces') namespaces.store = store;
  }
  // The start-up steps done, by the names of upstream's post-start hooks that do them (postStartHookChecks), and informer-sync.
  const finished = new Set<string>();
  const finish = (...steps: string[]) => {
    for (const step of steps) finished.add(step);
  };
  // Caches load lazily: what start-up needs below (webhook configurations, Services
  // for the allocator, namespaces and ServiceAccounts for the controllers, CRDs) loads
  // now, on first use; every other cache loads in the background once the server
  // serves, or earlier when a request needs it (registry/read-path.ts).
  await admissionSetup.start();
  for (const { store } of registry.all()) if (store.allocator) await store.allocator.restore(await store.listAll());
  finish('start-service-ip-repair-controllers');
  await ensureNamespaces(namespaces.store!);
  finish('start-system-namespaces-controller');
  await ensureSystemPriorityClasses(registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!.store);
  finish('scheduling/bootstrap-system-priority-classes');
  // Served CRDs add their schemas here, for OpenAPI and for their Stores.
  const definitions: Definitions = builtinDefinitionsCopy();
  const crdController = new CrdController({
    registry,
    // The elected replica writes CRDs' status (cli/leader-controllers.ts).
    writeStatus: false,
    crds: registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!.store,
    definitions,
    resources: {
      // A custom resource version gets its watch cache and Store like a built-in type.
      async start({ type, conversion }: CustomResourceVersion) {
        const decoder: { store?: Store } = {};
        // Versions that convert by webhook read and write through their own converting storage.
        const converter = conversion === undefined ? undefined : new WebhookConverter(conversion.webhook, { observe: (o) => metrics.conversionWebhook(o), resolveService });
        const converting = converter === undefined ? undefined : new ConvertingBackend(backend, converter, apiVersionOf(type.group, type.version), conversion!.storageAPIVersion);
        const storage = converting ?? backend;
        const cache = newCache(type, (kv) => decoder.store!.decode(kv), undefined, storage);
        const store = new CustomResourceStore(type, storage, admission, cache, { definitions, equivalents: equivalentStores(type), ...(converter === undefined ? {} : { converter, converting }) });
        decoder.store = store;
        caches.push(cache);
        // Served CRDs registered at start-up load with the other caches in the background.
        if (serving) void cache.start();
        return {
          store,
          close() {
            cache.close();
            converter?.close();
            cacheTypes.delete(cache);
            const key = `${type.group}/${type.resource}`;
            if (cachesByResource.get(key) === cache) cachesByResource.delete(key);
            const at = caches.indexOf(cache);
            if (at >= 0) caches.splice(at, 1);
          },
        };
      },
    },
    log,
  });
  // Stored CRDs are served again before the server answers.
  await crdController.start();
  finish('start-apiextensions-informers', 'crd-informer-synced');

  // RBAC: the bootstrap policy is in place, aggregated roles have their rules and the
  // authorizer's informers hold every role and binding before the server answers.
  const rbac = rbacStores(registry);
  await reconcileBootstrapPolicy(rbac, log);
  finish('rbac/bootstrap-roles');
  // The in-process controllers run on the replica holding their Lease (on storage of
  // its own, this one at once); --controllers turns them off one by one.
  let markServing!: () => void;
  let markLoaded!: () => void;
  const leaderControllers = new LeaderControllers({
    controllers: () => electedControllers({ registry, crdController, caPem: material.caPem, config, log }),
    election: !config.leaderElect ? undefined : {
      leases: registry.lookup('coordination.k8s.io', 'v1', 'leases')!.store,
      ...controllersLease,
      leaseDurationMs: config.leaderElectLeaseDurationMs,
      renewDeadlineMs: config.leaderElectRenewDeadlineMs,
      retryPeriodMs: config.leaderElectRetryPeriodMs,
      // sqlite locks its file to this process, memory is its own; a backend handed in may be shared.
      privateStorage: config.storage !== 'etcd' && deps.backend === undefined,
    },
    serving: new Promise<void>((resolve) => (markServing = resolve)),
    loaded: new Promise<void>((resolve) => (markLoaded = resolve)),
    log,
  });
  await leaderControllers.start();
  const rbacInformers = authz.types.has('RBAC') ? new RbacInformers(rbac, log) : undefined;
  if (rbacInformers !== undefined) {
    await rbacInformers.start();
    authorization.rbac = new RbacAuthorizer(rbacInformers);
  }
  const nodeAuthorization = authz.types.has('Node') ? new NodeAuthorization(registry, log) : undefined;
  await nodeAuthorization?.start();
  // Priority and fairness classifies each request against the stored FlowSchemas.
  const flowControl = config.enablePriorityAndFairness ? new FlowControlInformers(registry, log) : undefined;
  await flowControl?.start();
  // The server's own informers (admission webhooks', RBAC's, the node authorizer's, flow control's) run.
  finish('generic-apiserver-start-informers', 'priority-and-fairness-config-consumer');
  const authorizer = await authz.start({
    ...(authorization.rbac !== undefined ? { rbac: authorization.rbac } : {}),
    ...(nodeAuthorization !== undefined ? { node: nodeAuthorization.authorizer } : {}),
  });
  authorization.authorizer = authorizer;

  let port = config.securePort;
  const serverUrl = () => {
    const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress === '0.0.0.0' ? '127.0.0.1' : config.bindAddress;
    return `https://${host}:${port}`;
  };
  const address = advertisedAddress(config.advertiseAddress, config.bindAddress);
  const discovery = new Discovery(registry, () => joinHostPort(address, port));
  // The aggregation layer: APIServices that name a service are proxied to it.
  const aggregation = new ApiAggregation({
    apiServices: storeFor(registry, 'apiregistration.k8s.io', 'v1', 'apiservices'), services: storeFor(registry, '', 'v1', 'services'),
    endpointSlices: storeFor(registry, 'discovery.k8s.io', 'v1', 'endpointslices'), proxyClient: frontProxy.client, onChange: () => discovery.invalidate(), log,
  });
  discovery.remote = () => aggregation.remote();
  // Its informers load in the background: an APIService is proxied only once checked anyway.
  const aggregationStarted = aggregation.start().then(
    () => finish('start-kube-aggregator-informers', 'apiservice-registration-controller'),
    (err: unknown) => log(`aggregation: ${(err as Error).message}`),
  );
  const openapi = new OpenApiService(registry, definitions);
  openapi.remote = () => aggregation.remote().flatMap((r) => (r.openapi !== undefined ? [{ path: `apis/${r.group}/${r.version}`, serverRelativeURL: r.openapi }] : []));
  openapi.remoteV2 = () => aggregation.remote().flatMap((r) => (r.openapiV2 !== undefined ? [{ ...r, document: r.openapiV2 }] : []));
  let server: ApiServer | undefined;
  const watchStreams = new WatchStreams({
    writeGraceMs: config.watchWriteGraceMs,
    minTimeoutSeconds: config.minRequestTimeoutSeconds,
    onEvent: (type, count) => metrics.watchEvent(type.group, type.version, type.kind, count),
    onTerminated: (type) => {
      metrics.watcherTerminated(type.group, type.resource);
      log(`watch of ${type.group === '' ? type.resource : `${type.resource}.${type.group}`} cut off: the client left its data unread`);
    },
  });
  // The issuers' discovery documents are read in the background, retried until they answer, as upstream's.
  authn.start();
  const authenticator = requestAuthenticator({
    // Upstream's order: client certificates, then bearer tokens (the token file, then service-account JWTs).
    authenticators: [
      // An authenticating proxy's headers first, as upstream's request-header authenticator.
      ...(authn.requestHeader !== undefined ? [authn.requestHeader.authenticator] : []),
      clientCertificateAuthenticator(),
      bearerTokenAuthenticator(unionTokenAuthenticator([
        audienceAgnostic(apiAudiences, tokenFileAuthenticator(tokens.users)),
        // Upstream's order: the long-lived Secret tokens before the bound ones.
        legacyServiceAccountTokenAuthenticator({
          keys: serviceAccountKeys, apiAudiences, lookup: config.serviceAccountLookup, getter: tokenGetter(registry), observe: (use) => metrics.serviceAccountTokenUsed(use),
        }),
        serviceAccountTokenAuthenticator({
          issuers: config.serviceAccountIssuers, keys: serviceAccountKeys, apiAudiences, getter: tokenGetter(registry), observe: (use) => metrics.serviceAccountTokenUsed(use),
        }),
        // After the service accounts, before the JWT issuers, as upstream's union.
        ...(config.enableBootstrapTokenAuth === true ? [audienceAgnostic(apiAudiences, bootstrapTokenAuthenticator(bootstrapSecrets(registry)))] : []),
        ...(authn.jwt === undefined ? [] : [authn.jwt]),
        // Last, and not audience-agnostic: the webhook is told the audiences and answers for them.
        ...(authn.tokenWebhook === undefined ? [] : [authn.tokenWebhook]),
      ])),
    ],
    anonymous: authn.anonymous,
  });
  const authentication = authenticationApi({
    authenticator, apiAudiences, issuer: config.serviceAccountIssuers[0]!, keys: serviceAccountKeys,
    // Upstream's default: the external host (--external-hostname, else the advertised address) and the port.
    jwksUri: () => config.serviceAccountJwksUri ?? `https://${joinHostPort(config.externalHostname ?? address, port)}/openid/v1/jwks`,
    extendExpiration: config.serviceAccountExtendTokenExpiration,
    maxExpirationSeconds: config.serviceAccountMaxTokenExpirationSeconds,
  });
  const storageChecks: HealthCheck[] = [
    { name: 'ping', check: () => {} },
    { name: 'log', check: () => {} },
    { name: 'etcd', check: () => withDeadline(backend.currentRevision(), config.etcdHealthcheckTimeoutMs, 'the storage did not answer') },
  ];
  // Upstream adds its encryption providers' check to /healthz, /livez and /readyz alike.
  const encryptionChecks = encryption.healthCheck === undefined ? [] : [encryption.healthCheck];
  const hookChecks = postStartHookChecks(finished, flowControl !== undefined);
  const verbosity = deps.verbosity ?? { level: config.verbosity };
  const handler = new ApiHandler({
    registry,
    ...(config.kubeletPreferredAddressTypes !== undefined ? { kubeletPreferredAddressTypes: config.kubeletPreferredAddressTypes } : {}),
    kubelet,
    podNetwork,
    discovery,
    aggregation: aggregation.lookup,
    aggregatorRejectForwardingRedirect: config.aggregatorRejectForwardingRedirect,
    openapi,
    // In upstream's orders: /healthz and /livez ping, log, etcd, the encryption providers'
    // check and the post-start hooks; /readyz etcd-readiness after etcd, informer-sync after
    // the encryption providers, and shutdown last (a v1.36 server's ?verbose lists).
    healthChecks: [...storageChecks, ...encryptionChecks, ...hookChecks],
    readyChecks: [
      ...storageChecks,
      // Upstream's readiness check of its storage, apart from the health check, with its own timeout.
      { name: 'etcd-readiness', check: () => withDeadline(backend.currentRevision(), config.etcdReadycheckTimeoutMs, 'the storage did not answer') },
      ...encryptionChecks,
      // The admission configurations' informers synced, the policies' the last of the server's own to start (once it serves).
      { name: 'informer-sync', check: () => { if (!finished.has('informer-sync')) throw new Error('admission informers not synced yet'); } },
      ...hookChecks,
      // Fails from the moment a shutdown begins, through its delay (--shutdown-delay-duration), as upstream's shutdownCheck.
      { name: 'shutdown', check: () => { if (closing !== undefined || server?.isStopping) throw new Error('process is shutting down'); } },
    ],
    plinthVersion,
    featureGates: config.featureGates,
    watchStreams,
    authorizer,
    // A verb a request needs besides its own: `create` for a PUT or apply that creates the
    // object (upstream's withAuthorization in handlers/update.go and patch.go),
    // `unsafe-delete-ignore-read-errors` for the unsafe deletion of a corrupt object.
    async authorizeVerb(info, verb) {
      const user = currentRequest()?.user;
      if (user === undefined) return;
      const attributes = { verb, group: info.group, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name, path: info.path };
      const decision = await authorizer.authorize(user, attributes);
      if (decision.decision !== 'Allow') throw forbiddenError(user, attributes, decision.reason);
    },
    authentication,
    metrics,
    flowControlDump: (name, query) => server?.flowControlDump(name, query),
    // What upstream installs with --profiling: /debug/flags and the metrics' resets.
    ...(config.profiling ? { verbosity, resetsMetrics: true } : {}),
    log,
  });
  server = new ApiServer({
    bindAddress: config.bindAddress,
    port: config.securePort,
    ...(config.permitPortSharing ? { reusePort: true } : {}),
    certPem: material.certPem,
    keyPem: material.keyPem,
    authenticator,
    authorizer,
    constrainedImpersonation: config.featureGates.ConstrainedImpersonation ?? true,
    clientCaPem,
    ...(authn.requestHeader !== undefined ? { requestHeaderCaPem: authn.requestHeader.caPem } : {}),
    anonymousOnlyPublicPaths: authn.anonymousOnlyPublicPaths,
    handler,
    log,
    verbosity,
    debug: log,
    requestLog: log,
    slowRequestLog: log,
    slowRequestMs: config.slowRequestMs,
    unreadBodyGraceMs: config.unreadBodyGraceMs,
    metrics,
    ...(audit !== undefined ? { audit } : {}),
    maxRequestsInflight: config.maxRequestsInflight,
    maxMutatingRequestsInflight: config.maxMutatingRequestsInflight,
    inflightQueueWaitMs: config.inflightQueueWaitMs,
    ...(config.requestTimeoutMs !== undefined ? { requestTimeoutMs: config.requestTimeoutMs } : {}),
    fairQueuing: config.enablePriorityAndFairness,
    ...(flowControl !== undefined ? { flowControl: flowControl.classifier } : {}),
    objectCount: (group, resource) => cachesByResource.get(`${group}/${resource}`)?.size,
    http2MaxStreamsPerConnection: config.http2MaxStreamsPerConnection,
    ...(corsOrigins.length > 0 ? { corsAllowedOrigins: corsOrigins } : {}),
    hstsDirectives: config.hstsDirectives,
    allowPrivileged: config.allowPrivileged,
    ...(config.tlsMinVersion !== undefined || config.tlsCiphers !== undefined
      ? { tls: { ...(config.tlsMinVersion !== undefined ? { minVersion: config.tlsMinVersion } : {}), ...(config.tlsCiphers !== undefined ? { ciphers: config.tlsCiphers } : {}) } }
      : {}),
    ...(config.goawayChance > 0 ? { goawayChance: config.goawayChance } : {}),
    ...(sniCertificates.length > 0 ? { sniCertificates } : {}),
  });
  const servingFiles = config.tlsCertFile === undefined ? undefined
    : followServingFiles(config.tlsCertFile, config.tlsPrivateKeyFile!, material, (next) => server.setServingCertificate(next.certPem, next.keyPem), log);
  // Each SNI pair followed too: a change that loads is served (its names read again when none were given).
  const sniFiles = config.tlsSniCertKeys.map(({ certFile, keyFile, names }, i) => followServingFiles(certFile, keyFile, sniCertificates[i]!, (next) => {
    sniCertificates[i] = { certPem: next.certPem, keyPem: next.keyPem, names: names.length > 0 ? names : certificateNames(next.certPem) };
    server.setSniCertificates([...sniCertificates]);
  }, log, 'sni-serving-cert'));
  // CA files the flags name are followed; the data dir's own do not change while serving.
  const caFiles = { clientCaFile: config.clientCaFile, requestHeaderCaFile: config.requestHeader?.clientCaFile };
  const clientCaFiles = caFiles.clientCaFile === undefined && caFiles.requestHeaderCaFile === undefined ? undefined
    : followClientCas(caFiles, { clientCaPem, requestHeaderCaPem: authn.requestHeader?.caPem }, (next) => {
      server.setClientCas(next.clientCaPem, next.requestHeaderCaPem);
      // Extension API servers learn of it as upstream's cluster authentication trust controller tells them.
      updateAuthenticationTrust(registry, authenticationTrustOf(next.clientCaPem, requestHeader, next.requestHeaderCaPem))
        .catch((err: unknown) => log(`updating kube-system/extension-apiserver-authentication: ${(err as Error).message}`));
    }, log);
  let reconciled: Promise<void> | undefined;
  let endpointReconciler: LeaseEndpointReconciler | undefined;
  let identityLease: IdentityLeaseController | undefined;
  let identityLeaseStarted: Promise<void> = Promise.resolve();
  // Everything opened above, closed in order: by close(), or when the server cannot listen or finish starting.
  const shutdown = async () => {
    // Out of the kubernetes endpoints first, as upstream's pre-shutdown hook takes it out, then
    // serving on while load balancers see /readyz fail and turn away, as upstream's shutdown delay.
    await endpointReconciler?.stop();
    await identityLease?.stop();
    if (serving && config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    servingFiles?.close();
    for (const files of sniFiles) files.close();
    clientCaFiles?.close();
    encryption.close();
    await server.close({ sendRetryAfter: config.shutdownSendRetryAfter, watchGraceMs: config.shutdownWatchTerminationGraceMs });
    await reconciled;
    // Controllers finish their work in flight while the caches and storage are still there.
    // The lease is released last, so that another replica takes over once they have.
    await leaderControllers.close();
    authn.close();
    authz.close();
    await aggregationStarted;
    await aggregation.close();
    kubelet.close();
    await Promise.all([crdController.close(), rbacInformers?.close(), nodeAuthorization?.close(), flowControl?.close()]);
    admissionSetup.close();
    await applyOffload?.close();
    for (const cache of caches) cache.close();
    compactor.close();
    await backend.close();
    audit?.log.flush();
    await auditWebhook?.close();
  };
  const kubeconfigPath = path.resolve(config.kubeconfigPath ?? path.join(dataDir, 'kubeconfig'));
  try {
    port = await server.start();
    serving = true;
    try {
      writeKubeconfig(kubeconfigPath, { server: serverUrl(), caPem: material.caPem, token: tokens.admin });
    } catch (err) {
      // Its code kept, for callers that tell file system errors apart.
      throw Object.assign(new UsageError(`${config.kubeconfigPath !== undefined ? '--kubeconfig' : 'the kubeconfig'} ${kubeconfigPath}: ${(err as Error).message}`), { code: (err as NodeJS.ErrnoException).code });
    }
    // The kubernetes Service's targetPort is the port just bound.
    ({ reconciled } = await bootstrapObjects(registry, {
      serviceClusterIPRange: config.serviceClusterIPRange, address, port, authenticationTrust: authn.authenticationTrust, endpointReconciler: config.endpointReconcilerType,
    }, log));
    finish('start-cluster-authentication-info-controller', 'start-legacy-token-tracking-controller', 'priority-and-fairness-config-producer',
      'bootstrap-controller', 'start-kubernetes-service-cidr-controller', 'kube-apiserver-autoregistration');
    if (config.endpointReconcilerType === 'lease') {
      endpointReconciler = new LeaseEndpointReconciler({
        registry, backend, address, port, leaseTtlSeconds: config.endpointLeaseTtlSeconds, intervalMs: config.endpointReconcileIntervalMs, log,
      });
      // After the bootstrap's own writes, so that the two do not race for the same objects.
      void reconciled.then(() => endpointReconciler?.start());
    }
    // The server's identity lease (upstream's APIServerIdentity), once kube-system exists.
    identityLease = new IdentityLeaseController({
      registry, hostname: hostname(), durationSeconds: config.identityLeaseDurationSeconds, renewIntervalSeconds: config.identityLeaseRenewIntervalSeconds, log,
    });
    identityLeaseStarted = reconciled.then(() => {
      identityLease?.start();
      finish('start-kube-apiserver-identity-lease-controller', 'start-kube-apiserver-identity-lease-garbage-collector');
    });
  } catch (err) {
    closing = shutdown();
    await closing.catch(() => {});
    throw err;
  }
  const url = serverUrl();
  // Controllers that wait for the server to serve (their caches do not hold up start-up), or for every cache to load.
  markServing();
  const policiesStart = admissionSetup.startPolicies().then(() => finish('informer-sync'), (err: unknown) => log(`admission policies: ${(err as Error).message}`));
  const started = Promise.all([aggregationStarted, identityLeaseStarted, policiesStart]).then(() => {}, () => {});
  setImmediate(() => void loadInBackground([...caches], () => closing !== undefined).then(() => {
    if (closing === undefined) markLoaded();
  }).catch((err: unknown) => log(`loading caches: ${(err as Error).message}`)));

  return {
    url, port, kubeconfigPath, token: tokens.admin, caPem: material.caPem, registry, started,
    ...(clientMaterial !== undefined ? { adminCertificate: { certPem: clientMaterial.adminCertPem, keyPem: clientMaterial.adminKeyPem } } : {}),
    watcherCount: () => caches.reduce((sum, cache) => sum + cache.watcherCount, 0),
    applyWorker: applyOffload,
    watchStreamStats: () => watchStreams.stats(),
    async snapshot() {
      const saved = new Map((await allKeys(backend)).map((kv) => [kv.key, kv.value]));
      return async () => {
        const now = await allKeys(backend);
        const present = new Set<string>();
        const tolerate = (err: unknown) => {
          if (!isStorageError(err, 'KeyNotFound') && !isStorageError(err, 'RevisionMismatch') && !isStorageError(err, 'KeyExists')) throw err;
        };
        for (const kv of now) {
          present.add(kv.key);
          const value = saved.get(kv.key);
          if (value === undefined) await backend.delete(kv.key, kv.modRevision).catch(tolerate);
          else if (Buffer.compare(Buffer.from(value), Buffer.from(kv.value)) !== 0) await backend.update(kv.key, value, kv.modRevision).catch(tolerate);
        }
        for (const [key, value] of saved) if (!present.has(key)) await backend.create(key, value).catch(tolerate);
      };
    },
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

/**
 * The backend behind --encryption-provider-config's transformers, when the flag is given,
 * and upstream's `kms-providers` health check: present with KMS providers or a followed file
 * (a no-op without KMS providers then), as upstream adds it.
 */
async function withEncryption(
  config: Config, types: ResourceType[], backend: Backend, metrics: ApiMetrics, log: (message: string) => void,
): Promise<{ backend: Backend; healthCheck?: HealthCheck; close(): void }> {
  const file = config.encryptionProviderConfig;
  if (file === undefined) return { backend, close() {} };
  const reload = config.encryptionProviderConfigAutomaticReload === true;
  const open = async () => {
    const loaded = await loadEncryptionConfig(file, reload);
    const connect = (endpoint: string, timeoutMs: number, name: string) => grpcKmsService(endpoint, timeoutMs, (method, code, seconds) => metrics.kmsOperation(name, method, code, seconds));
    const kms = await startKmsProviders(loaded, connect, log, {
      keyIdUsed: (transformation, provider, keyId) => metrics.kmsKeyIdUsed(transformation, provider, keyId),
      statusKeyId: (provider, keyId) => metrics.kmsStatusKeyId(provider, keyId),
      invalidStatusKeyId: (provider, error) => metrics.kmsInvalidStatusKeyId(provider, error),
      seedCacheSize: (provider, size) => metrics.kmsSeedCacheSize(provider, size),
      cacheMiss: () => metrics.kmsCacheMiss(),
      dataKeyGeneration: (seconds, failed) => metrics.dataKeyGeneration(seconds, failed),
    }, config.featureGates.KMSv1 === true);
    try {
      const observe: TransformationObserver = (type, prefix, seconds, error) => metrics.transformation(requestGroupResource(), type, prefix, seconds, transformationStatus(error));
      return { forResource: resourceTransformers(loaded, kms, observe), kms };
    } catch (err) {
      kms.close();
      throw err;
    }
  };
  let current: Awaited<ReturnType<typeof open>>;
  let transformerFor;
  let last: string;
  try {
    current = await open();
    last = await readFile(file, 'utf8');
    metrics.encryptionConfig(last);
    const resourceOf = keyResourceResolver([...types, customResourceDefinitionsType()].map((type) => {
      const { group, resource } = type.storage ?? type;
      return { prefix: resourcePrefix(type), group, resource };
    }));
    transformerFor = (key: string) => {
      const gr = resourceOf(key);
      return gr === undefined ? undefined : current.forResource(gr);
    };
  } catch (err) {
    await backend.close();
    throw err;
  }
  const retired = new Map<NodeJS.Timeout, KmsProviders>();
  // --encryption-provider-config-automatic-reload: a changed file that loads replaces the
  // providers for the next write and read; one that does not is logged and the providers stay.
  // The replaced KMS providers are closed once the calls in flight are done.
  const following = !reload ? undefined : watchFile(file, async () => {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined || text === last) return;
    let next: typeof current;
    try {
      next = await open();
    } catch (err) {
      metrics.encryptionConfig(text, 'failure');
      log(`failed to load the encryption configuration, the providers in use stay: ${(err as Error).message}`);
      return;
    }
    const previous = current.kms;
    current = next;
    const timer = setTimeout(() => {
      retired.delete(timer);
      previous.close();
    }, previous.closeGraceMs);
    timer.unref();
    retired.set(timer, previous);
    last = text;
    metrics.encryptionConfig(text, 'success');
    log(`loaded new encryption configuration content from ${file}`);
  });
  const kmsUsed = current.kms.byName.size > 0;
  return {
    backend: new EncryptingBackend(backend, transformerFor),
    ...(kmsUsed || reload ? { healthCheck: { name: 'kms-providers', check: () => current.kms.check() } } : {}),
    close() {
      following?.close();
      for (const [timer, kms] of retired) {
        clearTimeout(timer);
        kms.close();
      }
      current.kms.close();
    },
  };
}

/**
 * The apply worker's module (apply-worker.ts): beside this one in the sources and the
 * package, by its bundle name (tools/bundle.ts) beside the start-up bundle's script.
 */
function applyWorkerEntry(): URL | undefined {
  for (const name of ['./apply-worker.ts', './apply-worker.js']) {
    const url = new URL(name, import.meta.url);
    if (existsSync(url)) return url;
  }
  return undefined;
}

/**
 * Loads the caches not loaded yet, one at a time: a request waits for one cache, and
 * loading them all at once would make it wait for all. start() of a loaded (or
 * loading) cache answers at once.
 */
async function loadInBackground(caches: WatchCache[], stopped: () => boolean): Promise<void> {
  for (const cache of caches) {
    if (stopped()) return;
    // It rejects only when that cache was closed (its CRD deleted, or the server closing).
    await cache.start().catch(() => {});
  }
}

/**
 * `--kubelet-client-certificate`, `--kubelet-client-key` and `--kubelet-certificate-authority`
 * loaded as upstream's kubelet client loads them at start, so that a wrong path or pair fails
 * the start: what pods/log and nodes/proxy present to kubelets and check them against.
 */
async function kubeletClientTls(config: Config): Promise<KubeletTls> {
  const tls: KubeletTls = {};
  if (config.kubeletClientCertificate !== undefined) {
    try {
      const { certPem, keyPem } = await readServingFiles(config.kubeletClientCertificate, config.kubeletClientKey!);
      Object.assign(tls, { certPem, keyPem });
    } catch (err) {
      throw failureOfFlags(new Error(`kubelet client: ${(err as Error).message}`), '--kubelet-client-certificate, --kubelet-client-key');
    }
  }
  if (config.kubeletCertificateAuthority !== undefined) {
    try {
      tls.caPem = await readCaBundle(config.kubeletCertificateAuthority);
    } catch (err) {
      throw failureOfFlags(new Error(`kubelet client: ${(err as Error).message}`), '--kubelet-certificate-authority');
    }
  }
  return tls;
}

/** Upstream's start-up warnings when extended projected tokens outlive --service-account-max-token-expiration. */
function warnOfTokenExpirations(config: Config, log: (message: string) => void): void {
  const max = config.serviceAccountMaxTokenExpirationSeconds;
  if (max === undefined || !config.serviceAccountExtendTokenExpiration) return;
  const duration = formatDuration(max * 1e9);
  if (max < projectedTokenExpirationSeconds) {
    log(`service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than ${projectedTokenExpirationSeconds} seconds (currently ${duration})`);
  }
  if (max < extendedTokenExpirationSeconds) {
    log(`service-account-extend-token-expiration is true, enabling tokens valid up to ${extendedTokenExpirationSeconds} seconds, which is longer than service-account-max-token-expiration set to ${duration}`);
  }
}


/** An allowed CORS origin compiled (the flag's were checked when read; a library caller's are here). */
function corsOrigin(pattern: string): GoRegexp {
  const compiled = compileGoRegexp(pattern);
  if (compiled.regexp === undefined) throw new Error(`--cors-allowed-origins has an invalid regular expression: ${compiled.error}`);
  return compiled.regexp;
}

/**
 * The data dir, made when missing (only its owner may read it); one that is not a directory
 * or cannot be made is a usage error naming the flag.
 */
async function makeDataDir(dataDir: string): Promise<void> {
  const found = await stat(dataDir).catch(() => undefined);
  if (found !== undefined && !found.isDirectory()) throw new UsageError(`--data-dir ${dataDir}: not a directory`);
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // Read and written from here on: a directory this user may not use is refused now, before anything is half written.
    await access(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new UsageError(`--data-dir ${dataDir}: ${(err as Error).message}`);
  }
}

/**
 * The audit log checked as upstream's ensureLogFile checks it at start: its directory made,
 * the file opened for appending (a directory, or a path under a file, refused).
 */
async function ensureAuditLogFile(file: string): Promise<void> {
  if (file === '-') return;
  try {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    await (await open(file, 'a', 0o600)).close();
  } catch (err) {
    throw new UsageError(`--audit-log-path: ensureLogFile: ${(err as Error).message}`);
  }
}

/** `--etcd-cafile`, `--etcd-certfile` and `--etcd-keyfile` read and checked before etcd is dialed: a CA bundle, a certificate and its key. */
async function checkEtcdTlsFiles(config: Config): Promise<void> {
  if (config.etcdCaFile !== undefined) {
    await readCaBundle(config.etcdCaFile).catch((err: unknown) => {
      throw new UsageError(`--etcd-cafile: ${(err as Error).message}`);
    });
  }
  if (config.etcdCertFile !== undefined) {
    await readServingFiles(config.etcdCertFile, config.etcdKeyFile!).catch((err: unknown) => {
      throw new UsageError(`--etcd-certfile, --etcd-keyfile: ${(err as Error).message}`);
    });
  }
}

/** Which of the service-account key flags names the file that did not load, and why. */
function serviceAccountKeyProblem(config: Config, err: Error): string {
  if (err.message.startsWith('--')) return err.message;
  const about = `${(err as NodeJS.ErrnoException).path ?? ''} ${err.message}`;
  const signing = config.serviceAccountSigningKeyFile;
  const named = config.serviceAccountKeyFiles.some((file) => about.includes(file));
  const flag = signing === undefined || named ? '--service-account-key-file'
    : config.serviceAccountKeyFiles.length === 0 || about.includes(signing) ? '--service-account-signing-key-file'
      : '--service-account-signing-key-file, --service-account-key-file';
  return `${flag}: ${err.message}`;
}

function extraHosts(bindAddress: string, advertiseAddress: string | undefined): string[] {
  return [bindAddress, advertiseAddress ?? ''].filter((address) => address !== '' && address !== '127.0.0.1' && address !== '0.0.0.0' && address !== '::');
}

async function loadTokens(config: Config, dataDir: string) {
  if (config.tokenAuthFile === undefined) {
    const { token, path: file } = await ensureAdminToken(dataDir, { sync: config.syncDataDirFiles });
    return { admin: token, users: parseTokenFile(await readFile(file, 'utf8')) };
  }
  let users: ReturnType<typeof parseTokenFile>;
  try {
    users = parseTokenFile(await readFile(config.tokenAuthFile, 'utf8'));
  } catch (err) {
    throw new UsageError(`--token-auth-file: ${(err as Error).message}`);
  }
  const admin = [...users.entries()].find(([, user]) => user.groups.includes('system:masters'))?.[0] ?? [...users.keys()][0];
  if (admin === undefined) throw new UsageError(`--token-auth-file: ${config.tokenAuthFile} holds no token`);
  return { admin, users };
}

/** What service-account tokens name, read through the Stores (a consistent read: a deleted account's tokens stop at once). */
function tokenGetter(registry: ResourceRegistry): ServiceAccountTokenGetter {
  const lookup = (resource: string) => async (namespace: string, name: string): Promise<BoundObject | undefined> => {
    let object: KubeObject;
    try {
      object = await registry.lookup('', 'v1', resource)!.store.get(namespace, name);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
    const meta = object.metadata;
    const bound: BoundObject = { uid: meta.uid ?? '', ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}), ...(meta.labels ? { labels: meta.labels } : {}) };
    // What the legacy token validator compares: a Secret's token, an account's secret references.
    const token = (object.data as Record<string, unknown> | undefined)?.token;
    if (typeof token === 'string') bound.token = Buffer.from(token, 'base64').toString('utf8');
    if (Array.isArray(object.secrets)) bound.secretNames = object.secrets.map((ref) => String((ref as { name?: unknown })?.name ?? ''));
    return bound;
  };
  const serviceAccounts = lookup('serviceaccounts');
  const nodes = lookup('nodes');
  return {
    serviceAccount: serviceAccounts, pod: lookup('pods'), secret: lookup('secrets'), node: (name) => nodes('', name),
    async markLegacyTokenUsed(namespace, name, uid, date) {
      await registry.lookup('', 'v1', 'secrets')!.store.guaranteedUpdate(namespace, name, undefined, { fieldManager: 'kube-apiserver' }, (current) => {
        const secret = current!;
        if (secret.metadata.uid !== uid) throw new Error(`the secret's uid changed`);
        secret.metadata.labels = { ...secret.metadata.labels, 'kubernetes.io/legacy-token-last-used': date };
        return secret;
      }, { createIfMissing: false });
    },
  };
}

/** kube-system's Secrets as the bootstrap token authenticator reads them (a consistent read: a deleted token stops at once). */
function bootstrapSecrets(registry: ResourceRegistry): BootstrapSecretGetter {
  return async (name) => {
    let secret: KubeObject;
    try {
      secret = await registry.lookup('', 'v1', 'secrets')!.store.get('kube-system', name);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
    const data: Record<string, string> = {};
    for (const [key, value] of Object.entries((secret.data ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string') data[key] = Buffer.from(value, 'base64').toString('utf8');
    }
    return { type: typeof secret.type === 'string' ? secret.type : '', data, deleting: secret.metadata.deletionTimestamp !== undefined && secret.metadata.deletionTimestamp !== null };
  };
}

/** The authentication side of the API (TokenRequest, TokenReview, the issuer's discovery) over auth/. */
function authenticationApi(opts: {
  authenticator: Authenticator;
  apiAudiences: string[];
  issuer: string;
  keys: () => Promise<ServiceAccountKeys>;
  jwksUri: () => string;
  /** `--service-account-extend-token-expiration`. */
  extendExpiration: boolean;
  /** `--service-account-max-token-expiration`, in seconds; undefined: none. */
  maxExpirationSeconds: number | undefined;
}): AuthenticationApi {
  const issue = serviceAccountTokenIssuer({ issuer: opts.issuer, keys: opts.keys, apiAudiences: opts.apiAudiences, extendExpiration: opts.extendExpiration });
  const ref = (object: KubeObject | undefined) => (object === undefined ? undefined : { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' });
  return {
    apiAudiences: opts.apiAudiences,
    ...(opts.maxExpirationSeconds !== undefined ? { maxExpirationSeconds: opts.maxExpirationSeconds } : {}),
    async issueToken(request) {
      const pod = ref(request.pod);
      const secret = ref(request.secret);
      const node = ref(request.node);
      return issue({
        namespace: request.namespace,
        serviceAccount: ref(request.serviceAccount)!,
        ...(pod !== undefined ? { pod } : {}),
        ...(secret !== undefined ? { secret } : {}),
        ...(node !== undefined ? { node } : {}),
        audiences: request.audiences,
        expirationSeconds: request.expirationSeconds,
      });
    },
    async reviewToken(token, audiences) {
      try {
        const found = await opts.authenticator({ headers: { authorization: `Bearer ${token}` }, audiences });
        if (found === undefined) return { error: 'invalid bearer token' };
        return { user: reviewedUser(found.user), ...(found.audiences !== undefined ? { audiences: found.audiences } : {}) };
      } catch (err) {
        if (err instanceof AuthenticationFailure) return { error: err.message };
        throw err;
      }
    },
    openIdConfiguration: async () => openIdConfiguration(opts.issuer, opts.jwksUri(), (await opts.keys()).verification),
    jwks: async () => publicJwks((await opts.keys()).verification),
  };
}

async function ensureNamespaces(store: Store): Promise<void> {
  for (const name of systemNamespaces) {
    if (await store.find('', name)) continue;
    try {
      await store.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }
}


/**
 * The start-up steps Plinth shares with kube-apiserver, each its `poststarthook/<name>` check on
 * /healthz, /livez and /readyz, in the order upstream registers their hooks (AddPostStartHook adds
 * the check through AddBootSequenceHealthChecks); each fails with upstream's "not finished"
 * (hooks.go's postStartHookHealthz) until `finished` has its step. `flowControl`: priority and
 * fairness is on, whose config consumer upstream registers only then.
 */
function postStartHookChecks(finished: ReadonlySet<string>, flowControl: boolean): HealthCheck[] {
  const steps = [
    'generic-apiserver-start-informers',
    ...(flowControl ? ['priority-and-fairness-config-consumer'] : []),
    'start-apiextensions-informers',
    'crd-informer-synced',
    'start-system-namespaces-controller',
    'start-cluster-authentication-info-controller',
    'start-kube-apiserver-identity-lease-controller',
    'start-kube-apiserver-identity-lease-garbage-collector',
    'start-legacy-token-tracking-controller',
    'start-service-ip-repair-controllers',
    'rbac/bootstrap-roles',
    'scheduling/bootstrap-system-priority-classes',
    'priority-and-fairness-config-producer',
    'bootstrap-controller',
    'start-kubernetes-service-cidr-controller',
    'start-kube-aggregator-informers',
    'apiservice-registration-controller',
    'kube-apiserver-autoregistration',
  ];
  return steps.map((step) => ({
    name: `poststarthook/${step}`,
    check: () => {
      if (!finished.has(step)) throw new Error('not finished');
    },
  }));
}

/** The storage checks' deadline (--etcd-healthcheck-timeout, --etcd-readycheck-timeout): an unreachable etcd fails the check rather than holding it. */
async function withDeadline(work: Promise<unknown>, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${message} within ${ms / 1000}s`)), ms)));
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
