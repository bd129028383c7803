// `plinth serve` flags, parsed into the Config the composition root builds from.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { compileGoRegexp } from '../schema/regexp.ts';
import { goQuote } from '../api/field-errors.ts';
import { parseTlsCipherSuites, parseTlsMinVersion } from './tls-flags.ts';
import { parseRuntimeConfig } from './runtime-config.ts';
import { parseControllers } from './controllers-flag.ts';
import { defaultLeaderElectionTimings, leaderElectionTimingsProblem } from '../controllers/runtime/index.ts';
import type { OidcFlags } from '../auth/oidc.ts';
import type { AuditTruncation } from '../server/audit.ts';
import { parsePortRange, parseServiceCIDRs } from '../registry/builtin/service-ranges.ts';
import { boolFlag, durationFlag, goParseBool, goParseDuration, intFlag, invalidFlagValue, parseFlags, UsageError, type FlagKind, type FlagSpec } from './flag-parsing.ts';

export { UsageError };

export interface Config {
  dataDir: string;
  bindAddress: string;
  /** `--advertise-address`: the IP address others are told to reach this server at (the kubernetes Service's endpoint); default the bind address. */
  advertiseAddress?: string;
  /** 0 picks a free port. */
  securePort: number;
  storage: 'sqlite' | 'memory' | 'etcd';
  etcdServers: string[];
  /** `--etcd-prefix`: where keys live in etcd (default "/registry", as upstream). */
  etcdPrefix: string;
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: TLS to etcd, as upstream's flags (any one of them turns TLS on). */
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  featureGates: Record<string, boolean>;
  /** Static token file; defaults to `<dataDir>/tokens.csv`, created with an admin token. */
  tokenAuthFile: string | undefined;
  /** `--authorization-mode`: the modes in order (upstream's default: RBAC). */
  authorizationModes: AuthorizationMode[];
  /** `--authorization-webhook-*`: the Webhook mode's kubeconfig, SubjectAccessReview version and cache TTLs. */
  authorizationWebhook?: AuthorizationWebhookFlags;
  /** `--authorization-policy-file`: the ABAC mode's policies, one JSON object a line. */
  authorizationPolicyFile?: string;
  /** `--authorization-config`: an AuthorizationConfiguration file (the authorizer chain, webhooks with match conditions), reloaded when it changes. */
  authorizationConfig?: string;
  /**
   * `--enable-admission-plugins`: plugins to run besides the default ones. Only
   * NodeRestriction is off by default here; naming a default one changes nothing.
   */
  enableAdmissionPlugins: string[];
  /** `--disable-admission-plugins`: default plugins not to run. */
  disableAdmissionPlugins: string[];
  /** `--admission-control-config-file`: an AdmissionConfiguration (PodSecurity's configuration is read from it). */
  admissionControlConfigFile?: string;
  /** `--client-ca-file`: CAs whose client certificates authenticate; default the data dir's client CA (`pki/client-ca.crt`), created at first start. */
  clientCaFile: string | undefined;
  /** `--enable-bootstrap-token-auth`: bootstrap tokens (kube-system's `bootstrap-token-<id>` Secrets) authenticate, as `kubeadm join` uses them. */
  enableBootstrapTokenAuth?: boolean;
  /** `--anonymous-auth`: requests with no credentials are system:anonymous (true, as upstream). */
  anonymousAuth: boolean;
  /** Whether `--anonymous-auth` was given (the authentication configuration may not then configure anonymous access). */
  anonymousAuthFlagSet?: boolean;
  /** `--service-account-signing-key-file`: default `<dataDir>/pki/sa.key`, created (RSA 2048) on first use. */
  serviceAccountSigningKeyFile: string | undefined;
  /** `--service-account-key-file` (repeatable): keys tokens are verified with; default the signing key. */
  serviceAccountKeyFiles: string[];
  /** `--service-account-issuer` (repeatable): the first signs, all are accepted. */
  serviceAccountIssuers: string[];
  /** `--service-account-jwks-uri`: the key set's URL the OpenID discovery document names; default the server's own. */
  serviceAccountJwksUri?: string;
  /** `--service-account-max-token-expiration` in seconds: TokenRequests asking longer get this; undefined: no limit. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** `--service-account-extend-token-expiration`: a kubelet's 3607 s projected token is valid a year, warning after the time asked. */
  serviceAccountExtendTokenExpiration: boolean;
  /** `--external-hostname`: the host URLs meant for others are made with (the key set's); default the advertised address. */
  externalHostname?: string;
  /** `--api-audiences`: default the issuers. */
  apiAudiences: string[];
  /** `--oidc-*`: OpenID Connect ID tokens of one issuer; undefined without `--oidc-issuer-url`. */
  oidc?: OidcConfig;
  /**
   * `--requestheader-*`: authenticating proxies (their CA, allowed names and headers); without
   * `--requestheader-client-ca-file`, the data dir's front-proxy CA with kubeadm's headers.
   */
  requestHeader?: RequestHeaderFlags;
  /** `--request-timeout`: how long a request that is not long-running may take (a shorter `timeout` parameter shortens it), proxied ones too; default 60 s. */
  requestTimeoutMs?: number;
  /** `--proxy-client-cert-file` and `--proxy-client-key-file`: how Plinth proxies to extension API servers; default the data dir's front-proxy client. */
  proxyClientCertFile?: string;
  /** `--tls-min-version`, as Node names it; default Node's (TLS 1.2, as upstream's). */
  tlsMinVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** `--tls-cipher-suites`, as an OpenSSL cipher string (TLS 1.3's suites always in it); default Plinth's preference. */
  tlsCiphers?: string;
  /** `--tls-sni-cert-key`: certificate and key files served for names (given, else the certificate's), in priority order. */
  tlsSniCertKeys: Array<{ certFile: string; keyFile: string; names: string[] }>;
  /** `--tls-cert-file` and `--tls-private-key-file`: the serving certificate (its chain) and key, followed as they change; default the data dir's, issued by its CA. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  proxyClientKeyFile?: string;
  /** `--authentication-token-webhook-*`: a TokenReview webhook for bearer tokens nothing else recognises. */
  tokenWebhook?: TokenWebhookFlags;
  /** `--authentication-config`: an AuthenticationConfiguration file (JWT authenticators, anonymous access), reloaded when it changes. */
  authenticationConfig?: string;
  serviceClusterIPRange: string;
  serviceNodePortRange: string;
  /** `--etcd-healthcheck-timeout` and `--etcd-readycheck-timeout`: how long the storage's health (`etcd`) and readiness (`etcd-readiness`) checks wait (2 s each). */
  etcdHealthcheckTimeoutMs: number;
  etcdReadycheckTimeoutMs: number;
  /** `--lease-reuse-duration-seconds`: on etcd, the longest a lease for keys with a time to live is reused (60 s). */
  leaseReuseDurationSeconds: number;
  /** History kept before compaction, in milliseconds (upstream's --etcd-compaction-interval). */
  etcdCompactionIntervalMs: number;
  /** Bytes of events each resource's watch cache keeps at most, whatever their age (`--watch-cache-window-bytes`). */
  watchCacheWindowBytes: number;
  /** `--event-ttl` in whole seconds: how long an Event is kept after its last write; 0 keeps them for good. */
  eventTtlSeconds: number;
  /** Where the kubeconfig goes; defaults to `<dataDir>/kubeconfig`. */
  kubeconfigPath: string | undefined;
  /** An EncryptionConfiguration file (upstream's format): how values are encrypted at rest. */
  encryptionProviderConfig: string | undefined;
  /** `--encryption-provider-config-automatic-reload`: follow that file as it changes. */
  encryptionProviderConfigAutomaticReload: boolean;
  /** Log verbosity as klog's `-v`: 3 and up logs every request (upstream's httplog), 4 and up clients going away mid-request. */
  verbosity: number;
  /** `--log-format`: klog's text lines or JSON lines. */
  logFormat: 'text' | 'json';
  /** Watch cache timings (not flags; tests shorten them): bookmarks about every minute and list snapshots kept 75 s, as upstream. */
  watchBookmarkIntervalMs: number;
  listSnapshotTtlMs: number;
  /** How long a read at a resourceVersion the cache has not seen waits before 504 "Too large resource version" (3 s, as upstream). */
  watchCacheWaitMs: number;
  /** Not flags (tests lower them): bytes of events a watch may leave unread in the watch cache before it is ended, and how long its client may leave written data untaken before the stream or connection is reset. */
  watchMaxQueuedBytes: number;
  watchWriteGraceMs: number;
  /** Not a flag (tests lower it): server-side applies of built-in workloads the main thread serves before it starts the apply worker (registry/apply-offload); -1: never. */
  applyWorkerAfter: number;
  /** Not a flag (tests lower it): how long the rest of a request body an answer left unread may take to arrive over HTTP/2 before the stream is reset. */
  unreadBodyGraceMs: number;
  /** Not a flag (tests that need no collector turn it off): runs the garbage collector, as kube-controller-manager's --enable-garbage-collector (on). */
  enableGarbageCollector: boolean;
  /**
   * Not a flag (tests that count ConfigMaps turn it off): runs the root CA publisher,
   * which puts a kube-root-ca.crt ConfigMap in every namespace, as kube-controller-manager does.
   */
  enableRootCaPublisher: boolean;
  /** Not a flag (tests lower it): how long a node must be gone before the pod garbage collector deletes its pods (40 s, as upstream). */
  podGcQuarantineMs: number;
  /** `--controllers`: which of Plinth's own controllers run, in kube-controller-manager's syntax, aliases resolved (default ['*']). */
  controllers: string[];
  /** `--simulated-nodes`: how many nodes Plinth plays the kubelet of (0: none). */
  simulatedNodes: number;
  /** `--min-request-timeout`: a watch without `timeoutSeconds` ends after between this many seconds and twice that (1800; 0: never). */
  minRequestTimeoutSeconds: number;
  /** `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`: what DefaultTolerationSeconds gives pods (300 each). */
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  /** `--kubelet-preferred-address-types`: which node address names its kubelet (default upstream's order). */
  kubeletPreferredAddressTypes?: string[];
  /** `--kubelet-client-certificate`, `--kubelet-client-key`, `--kubelet-certificate-authority`: checked at start; Plinth dials no kubelet. */
  kubeletClientCertificate?: string;
  kubeletClientKey?: string;
  kubeletCertificateAuthority?: string;
  /** `--endpoint-reconciler-type`: `lease` (replicas keep the kubernetes endpoints together through leases in storage) or `none`. */
  endpointReconcilerType: 'lease' | 'none';
  /** Not flags (tests lower them): the endpoint lease's time to live in seconds (15) and how often it is renewed (10 s). */
  endpointLeaseTtlSeconds: number;
  endpointReconcileIntervalMs: number;
  /**
   * `--storage-initialization-timeout` (1m): how long a request waits for a type's cache to
   * load before upstream's 429 `storage is (re)initializing`.
   */
  storageInitializationTimeoutMs: number;
  /** `--permit-port-sharing`: the port bound with SO_REUSEPORT, so that several servers may share it. */
  permitPortSharing: boolean;
  /**
   * `--profiling` (true): what upstream installs with it that Plinth has, /debug/flags and the
   * metrics' resets on DELETE (Go's pprof endpoints: none here).
   */
  profiling: boolean;
  /** `--disabled-metrics`: metric names left out of `/metrics`. */
  disabledMetrics: string[];
  /** What the flags given say of themselves (deprecated flags), as pflag prints it at start. */
  flagWarnings: string[];
  /** `--aggregator-reject-forwarding-redirect` (true): an extension server's redirects are answered 502, not forwarded. */
  aggregatorRejectForwardingRedirect: boolean;
  /** `--service-account-lookup` (true): a long-lived Secret token authenticates only while its Secret holds it and its account exists. */
  serviceAccountLookup: boolean;
  /** `--identity-lease-duration-seconds` (3600) and `--identity-lease-renew-interval-seconds` (10): the server's identity lease in kube-system. */
  identityLeaseDurationSeconds: number;
  identityLeaseRenewIntervalSeconds: number;
  /** `--allow-privileged`: privileged containers allowed (upstream's default: no; kubeadm passes true). */
  allowPrivileged: boolean;
  /** `--runtime-config`, as its key=value pairs: group versions and resources turned off (or back on). */
  runtimeConfig: Map<string, string>;
  /** `--cors-allowed-origins`: Go regular expressions of the origins that get CORS headers (none: no CORS). */
  corsAllowedOrigins: string[];
  /** `--strict-transport-security-directives`: the HSTS header's directives (none: no header). */
  hstsDirectives: string[];
  /** `--goaway-chance`: the share of HTTP/2 requests after which the connection is closed gracefully (0 to 0.02). */
  goawayChance: number;
  /** `--shutdown-delay-duration`: how long a stopping server keeps serving, /readyz failing, before it stops taking requests. */
  shutdownDelayMs: number;
  /** `--shutdown-send-retry-after`: then answer new requests 429 with Retry-After while those in flight finish, rather than closing the listener at once. */
  shutdownSendRetryAfter: boolean;
  /** `--shutdown-watch-termination-grace-period`: watches are ended spread over this long rather than all at once. */
  shutdownWatchTerminationGraceMs: number;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight` (upstream's 400 and 200; 0: no limit): past them, 429. */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** `--http2-max-streams-per-connection`: streams a client may have open at once on one HTTP/2 connection (0: upstream's default, 100). */
  http2MaxStreamsPerConnection: number;
  /**
   * Not a flag (startServer's temporary data dirs, removed when the server closes): whether
   * the files written in the data dir (certificates, keys, tokens, kubeconfig) are synced to
   * disk before they count as written (default true).
   */
  syncDataDirFiles: boolean;
  /** Not a flag (tests lower it): requests slower than this are logged whatever the verbosity (1 s). */
  slowRequestMs: number;
  /** How long a request may wait its turn for a seat before 429: a quarter of `--request-timeout`, at most a minute (15 s); tests lower it. */
  inflightQueueWaitMs: number;
  /** `--enable-priority-and-fairness`: fair queuing past the in-flight limits (true); false, requests past them are refused at once. */
  enablePriorityAndFairness: boolean;
  /** `--audit-policy-file` and `--audit-log-path` ('-': standard output): both are needed for an audit log. */
  auditPolicyFile?: string;
  auditLogPath?: string;
  /** `--audit-webhook-*`: audit events also (or only) sent to a webhook, in batches; needs `--audit-policy-file`. */
  auditWebhook?: AuditWebhookFlags;
  /** `--audit-log-mode` (`blocking` by default) and, in batch mode, `--audit-log-batch-*`. */
  auditLogMode?: AuditMode;
  auditLogBatch?: AuditBatchFlags;
  /** `--audit-log-format`: JSON lines (the default) or upstream's one-line `legacy` text. */
  auditLogFormat: 'json' | 'legacy';
  /** `--audit-log-truncate-*`: when enabled, the limits events written to the log are truncated to. */
  auditLogTruncate?: AuditTruncation;
  /** `--audit-log-compress`: rotated audit logs are gzipped. */
  auditLogCompress: boolean;
  /** `--audit-log-maxsize` (MB; 100), `--audit-log-maxbackup` (100), `--audit-log-maxage` (days; 366), as v1.36 defaults them; 0: no limit. */
  auditLogMaxSizeMB: number;
  auditLogMaxBackups: number;
  auditLogMaxAgeDays: number;
  /** `--simulated-pod-run-time`: how long Job pods run on simulated nodes before they finish. */
  simulatedPodRunMs: number;
  /** `--simulated-max-grace-period`: the longest a terminating pod on a simulated node is kept. */
  simulatedMaxGracePeriodMs: number;
  /**
   * `--leader-elect`: the in-process controllers run on the replica holding the Lease
   * kube-system/plinth-controllers (true, as kube-controller-manager); false runs them on every replica.
   */
  leaderElect: boolean;
  /** `--leader-elect-lease-duration`, `-renew-deadline`, `-retry-period`: kube-controller-manager's names and defaults (15 s, 10 s, 2 s). */
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  /** `--release-idle-memory`: once the server is quiet after a burst, one full collection gives the heap it grew back (idle-memory.ts). */
  releaseIdleMemory: boolean;
}

const defaultFeatureGates: Record<string, boolean> = {
  APIResponseCompression: true,
  WatchList: true,
  ListFromCacheSnapshot: true,
  CBORServingAndStorage: false,
  AllowUnsafeMalformedObjectDeletion: false,
  NodeDeclaredFeatures: true,
  ConstrainedImpersonation: true,
  AuthorizePodWebsocketUpgradeCreatePermission: true,
};

export function defaultConfig(): Config {
  return {
    dataDir: './data',
    bindAddress: '127.0.0.1',
    securePort: 6443,
    storage: 'sqlite',
    etcdServers: [],
    etcdPrefix: '/registry',
    featureGates: { ...defaultFeatureGates },
    tokenAuthFile: undefined,
    authorizationModes: ['RBAC'],
    enableAdmissionPlugins: [],
    disableAdmissionPlugins: [],
    clientCaFile: undefined,
    anonymousAuth: true,
    serviceAccountSigningKeyFile: undefined,
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
    serviceAccountExtendTokenExpiration: true,
    apiAudiences: [],
    serviceClusterIPRange: '10.96.0.0/12',
    serviceNodePortRange: '30000-32767',
    etcdCompactionIntervalMs: 5 * 60_000,
    etcdHealthcheckTimeoutMs: 2000,
    etcdReadycheckTimeoutMs: 2000,
    leaseReuseDurationSeconds: 60,
    watchCacheWindowBytes: 256 * 1024 * 1024,
    eventTtlSeconds: 3600,
    kubeconfigPath: undefined,
    encryptionProviderConfig: undefined,
    encryptionProviderConfigAutomaticReload: false,
    verbosity: 0,
    logFormat: 'text',
    watchBookmarkIntervalMs: 60_000,
    listSnapshotTtlMs: 75_000,
    watchCacheWaitMs: 3_000,
    watchMaxQueuedBytes: 16 * 1024 * 1024,
    watchWriteGraceMs: 30_000,
    unreadBodyGraceMs: 5_000,
    applyWorkerAfter: 100,
    enableGarbageCollector: true,
    enableRootCaPublisher: true,
    podGcQuarantineMs: 40_000,
    controllers: ['*'],
    simulatedNodes: 0,
    minRequestTimeoutSeconds: 1800,
    runtimeConfig: new Map(),
    allowPrivileged: false,
    endpointReconcilerType: 'lease',
    defaultNotReadyTolerationSeconds: 300,
    defaultUnreachableTolerationSeconds: 300,
    endpointLeaseTtlSeconds: 15,
    endpointReconcileIntervalMs: 10_000,
    serviceAccountLookup: true,
    aggregatorRejectForwardingRedirect: true,
    storageInitializationTimeoutMs: 60_000,
    permitPortSharing: false,
    profiling: true,
    disabledMetrics: [],
    flagWarnings: [],
    tlsSniCertKeys: [],
    identityLeaseDurationSeconds: 3600,
    identityLeaseRenewIntervalSeconds: 10,
    corsAllowedOrigins: [],
    hstsDirectives: [],
    goawayChance: 0,
    shutdownDelayMs: 0,
    shutdownSendRetryAfter: false,
    shutdownWatchTerminationGraceMs: 0,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    http2MaxStreamsPerConnection: 0,
    syncDataDirFiles: true,
    inflightQueueWaitMs: 15_000,
    enablePriorityAndFairness: true,
    slowRequestMs: 1_000,
    auditLogMaxSizeMB: 100,
    auditLogMaxBackups: 100,
    auditLogMaxAgeDays: 366,
    auditLogCompress: false,
    auditLogFormat: 'json',
    simulatedPodRunMs: 3_000,
    simulatedMaxGracePeriodMs: 3_000,
    leaderElect: true,
    leaderElectLeaseDurationMs: defaultLeaderElectionTimings.leaseDurationMs,
    leaderElectRenewDeadlineMs: defaultLeaderElectionTimings.renewDeadlineMs,
    leaderElectRetryPeriodMs: defaultLeaderElectionTimings.retryPeriodMs,
    releaseIdleMemory: true,
  };
}

/** The `--oidc-*` flags, as kube-apiserver takes them: the authenticator's settings and the issuer's CA. */
export type OidcConfig = OidcFlags & { caFile?: string };

/** The algorithms an ID token may be signed with (upstream's supported set). */
const oidcSigningAlgs = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

function parseOidcFlags(values: Record<string, string | string[] | boolean | undefined>): OidcConfig | undefined {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const issuerUrl = text('oidc-issuer-url');
  const clientId = text('oidc-client-id');
  const others = ['oidc-username-claim', 'oidc-username-prefix', 'oidc-groups-claim', 'oidc-groups-prefix', 'oidc-required-claim', 'oidc-ca-file', 'oidc-signing-algs'];
  if ((issuerUrl ?? '') === '' && (clientId ?? '') === '') {
    const stray = others.find((name) => values[name] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} needs --oidc-issuer-url and --oidc-client-id`);
    return undefined;
  }
  if ((issuerUrl ?? '') === '' || (clientId ?? '') === '') throw new UsageError('oidc-issuer-url and oidc-client-id must be specified together');
  let url: URL;
  try {
    url = new URL(issuerUrl!);
  } catch {
    throw new UsageError(`--oidc-issuer-url ${JSON.stringify(issuerUrl)} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new UsageError(`--oidc-issuer-url ${JSON.stringify(issuerUrl)}: URL scheme must be https`);
  const requiredClaims: Record<string, string> = {};
  for (const entry of ((values['oidc-required-claim'] as string[] | undefined) ?? []).flatMap((v) => v.split(','))) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`--oidc-required-claim ${JSON.stringify(entry)}: must be formatted as key=value`);
    requiredClaims[entry.slice(0, eq).trim()] = entry.slice(eq + 1).trim();
  }
  const signingAlgs = (text('oidc-signing-algs') ?? 'RS256').split(',').map((a) => a.trim()).filter((a) => a !== '');
  const unsupported = signingAlgs.find((alg) => !oidcSigningAlgs.includes(alg));
  if (unsupported !== undefined) throw new UsageError(`--oidc-signing-algs: unsupported signing algorithm ${JSON.stringify(unsupported)}: ${oidcSigningAlgs.join(', ')}`);
  return {
    issuerUrl: issuerUrl!, clientId: clientId!, usernameClaim: text('oidc-username-claim') || 'sub', requiredClaims, signingAlgs,
    ...(text('oidc-username-prefix') !== undefined ? { usernamePrefix: text('oidc-username-prefix') } : {}),
    ...(text('oidc-groups-claim') !== undefined ? { groupsClaim: text('oidc-groups-claim') } : {}),
    ...(text('oidc-groups-prefix') !== undefined ? { groupsPrefix: text('oidc-groups-prefix') } : {}),
    ...(text('oidc-ca-file') !== undefined ? { caFile: text('oidc-ca-file') } : {}),
  };
}

/** The `--authorization-webhook-*` flags. */
export interface AuthorizationWebhookFlags {
  configFile: string;
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

/** How an audit backend takes events (`--audit-<backend>-mode`), as upstream's. */
export type AuditMode = 'batch' | 'blocking' | 'blocking-strict';

/** `--audit-<backend>-batch-*`: the buffered backend's settings, in batch mode. */
export interface AuditBatchFlags {
  bufferSize: number;
  maxBatchSize: number;
  maxWaitMs: number;
  /** Batches a second and the burst (undefined: not throttled). */
  throttle?: { qps: number; burst: number };
}

/** The `--audit-webhook-*` flags. */
export interface AuditWebhookFlags {
  configFile: string;
  /** `batch` (upstream's default for webhooks) sends buffered batches; the blocking modes one event at a time, the request waiting for its first. */
  mode: AuditMode;
  /** In batch mode. */
  batch?: AuditBatchFlags;
  /** `--audit-webhook-truncate-*`, when enabled. */
  truncate?: AuditTruncation;
  version: string;
  initialBackoffMs: number;
}

type FlagValues = Record<string, string | string[] | boolean | undefined>;

/**
 * `--audit-<backend>-mode` and `--audit-<backend>-batch-*` as upstream's
 * validateBackendBatchOptions checks them (the batch settings only in batch mode), flag
 * values refused in pflag's words. The defaults differ by backend, as upstream's.
 */
function parseAuditBatchFlags(
  values: FlagValues, backend: 'log' | 'webhook',
  defaults: { mode: AuditMode; maxBatchSize: number; maxWaitMs: number; throttle: boolean; qps: number; burst: number },
): { mode: AuditMode; batch?: AuditBatchFlags } {
  const name = (flag: string) => `audit-${backend}-${flag}`;
  const text = (flag: string) => (typeof values[name(flag)] === 'string' ? (values[name(flag)] as string) : undefined);
  const int = (flag: string, fallback: number): number => intFlag(name(flag), text(flag)) ?? fallback;
  const float = (flag: string, fallback: number): number => {
    const given = text(flag);
    if (given === undefined) return fallback;
    const n = Number(given);
    if (given.trim() !== given || given === '' || Number.isNaN(n)) throw invalidFlagValue(name(flag), given, `strconv.ParseFloat: parsing ${JSON.stringify(given)}: invalid syntax`);
    return n;
  };
  const duration = (flag: string, fallback: number): number => durationFlag(name(flag), text(flag)) ?? fallback;
  const batch = {
    bufferSize: int('batch-buffer-size', 10_000), maxBatchSize: int('batch-max-size', defaults.maxBatchSize), maxWaitMs: duration('batch-max-wait', defaults.maxWaitMs),
    throttleEnabled: boolFlag(name('batch-throttle-enable'), text('batch-throttle-enable'), defaults.throttle),
    qps: float('batch-throttle-qps', defaults.qps), burst: int('batch-throttle-burst', defaults.burst),
  };
  const mode = text('mode') ?? defaults.mode;
  if (mode !== 'batch' && mode !== 'blocking' && mode !== 'blocking-strict') {
    throw new UsageError(`invalid audit ${backend} mode ${mode}, allowed modes are "batch,blocking,blocking-strict"`);
  }
  if (mode !== 'batch') return { mode };
  const positive = (value: number, what: string) => {
    if (value <= 0) throw new UsageError(`invalid audit batch ${backend} ${what} ${value}, must be a positive number`);
  };
  positive(batch.bufferSize, 'buffer size');
  positive(batch.maxBatchSize, 'max batch size');
  if (batch.throttleEnabled) {
    positive(batch.qps, 'throttle QPS');
    positive(batch.burst, 'throttle burst');
  }
  const { bufferSize, maxBatchSize, maxWaitMs } = batch;
  return { mode, batch: { bufferSize, maxBatchSize, maxWaitMs, ...(batch.throttleEnabled ? { throttle: { qps: batch.qps, burst: batch.burst } } : {}) } };
}

/** `--audit-webhook-*`, as upstream's AuditWebhookOptions validates them: batches of 400 within 30 s, 10 a second, by default. */
function parseAuditWebhookFlags(values: FlagValues): AuditWebhookFlags | undefined {
  const text = (name: string) => (typeof values[`audit-webhook-${name}`] === 'string' ? (values[`audit-webhook-${name}`] as string) : undefined);
  const file = text('config-file') ?? '';
  if (file === '') return undefined;
  const { mode, batch } = parseAuditBatchFlags(values, 'webhook', { mode: 'batch', maxBatchSize: 400, maxWaitMs: 30_000, throttle: true, qps: 10, burst: 15 });
  const version = text('version') ?? 'audit.k8s.io/v1';
  if (version !== 'audit.k8s.io/v1') throw new UsageError(`invalid audit webhook version ${version}, allowed versions are "audit.k8s.io/v1"`);
  const truncate = parseAuditTruncateFlags(values, 'webhook');
  return {
    configFile: file, mode, ...(batch !== undefined ? { batch } : {}), version, ...(truncate !== undefined ? { truncate } : {}),
    initialBackoffMs: nonNegativeDurationFlag('audit-webhook-initial-backoff', text('initial-backoff')) ?? 10_000,
  };
}

/**
 * `--audit-<backend>-truncate-*` as upstream's AuditTruncateOptions validates them (enabled
 * or not): the event limit positive (100 KiB by default), the batch limit (10 MiB) not below it.
 */
function parseAuditTruncateFlags(values: Record<string, string | string[] | boolean | undefined>, backend: 'log' | 'webhook'): AuditTruncation | undefined {
  const flag = (name: string) => {
    const value = values[`audit-${backend}-truncate-${name}`];
    return typeof value === 'string' ? value : undefined;
  };
  const int64 = (name: string, fallback: number): number => intFlag(`audit-${backend}-truncate-${name}`, flag(name)) ?? fallback;
  const maxEventSize = int64('max-event-size', 100 * 1024);
  const maxBatchSize = int64('max-batch-size', 10 * 1024 * 1024);
  if (maxEventSize <= 0) throw new UsageError(`invalid audit truncate ${backend} max event size ${maxEventSize}, must be a positive number`);
  if (maxBatchSize < maxEventSize) throw new UsageError(`invalid audit truncate ${backend} max batch size ${maxBatchSize}, must be greater than max event size (${maxEventSize})`);
  return boolFlag(`audit-${backend}-truncate-enabled`, flag('enabled'), false) ? { maxEventSize, maxBatchSize } : undefined;
}

/**
 * `--audit-log-format`, `--audit-log-version` and `--audit-log-truncate-*`, checked as
 * upstream's AuditLogOptions checks them: only when a log path is set.
 */
function parseAuditLogFlags(values: FlagValues, config: Config): void {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  if ((text('audit-log-path') ?? '') === '') return;
  // Upstream's log backend blocks by default; in batch mode it writes each event alone unless told otherwise, unthrottled.
  const { mode, batch } = parseAuditBatchFlags(values, 'log', { mode: 'blocking', maxBatchSize: 1, maxWaitMs: 0, throttle: false, qps: 0, burst: 0 });
  config.auditLogMode = mode;
  if (batch !== undefined) config.auditLogBatch = batch;
  const truncate = parseAuditTruncateFlags(values, 'log');
  if (truncate !== undefined) config.auditLogTruncate = truncate;
  const version = text('audit-log-version') ?? 'audit.k8s.io/v1';
  if (version.split('/').length > 2) throw new UsageError(`unexpected GroupVersion string: ${version}`);
  if (version !== 'audit.k8s.io/v1') throw new UsageError('invalid group version, allowed versions are ["audit.k8s.io/v1"]');
  const format = text('audit-log-format') ?? 'json';
  if (format !== 'json' && format !== 'legacy') throw new UsageError(`invalid audit log format ${format}, allowed formats are "legacy,json"`);
  config.auditLogFormat = format;
}

/** The `--requestheader-*` flags. */
export interface RequestHeaderFlags {
  clientCaFile: string;
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeadersPrefix: string[];
}

/** `--requestheader-*`, as upstream's RequestHeaderAuthenticationOptions reads and validates them (string slices: comma-separated, repeatable). */
function parseRequestHeaderFlags(values: Record<string, string | string[] | boolean | undefined>): RequestHeaderFlags | undefined {
  const list = (name: string): string[] => {
    const given = values[`requestheader-${name}`];
    const items = (Array.isArray(given) ? given : typeof given === 'string' ? [given] : []).flatMap((v) => v.split(','));
    if (items.some((item) => item.trim() === '')) throw new UsageError(`empty value in "requestheader-${name}"`);
    return items.map((item) => item.trim());
  };
  const parsed = {
    allowedNames: list('allowed-names'), usernameHeaders: list('username-headers'), uidHeaders: list('uid-headers'),
    groupHeaders: list('group-headers'), extraHeadersPrefix: list('extra-headers-prefix'),
  };
  const file = typeof values['requestheader-client-ca-file'] === 'string' ? values['requestheader-client-ca-file'] : '';
  return file === '' ? undefined : { clientCaFile: file, ...parsed };
}

/** The `--authentication-token-webhook-*` flags. */
export interface TokenWebhookFlags {
  configFile: string;
  version: 'v1' | 'v1beta1';
  cacheTtlMs: number;
}

/**
 * The authorization flags as kube-apiserver checks them together: `--authorization-config`
 * excludes `--authorization-mode` and the webhook flags; the Webhook mode needs its
 * kubeconfig and the kubeconfig the mode, the ABAC mode its policy file and the file the mode.
 */
function parseAuthorizationFlags(values: Record<string, string | string[] | boolean | undefined>, config: Config): void {
  const webhookFlags = ['authorization-webhook-config-file', 'authorization-webhook-version', 'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl'];
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const file = text('authorization-config');
  if (file !== undefined && file !== '') {
    if (values['authorization-mode'] !== undefined || webhookFlags.some((name) => values[name] !== undefined)) {
      throw new UsageError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    }
    config.authorizationConfig = file;
    return;
  }
  if (values['authorization-mode'] !== undefined) config.authorizationModes = parseAuthorizationModes(text('authorization-mode')!);
  const policyFile = text('authorization-policy-file') ?? '';
  if (config.authorizationModes.includes('ABAC') && policyFile === '') throw new UsageError("authorization-mode ABAC's authorization policy file not passed");
  if (!config.authorizationModes.includes('ABAC') && policyFile !== '') throw new UsageError('cannot specify --authorization-policy-file without mode ABAC');
  if (policyFile !== '') config.authorizationPolicyFile = policyFile;
  const webhookFile = text('authorization-webhook-config-file') ?? '';
  if (config.authorizationModes.includes('Webhook') && webhookFile === '') throw new UsageError("authorization-mode Webhook's authorization config file not passed");
  if (!config.authorizationModes.includes('Webhook') && webhookFile !== '') throw new UsageError('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (webhookFile === '') return;
  const version = text('authorization-webhook-version') ?? 'v1beta1';
  if (version !== 'v1' && version !== 'v1beta1') throw new UsageError(`unsupported webhook authorizer version ${JSON.stringify(version)}, supported versions are "v1", "v1beta1"`);
  const ttl = (name: string, fallback: number) => nonNegativeDurationFlag(name, text(name)) ?? fallback;
  config.authorizationWebhook = {
    configFile: webhookFile, version,
    authorizedTtlMs: ttl('authorization-webhook-cache-authorized-ttl', 300_000), unauthorizedTtlMs: ttl('authorization-webhook-cache-unauthorized-ttl', 30_000),
  };
}

/** `--authentication-token-webhook-*`: the webhook token authenticator's kubeconfig, TokenReview version and cache TTL. */
function parseTokenWebhookFlags(values: Record<string, string | string[] | boolean | undefined>): TokenWebhookFlags | undefined {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const file = text('authentication-token-webhook-config-file') ?? '';
  if (file === '') return undefined;
  const version = text('authentication-token-webhook-version') ?? 'v1beta1';
  if (version !== 'v1' && version !== 'v1beta1') throw new UsageError(`unsupported authentication webhook version ${JSON.stringify(version)}, supported versions are "v1", "v1beta1"`);
  const ttl = nonNegativeDurationFlag('authentication-token-webhook-cache-ttl', text('authentication-token-webhook-cache-ttl'));
  return { configFile: file, version, cacheTtlMs: ttl ?? 120_000 };
}

/** An `--authorization-mode` this server has. */
export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'ABAC' | 'Node' | 'RBAC' | 'Webhook';

const authorizationModes: readonly string[] = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Node', 'RBAC', 'Webhook'];

/** Upstream's mode names. */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes: AuthorizationMode[] = [];
  for (const name of value.split(',').map((m) => m.trim())) {
    if (!authorizationModes.includes(name)) {
      throw new UsageError(`authorization-mode ${JSON.stringify(name)} is not a valid mode: AlwaysAllow, AlwaysDeny, ABAC, Node, RBAC or Webhook`);
    }
    const mode = name as AuthorizationMode;
    if (modes.includes(mode)) throw new UsageError(`authorization-mode ${JSON.stringify(mode)} has mode specified more than once`);
    modes.push(mode);
  }
  return modes;
}

/** The admission plugins Plinth runs by default, in upstream's order, and NodeRestriction, which it runs when asked. */
const admissionPluginNames: readonly string[] = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds',
  'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning',
  'CertificateSubjectRestriction', 'DefaultIngressClass', 'PodTopologyLabels', 'NodeDeclaredFeatureValidator', 'PodResizeValidator', 'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota',
];

/** `--enable-admission-plugins` or `--disable-admission-plugins`, comma-separated; a plugin Plinth does not have is a usage error. */
export function parseAdmissionPlugins(value: string, flag = 'enable-admission-plugins'): string[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    if (!admissionPluginNames.includes(name)) {
      throw new UsageError(`${flag} plugin ${JSON.stringify(name)} is unknown or not built: ${admissionPluginNames.join(', ')}`);
    }
  }
  return names;
}

/** pflag's string slice: comma-separated, an empty value none. */
function stringSlice(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value === '' ? [] : value.split(',');
}

/**
 * The server run options kube-apiserver checks together (its ServerRunOptions.Validate):
 * CORS origins, HSTS directives, the GOAWAY chance and the watches' minimum timeout, refused
 * with upstream's words, several errors as its aggregate shows them.
 */
function parseServerRunFlags(values: Record<string, string | string[] | boolean | undefined>, config: Config): void {
  const errors: string[] = [];
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const minTimeout = intFlag('min-request-timeout', text('min-request-timeout'));
  if (minTimeout !== undefined) {
    if (minTimeout < 0) errors.push('--min-request-timeout can not be negative value');
    config.minRequestTimeoutSeconds = minTimeout;
  }
  const goaway = text('goaway-chance');
  if (goaway !== undefined) {
    const n = Number(goaway);
    if (goaway.trim() === '' || Number.isNaN(n)) throw new UsageError(`invalid argument ${JSON.stringify(goaway)} for "--goaway-chance" flag: strconv.ParseFloat: parsing ${JSON.stringify(goaway)}: invalid syntax`);
    if (n < 0 || n > 0.02) errors.push('--goaway-chance can not be less than 0 or greater than 0.02');
    config.goawayChance = n;
  }
  const hsts = stringSlice(text('strict-transport-security-directives'));
  if (hsts !== undefined) {
    for (const directive of hsts) {
      if (directive.trim() === '') {
        errors.push('empty value in strict-transport-security-directives');
        continue;
      }
      const maxAge = directive.split('=');
      if (directive !== 'includeSubDomains' && directive !== 'preload' && (maxAge.length !== 2 || maxAge[0] !== 'max-age')) {
        errors.push('--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information');
      }
    }
    config.hstsDirectives = hsts;
  }
  const origins = stringSlice(text('cors-allowed-origins'));
  if (origins !== undefined) {
    const help = 'each expression must pin the start of the host (\'^\' or \'//\') and its end (\'$\' or the \':\' of a port), e.g. \'//example\\.com(:|$)\' or \'^https://example\\.com(:|$)\'';
    const corsErrors: string[] = [];
    for (const origin of origins) {
      if (origin === '') {
        corsErrors.push(`empty value in --cors-allowed-origins, help: ${help}`);
        continue;
      }
      const compiled = compileGoRegexp(origin);
      // The expression must pin the host in the Origin header at both ends (CVE-2022-1996), as upstream checks it.
      const problem = compiled.error ?? (!['^', '//'].some((m) => origin.includes(m)) || !['$', ':'].some((m) => origin.includes(m))
        ? 'regular expression does not pin to start/end of host in the origin header' : undefined);
      if (problem !== undefined) corsErrors.push(`--cors-allowed-origins has an invalid regular expression: ${problem}, help: ${help}`);
    }
    errors.push(...corsErrors);
    config.corsAllowedOrigins = origins;
  }
  const delay = durationFlag('shutdown-delay-duration', text('shutdown-delay-duration'));
  if (delay !== undefined) {
    if (delay < 0) errors.push('--shutdown-delay-duration can not be negative value');
    config.shutdownDelayMs = delay;
  }
  config.shutdownSendRetryAfter = boolFlag('shutdown-send-retry-after', text('shutdown-send-retry-after'), config.shutdownSendRetryAfter);
  const watchGrace = durationFlag('shutdown-watch-termination-grace-period', text('shutdown-watch-termination-grace-period'));
  if (watchGrace !== undefined) {
    if (watchGrace < 0) errors.push('shutdown-watch-termination-grace-period, if provided, can not be a negative value');
    config.shutdownWatchTerminationGraceMs = watchGrace;
  }
  if (errors.length > 0) throw new UsageError(aggregate(errors));
}

/** The service-account token flags beyond keys and issuers, checked as upstream's options check them. */
function parseServiceAccountFlags(values: Record<string, string | string[] | boolean | undefined>, config: Config): void {
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const jwksUri = text('service-account-jwks-uri');
  if (jwksUri !== undefined && jwksUri !== '') {
    let url: URL;
    try {
      url = new URL(jwksUri);
    } catch (err) {
      throw new UsageError(`service-account-jwks-uri must be a valid URL: ${(err as Error).message}`);
    }
    if (url.protocol !== 'https:') throw new UsageError(`service-account-jwks-uri requires https scheme, parsed as: ${jwksUri}`);
    config.serviceAccountJwksUri = jwksUri;
  }
  const max = text('service-account-max-token-expiration');
  if (max !== undefined) {
    const ms = durationFlag('service-account-max-token-expiration', max)!;
    if (ms !== 0) {
      if (ms < 3_600_000 || ms > 2 ** 32 * 1000) throw new UsageError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
      config.serviceAccountMaxTokenExpirationSeconds = Math.trunc(ms / 1000);
    }
  }
  config.serviceAccountExtendTokenExpiration = boolFlag('service-account-extend-token-expiration', text('service-account-extend-token-expiration'), config.serviceAccountExtendTokenExpiration);
  const external = text('external-hostname');
  if (external !== undefined && external !== '') config.externalHostname = external;
}

/** apimachinery's aggregate error text: flattened, each message once; one as it is, several as `[a, b]`. */
function aggregate(errors: string[]): string {
  const messages = [...new Set(errors)];
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/** Go's time.ParseDuration in milliseconds, a sign allowed; throws its error (`time: invalid duration "x"`). */
export function parseSignedDuration(text: string): number {
  return goParseDuration(text);
}

/** A pflag duration that may not be negative, in upstream's words (`--x can not be negative value`); undefined when not given. */
function nonNegativeDurationFlag(flag: string, given: string | undefined): number | undefined {
  const ms = durationFlag(flag, given);
  if (ms !== undefined && ms < 0) throw new UsageError(`--${flag} can not be negative value`);
  return ms;
}

/** A duration in milliseconds as Go's time.Duration String() prints it (`30s`, `1m0s`, `1h30m0s`, `500ms`, `-3s`). */
export function goDuration(ms: number): string {
  if (ms < 0) return `-${goDuration(-ms)}`;
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s}s`;
}

/** A byte count: an integer, with an optional binary suffix as Kubernetes quantities write them ("256Mi", "1Gi"). */
function parseBytes(flag: string, text: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(text);
  if (match === null) throw new UsageError(`invalid ${flag} "${text}": a byte count such as 268435456 or 256Mi`);
  const scale = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * scale;
}

interface KubeFeatureGate { default: boolean; preRelease: 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED'; lockToDefault: boolean }

let kubeGates: Record<string, KubeFeatureGate> | undefined;

/**
 * kube-apiserver v1.36's feature gates, their stage and default at 1.36 (feature-gates/kube.json,
 * from upstream's versioned feature list): read when a command line sets gates.
 */
function kubeFeatureGates(): Record<string, KubeFeatureGate> {
  kubeGates ??= JSON.parse(readFileSync(new URL('./feature-gates/kube.json', import.meta.url), 'utf8')) as Record<string, KubeFeatureGate>;
  return kubeGates;
}

/**
 * `--feature-gates` (repeatable, `[kube:]Name=bool,…`) as upstream's feature gate takes it:
 * any gate kube-apiserver v1.36 knows, values as Go's ParseBool reads them, a locked gate only
 * at its default, a GA or deprecated gate with upstream's warning; AllAlpha and AllBeta set
 * every alpha or beta gate not set by name. Plinth acts on its own few (its defaults are
 * upstream's); the others are checked and kept.
 */
function parseFeatureGates(texts: readonly string[], config: Config): void {
  const known = kubeFeatureGates();
  const given = new Map<string, boolean>();
  for (const pair of texts.flatMap((text) => text.split(',')).map((p) => p.trim()).filter((p) => p !== '')) {
    const equals = pair.indexOf('=');
    let key = (equals < 0 ? pair : pair.slice(0, equals)).trim();
    const colon = key.indexOf(':');
    if (colon >= 0) {
      const component = key.slice(0, colon);
      if (component !== 'kube') throw new UsageError(`component not registered: ${component}`);
      key = key.slice(colon + 1);
    }
    if (equals < 0) throw new UsageError(`missing bool value for ${key}`);
    const value = pair.slice(equals + 1).trim();
    const parsed = goParseBool(value);
    if (parsed === undefined) throw new UsageError(`invalid value of ${key}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    given.set(key, parsed);
  }
  const errors: string[] = [];
  for (const [key, value] of given) {
    if (key === 'AllAlpha' || key === 'AllBeta') continue;
    const gate = known[key];
    if (gate === undefined) throw new UsageError(`unrecognized feature gate: ${key}`);
    if (gate.lockToDefault && gate.default !== value) errors.push(`cannot set feature gate ${key} to ${value}, feature is locked to ${gate.default}`);
    if (gate.preRelease === 'GA') config.flagWarnings.push(`Setting GA feature gate ${key}=${value}. It will be removed in a future release.`);
    if (gate.preRelease === 'DEPRECATED') config.flagWarnings.push(`Setting deprecated feature gate ${key}=${value}. It will be removed in a future release.`);
  }
  if (errors.length > 0) throw new UsageError(aggregate(errors));
  // AllAlpha and AllBeta reach the gates Plinth acts on that are not set by name.
  for (const [special, stage] of [['AllAlpha', 'ALPHA'], ['AllBeta', 'BETA']] as const) {
    const value = given.get(special);
    if (value === undefined) continue;
    for (const name of Object.keys(defaultFeatureGates)) if (known[name]?.preRelease === stage && !given.has(name)) config.featureGates[name] = value;
  }
  for (const [key, value] of given) if (key !== 'AllAlpha' && key !== 'AllBeta') config.featureGates[key] = value;
}

export const serveUsage = `Usage: plinth serve [flags]

Flags (kube-apiserver's names where one exists):
  --data-dir string                  data directory: database, certificates, tokens, kubeconfig (default "./data")
  --bind-address string              address to listen on (default "127.0.0.1")
  --advertise-address ip             address the kubernetes Service's endpoints and discovery name (default: the bind address)
  --secure-port int                  HTTPS port; 0 picks a free one (default 6443)
  --storage sqlite|memory|etcd       storage backend (default "sqlite")
  --etcd-servers strings             etcd endpoints, comma-separated (with --storage etcd)
  --etcd-prefix string               the prefix of every key in etcd, ending in /registry (default "/registry")
  --etcd-cafile string               CA bundle that verifies etcd's serving certificates (TLS to etcd; else the system's CAs)
  --etcd-certfile string             client certificate presented to etcd (with --etcd-keyfile)
  --etcd-keyfile string              private key of --etcd-certfile
  --feature-gates string             e.g. APIResponseCompression=true,WatchList=false
  --token-auth-file string           static token file (default "<data-dir>/tokens.csv", created with an admin token)
  --authorization-mode strings       modes in order, of AlwaysAllow, AlwaysDeny, ABAC, Node, RBAC, Webhook (default "RBAC")
  --authorization-policy-file string the ABAC mode's policies: one JSON Policy object a line
  --authorization-webhook-config-file string     kubeconfig of the Webhook mode's SubjectAccessReview webhook
  --authorization-webhook-version string         SubjectAccessReview version sent to it: v1 or v1beta1 (default "v1beta1")
  --authorization-webhook-cache-authorized-ttl duration    how long its allowed answers are reused (default 5m0s)
  --authorization-webhook-cache-unauthorized-ttl duration  how long its other answers are reused (default 30s)
  --authorization-config string      AuthorizationConfiguration file: the authorizer chain, webhooks with match conditions; reloaded when it changes (excludes --authorization-mode and --authorization-webhook-*)
  --requestheader-client-ca-file string       CA of authenticating proxies, whose client certificates may name the user in headers (default: the data dir's front-proxy CA)
  --proxy-client-cert-file string             client certificate Plinth proxies to extension API servers with (default: the data dir's front-proxy client)
  --proxy-client-key-file string              its key
  --request-timeout duration                  how long a request that is not long-running (a watch, logs, exec, a proxy) may take before it is answered 504; a request's shorter timeout parameter shortens it (default 1m0s)
  --requestheader-allowed-names strings       common names those certificates may have (default: any)
  --requestheader-username-headers strings    headers naming the user, the first non-empty one wins (e.g. X-Remote-User)
  --requestheader-uid-headers strings         headers naming the user's uid (e.g. X-Remote-Uid)
  --requestheader-group-headers strings       headers naming the groups, every value (e.g. X-Remote-Group)
  --requestheader-extra-headers-prefix strings  prefixes of headers naming extra attributes (e.g. X-Remote-Extra-)
  --authentication-token-webhook-config-file string  kubeconfig of a TokenReview webhook that authenticates bearer tokens nothing else knows
  --authentication-token-webhook-version string      TokenReview version sent to it: v1 or v1beta1 (default "v1beta1")
  --authentication-token-webhook-cache-ttl duration  how long its answers are reused (default 2m0s)
  --enable-admission-plugins strings admission plugins besides the default ones: NodeRestriction
  --disable-admission-plugins strings
                                     default admission plugins not to run (e.g. PodSecurity)
  --admission-control-config-file file
                                     AdmissionConfiguration (apiserver.config.k8s.io/v1): PodSecurity's defaults and exemptions
  --client-ca-file string            CA bundle whose client certificates authenticate (CN user, O groups)
  --tls-cert-file string             serving certificate, followed by its intermediates (default: the data dir's, issued by its CA);
                                     served anew to new connections when the file changes
  --tls-private-key-file string      its key
  --tls-sni-cert-key cert,key[:names]  a certificate served to clients asking for one of its names (SNI; default the
                                     certificate's own), repeatable, the first naming a name serves it
  --tls-min-version string           VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13 (default VersionTLS12)
  --tls-cipher-suites strings        TLS 1.2 cipher suites by Go's names, e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
                                     (TLS 1.3's are not configurable, as upstream)
                                     (default "<data-dir>/pki/client-ca.crt", created with an admin certificate)
  --anonymous-auth[=false]           requests without credentials are system:anonymous (default true)
  --enable-bootstrap-token-auth      bootstrap tokens (kube-system's bootstrap-token-<id> Secrets) authenticate, as kubeadm join uses them
  --service-account-signing-key-file string
                                     key service-account tokens are signed with (default "<data-dir>/pki/sa.key", created)
  --service-account-key-file string  public keys tokens are verified with, repeatable (default the signing key)
  --service-account-issuer string    token issuer, repeatable: the first signs
                                     (default "https://kubernetes.default.svc.cluster.local")
  --api-audiences strings            audiences tokens must be meant for (default the issuers)
  --service-account-jwks-uri string  the key set's URL (https) the OpenID discovery document names
                                     (default https://<external host>:<port>/openid/v1/jwks)
  --service-account-max-token-expiration dur
                                     the longest a TokenRequest's token is valid, 1h to 2^32s (default 0: no limit)
  --service-account-extend-token-expiration
                                     a kubelet's 3607 s projected token is valid a year, with a warning after the
                                     time asked (default true)
  --external-hostname string         host of URLs given to others, such as the key set's (default the advertised address)
  --authentication-config string     AuthenticationConfiguration file: JWT authenticators (several issuers, CEL claim mappings and rules) and anonymous access; reloaded when it changes
  --oidc-issuer-url string           OpenID Connect issuer (https) whose ID tokens authenticate, with --oidc-client-id
  --oidc-client-id string            the audience its tokens must carry
  --oidc-username-claim string       the claim naming the user (default "sub"; any claim but email is prefixed "<issuer>#")
  --oidc-username-prefix string      prefix of every username ("-" for none)
  --oidc-groups-claim string         the claim naming the user's groups (a string or a list)
  --oidc-groups-prefix string        prefix of every group
  --oidc-required-claim key=value    a claim every token must carry with that value, repeatable
  --oidc-ca-file string              CA bundle that verifies the issuer's serving certificate (else the system's CAs)
  --oidc-signing-algs strings        algorithms tokens may be signed with (default "RS256")
  --service-cluster-ip-range string  CIDR for Service ClusterIPs (default "10.96.0.0/12")
  --service-node-port-range string   NodePort range (default "30000-32767")
  --etcd-compaction-interval dur     history kept before compaction (default 5m)
  --etcd-healthcheck-timeout dur     how long the storage health check (/livez, /healthz, /readyz: etcd) waits (default 2s)
  --etcd-readycheck-timeout dur      how long the storage readiness check (/readyz: etcd-readiness) waits (default 2s)
  --lease-reuse-duration-seconds int on etcd, the longest a lease for Events' time to live is reused (default 60)
  --watch-cache-window-bytes bytes   events each resource's watch cache keeps at most, e.g. 64Mi (default 256Mi)
  --event-ttl dur                    how long Events are kept after their last write, in whole seconds (default 1h0m0s)
  --kubeconfig string                where to write the kubeconfig (default "<data-dir>/kubeconfig")
  --encryption-provider-config file  EncryptionConfiguration (apiserver.config.k8s.io/v1): encryption at rest with
                                     aescbc, aesgcm, secretbox, kms (v2) or identity providers
  --encryption-provider-config-automatic-reload
                                     follow that file as it changes (default false)
  --controllers strings              Plinth's own controllers, in kube-controller-manager's syntax: '*' all,
                                     'name' on, '-name' off, e.g. '*,-garbagecollector' (default "*")
  --simulated-nodes int              play the kubelets of this many nodes: pods bound to them run (default 0)
  --min-request-timeout int          seconds a watch without timeoutSeconds lasts at least (at most twice
                                     that, at random); 0: no end (default 1800)
  --default-not-ready-toleration-seconds int
                                     seconds a pod tolerates its node not being ready, unless it says (default 300)
  --default-unreachable-toleration-seconds int
                                     seconds a pod tolerates its node being unreachable, unless it says (default 300)
  --kubelet-preferred-address-types strings
                                     node address types a kubelet is named by, in order
                                     (default Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP)
  --kubelet-client-certificate string, --kubelet-client-key string, --kubelet-certificate-authority string
                                     TLS to kubelets, as upstream's: checked at start (Plinth dials no kubelet)
  --endpoint-reconciler-type string  how the kubernetes Service's endpoints are kept: lease (each replica's address
                                     while its lease in storage lives) or none (default "lease")
  --aggregator-reject-forwarding-redirect   an extension API server's redirects are answered 502, not forwarded (default true)
  --service-account-lookup           a long-lived token of a kubernetes.io/service-account-token Secret authenticates
                                     only while the Secret holds it and its account exists (default true)
  --identity-lease-duration-seconds int       the server's identity lease in kube-system lasts this long (default 3600)
  --identity-lease-renew-interval-seconds int how often the identity lease is renewed (default 10)
  --allow-privileged                 allow privileged containers (default false, as upstream; kubeadm sets it)
  --runtime-config mapData           API group versions or resources to turn off or on, e.g. 'batch/v1=false',
                                     'api/beta=false', 'apps/v1/daemonsets=false' (Plinth serves upstream's default set)
  --cors-allowed-origins strings     regular expressions (Go's) of origins answered with CORS headers; each must
                                     pin the host's start ('^' or '//') and end ('$' or ':'), e.g. '//example\.com(:|$)'
  --strict-transport-security-directives strings
                                     HSTS directives sent with every answer, e.g. 'max-age=31536000,includeSubDomains,preload'
  --goaway-chance float              share of HTTP/2 requests after which the connection is closed gracefully
                                     (GOAWAY), so clients spread over replicas; 0 to 0.02 (default 0)
  --shutdown-delay-duration dur      on SIGTERM, keep serving this long with /readyz failing, so load balancers
                                     turn away first (default 0s)
  --shutdown-send-retry-after        after the delay, answer new requests 429 Retry-After until those in flight
                                     are done, rather than closing the listener at once
  --shutdown-watch-termination-grace-period dur
                                     end open watches spread over this long rather than all at once (default 0s)
  --max-requests-inflight int        reads served at once before others get 429; 0: no limit (default 400)
  --enable-priority-and-fairness     past the in-flight limits a request waits in its user's queue (default true);
                                     false refuses it at once (429), as upstream's max-in-flight filter
  --max-mutating-requests-inflight int
                                     writes served at once before others get 429; 0: no limit (default 200)
  --http2-max-streams-per-connection int
                                     streams a client may have open at once on one HTTP/2 connection;
                                     0: the default, 100
  --audit-policy-file file           audit.k8s.io/v1 Policy: which requests are audited, at which level
  --audit-log-path file              where audit events go as JSON lines ('-': standard output)
  --audit-log-maxsize int            megabytes before the audit log is rotated, 0 never (default 100)
  --audit-log-maxbackup int          rotated audit logs kept, 0 all (default 100)
  --audit-log-maxage int             days a rotated audit log is kept, 0 forever (default 366)
  --audit-log-compress               gzip rotated audit logs (default false)
  --audit-log-format string          json (one Event a line) or legacy (upstream's one-line text) (default "json")
  --audit-log-mode string            blocking (each event written as it comes), blocking-strict (a request whose first
                                     event cannot be written fails) or batch (default "blocking")
  --audit-log-batch-buffer-size int         batch mode: events waiting at most; more are dropped (default 10000)
  --audit-log-batch-max-size int            batch mode: events written together at most (default 1)
  --audit-log-batch-max-wait duration       batch mode: how long an event waits for its batch to fill (default 0s)
  --audit-log-batch-throttle-enable         batch mode: throttle the batches (default false)
  --audit-log-batch-throttle-qps float      batch mode: batches a second
  --audit-log-batch-throttle-burst int      batch mode: batches at once
  --audit-log-version string         audit.k8s.io/v1, the only version (default "audit.k8s.io/v1")
  --audit-log-truncate-enabled       events over the max event size lose their request and response objects (default false)
  --audit-log-truncate-max-event-size int   bytes of an event's JSON (default 102400)
  --audit-log-truncate-max-batch-size int   bytes of a batch, at least the event size (default 10485760)
  --audit-webhook-truncate-enabled, --audit-webhook-truncate-max-event-size, --audit-webhook-truncate-max-batch-size   the same for the webhook
  --audit-webhook-config-file file   kubeconfig of a webhook audit events are sent to as EventLists, in batches
  --audit-webhook-mode string        batch (buffered batches), blocking (one event a call, a request waiting for its
                                     first) or blocking-strict (a request whose first event is not sent fails) (default "batch")
  --audit-webhook-initial-backoff duration  first wait before a failed batch is sent again (default 10s)
  --audit-webhook-batch-buffer-size int     events waiting at most; more are dropped (default 10000)
  --audit-webhook-batch-max-size int        events in one batch at most (default 400)
  --audit-webhook-batch-max-wait duration   how long an event waits for its batch to fill (default 30s)
  --audit-webhook-batch-throttle-enable[=false]  throttle the batches (default true)
  --audit-webhook-batch-throttle-qps float       batches a second (default 10)
  --audit-webhook-batch-throttle-burst int       batches at once (default 15)
  --simulated-pod-run-time dur       how long Job pods run on simulated nodes before they succeed (default 3s)
  --simulated-max-grace-period dur   the longest a terminating pod on a simulated node is kept (default 3s)
  --leader-elect[=false]             run the controllers on one replica at a time, elected with the Lease
                                     kube-system/plinth-controllers; false: on every replica (default true)
  --leader-elect-lease-duration dur  how long the other replicas wait before taking over a lease not renewed (default 15s)
  --leader-elect-renew-deadline dur  how long the leader tries to renew before it stops its controllers (default 10s)
  --leader-elect-retry-period dur    between attempts to acquire or renew the lease (default 2s)
  --release-idle-memory[=false]      once the server has been quiet for a few seconds after a burst, run one full
                                     garbage collection that returns the memory the burst grew (a 50–200 ms
                                     pause, at most every 30 s) (default true)
  -v, --v int                        log verbosity: 3 and up logs every request, 4 and up clients going away mid-request (default 0)
  --log-format string                text (klog's lines) or json (default "text"); upstream's --logging-format too
  --storage-initialization-timeout duration  how long a request waits for its type's cache to load (default 1m0s)
  --permit-port-sharing              bind the port with SO_REUSEPORT, so that several servers share it (default false)
  --disabled-metrics strings         metrics left out of /metrics, by name
  --profiling[=false]                serve /debug/flags and reset /metrics and /metrics/slis on DELETE, as kube-apiserver
                                     with profiling on (no Go profiling endpoints here) (default true)
  Accepted as kube-apiserver takes them (checked, no work of their own here): --contention-profiling,
  --debug-socket-path, --enable-aggregator-routing, --watch-cache, --watch-cache-sizes, --default-watch-cache-size,
  --storage-media-type, --storage-backend, --delete-collection-workers, --livez-grace-period, --vmodule,
  --log-flush-frequency, --kubelet-timeout, --kubelet-port, --max-connection-bytes-per-sec, --permit-address-sharing,
  --allow-metric-labels, --allow-metric-labels-manifest, --show-hidden-metrics-for-version,
  --etcd-count-metric-poll-period, --etcd-db-metric-poll-interval, --enable-logs-handler
`;

/** kube-apiserver's operational flags Plinth takes: booleans, strings, and those given more than once (string slices, maps). */
const operationalBooleans = ['profiling', 'contention-profiling', 'enable-aggregator-routing', 'watch-cache', 'permit-port-sharing', 'permit-address-sharing', 'enable-logs-handler', 'log-text-split-stream', 'log-json-split-stream'] as const;
const operationalSlices = ['watch-cache-sizes', 'disabled-metrics', 'allow-metric-labels', 'vmodule', 'etcd-servers-overrides'] as const;
const operationalStrings = [
  'debug-socket-path', 'default-watch-cache-size', 'storage-media-type', 'delete-collection-workers', 'storage-initialization-timeout', 'livez-grace-period',
  'logging-format', 'log-flush-frequency', 'log-text-info-buffer-size', 'log-json-info-buffer-size', 'kubelet-timeout', 'kubelet-port', 'max-connection-bytes-per-sec',
  'allow-metric-labels-manifest', 'show-hidden-metrics-for-version', 'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval', 'storage-backend',
] as const;

function flagsOfKind<N extends string, K extends FlagKind>(names: readonly N[], kind: K): Record<N, { kind: K }> {
  return Object.fromEntries(names.map((name) => [name, { kind }])) as Record<N, { kind: K }>;
}

const operationalFlagOptions = {
  ...flagsOfKind(operationalBooleans, 'bool'), ...flagsOfKind(operationalStrings, 'string'), ...flagsOfKind(operationalSlices, 'array'),
};

/**
 * kube-apiserver's operational flags, read and checked as upstream's options read them (pflag's
 * words for a value of the wrong type, upstream's for one it refuses). Those whose work Plinth
 * does act; the others are accepted for a command line to carry over, and say so in the README:
 * contention profiling (Go's pprof: none here), the watch cache's switch and sizes (caches are always on
 * and sized by their window), the storage media type (JSON is stored), the logs handler, the
 * kubelet's timeout and port (no kubelet is dialed).
 */
function parseOperationalFlags(values: Record<string, string | string[] | boolean | undefined>, config: Config): void {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const list = (name: string) => (Array.isArray(values[name]) ? (values[name] as string[]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '') : []);
  const bool = (name: string, otherwise: boolean) => boolFlag(name, text(name), otherwise);
  const int = (name: string) => intFlag(name, text(name));
  const duration = (name: string) => durationFlag(name, text(name));
  const deprecated = (name: string, message: string) => {
    if (values[name] !== undefined) config.flagWarnings.push(`Flag --${name} has been deprecated, ${message}`);
  };
  for (const name of ['contention-profiling', 'enable-aggregator-routing', 'permit-address-sharing', 'enable-logs-handler']) bool(name, false);
  config.profiling = bool('profiling', true);
  for (const name of ['delete-collection-workers', 'max-connection-bytes-per-sec']) int(name);
  for (const name of ['livez-grace-period', 'log-flush-frequency', 'kubelet-timeout', 'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval']) duration(name);
  deprecated('enable-logs-handler', 'Log handler functionality is deprecated');
  deprecated('default-watch-cache-size', 'watch caches are sized automatically and this flag will be removed in a future version');
  int('default-watch-cache-size');
  deprecated('kubelet-port', 'kubelet-port is deprecated and will be removed.');
  int('kubelet-port');
  config.permitPortSharing = bool('permit-port-sharing', false);

  // The watch cache: sizes checked only while it is on, as upstream's completion does.
  if (bool('watch-cache', true)) {
    for (const entry of list('watch-cache-sizes')) {
      const parts = entry.split('#');
      if (parts.length !== 2) throw new UsageError(`invalid value of watch cache size: ${entry}`);
      if (!/^[+-]?\d+$/.test(parts[1]!)) throw new UsageError(`invalid size of watch cache size: ${entry}`);
      if (Number(parts[1]) < 0) throw new UsageError(`watch cache size cannot be negative: ${entry}`);
    }
  }
  const mediaType = text('storage-media-type');
  const mediaTypes = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'];
  if (mediaType !== undefined && mediaType !== '' && !mediaTypes.includes(mediaType)) {
    throw new UsageError(`--storage-media-type ${JSON.stringify(mediaType)} invalid, allowed values: ${mediaTypes.join(', ')}`);
  }
  const backend = text('storage-backend');
  if (backend !== undefined && backend !== '' && backend !== 'etcd3') {
    throw new UsageError("--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'");
  }
  if (list('etcd-servers-overrides').length > 0) {
    for (const entry of list('etcd-servers-overrides')) {
      const [resource, servers, ...rest] = entry.split('#');
      if (servers === undefined || rest.length > 0 || resource!.split('/').length !== 2) {
        throw new UsageError('--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated');
      }
    }
    throw new UsageError('--etcd-servers-overrides is not supported: Plinth keeps every resource in one storage');
  }

  const initialization = duration('storage-initialization-timeout');
  if (initialization !== undefined) {
    if (initialization < 0) throw new UsageError('--storage-initialization-timeout can not be negative value');
    config.storageInitializationTimeoutMs = initialization;
  }
  if ((duration('livez-grace-period') ?? 0) < 0) throw new UsageError('--livez-grace-period can not be a negative value');

  // Logging, as component-base's options validate it.
  const format = text('logging-format');
  if (format !== undefined) {
    if (format !== 'text' && format !== 'json') throw new UsageError(`format: Invalid value: ${JSON.stringify(format)}: Unsupported log format`);
    config.logFormat = format;
  }
  const vmodule = list('vmodule');
  for (const item of vmodule) {
    const [pattern, level, ...extra] = item.split('=');
    if (level === undefined || extra.length > 0) throw invalidFlagValue('vmodule', item, `${JSON.stringify(item)} does not have the pattern=N format`);
    if (!/^\d+$/.test(level) || Number(level) > 2147483647) throw invalidFlagValue('vmodule', item, `parsing verbosity in ${JSON.stringify(item)}: strconv.ParseUint: parsing ${JSON.stringify(level)}: invalid syntax`);
    if (pattern === '') throw new UsageError('vmodule[0]: Required value: File pattern must not be empty');
  }
  if (vmodule.length > 0 && config.logFormat !== 'text') throw new UsageError('vmodule: Forbidden: Only supported for text log format');
  for (const [name, field] of [['log-text-split-stream', 'options.text.splitStream'], ['log-json-split-stream', 'options.json.splitStream']] as const) {
    if (bool(name, false)) throw new UsageError(`${field}: Forbidden: Feature LoggingAlphaOptions is disabled`);
  }
  for (const [name, field] of [['log-text-info-buffer-size', 'options.text.infoBufferSize'], ['log-json-info-buffer-size', 'options.json.infoBufferSize']] as const) {
    const given = text(name);
    if (given !== undefined && given !== '0') throw new UsageError(`${field}: Forbidden: Feature LoggingAlphaOptions is disabled`);
  }

  // Metrics, as component-base's metrics options validate them.
  const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  for (const name of list('disabled-metrics')) {
    if (!metricName.test(name)) throw new UsageError(`--disabled-metrics must be fully qualified metric names matching ${JSON.stringify(metricName.source)}, got ${JSON.stringify(name)}`);
    config.disabledMetrics.push(name);
  }
  for (const entry of (Array.isArray(values['allow-metric-labels']) ? values['allow-metric-labels'] as string[] : [])) {
    const key = entry.split('=')[0] ?? '';
    if (!entry.includes('=')) throw invalidFlagValue('allow-metric-labels', entry, `${entry} must be formatted as key=value`);
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*,[a-zA-Z_][a-zA-Z0-9_]*$/.test(key)) {
      throw new UsageError('--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`');
    }
  }
  const hidden = text('show-hidden-metrics-for-version');
  if (hidden !== undefined && hidden !== '' && hidden !== '1.35') {
    throw new UsageError("--show-hidden-metrics-for-version must be omitted or have the value '1.35'. Only the previous minor version is allowed");
  }
}

/**
 * pflag's IP flag: Go's net.ParseIP of the value trimmed (no zone, no brackets), in its
 * words; an empty value leaves the default. Undefined when not given or empty.
 */
function ipFlag(flag: string, given: string | undefined): string | undefined {
  if (given === undefined || given === '') return undefined;
  const ip = given.trim();
  if (isIP(ip) === 0 || ip.includes('%')) throw invalidFlagValue(flag, given, `failed to parse IP: ${goQuote(given)}`);
  return ip;
}

/**
 * Files named by flags whose empty value means "none", as upstream's string flags read
 * it: here the default (the data dir's), as if not given.
 */
const pathFlags = [
  'token-auth-file', 'client-ca-file', 'kubeconfig', 'encryption-provider-config', 'admission-control-config-file', 'audit-policy-file', 'audit-log-path',
  'service-account-signing-key-file', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'oidc-ca-file', 'authentication-config', 'authorization-config',
] as const;

function withoutEmptyPaths<V extends Partial<Record<(typeof pathFlags)[number], string>> & { 'service-account-key-file'?: string[] }>(values: V): V {
  for (const flag of pathFlags) if (values[flag] === '') delete values[flag];
  if (values['service-account-key-file'] !== undefined) {
    const files = values['service-account-key-file'].filter((file) => file !== '');
    if (files.length === 0) delete values['service-account-key-file'];
    else values['service-account-key-file'] = files;
  }
  return values;
}

/** Every flag `plinth serve` takes, and how it takes its values (flag-parsing.ts). */
const serveFlags = {
  'data-dir': { kind: 'string' },
  'bind-address': { kind: 'string' },
  'advertise-address': { kind: 'string' },
  'secure-port': { kind: 'string' },
  storage: { kind: 'string' },
  'etcd-servers': { kind: 'slice' },
  'etcd-prefix': { kind: 'string' },
  'etcd-cafile': { kind: 'string' },
  'etcd-certfile': { kind: 'string' },
  'etcd-keyfile': { kind: 'string' },
  'feature-gates': { kind: 'array' },
  'token-auth-file': { kind: 'string' },
  'authorization-mode': { kind: 'slice' },
  'authorization-config': { kind: 'string' },
  'authorization-policy-file': { kind: 'string' },
  'authorization-webhook-config-file': { kind: 'string' },
  'authorization-webhook-version': { kind: 'string' },
  'authorization-webhook-cache-authorized-ttl': { kind: 'string' },
  'authorization-webhook-cache-unauthorized-ttl': { kind: 'string' },
  'authentication-token-webhook-config-file': { kind: 'string' },
  'requestheader-client-ca-file': { kind: 'string' },
  'proxy-client-cert-file': { kind: 'string' },
  'request-timeout': { kind: 'string' },
  'proxy-client-key-file': { kind: 'string' },
  'requestheader-allowed-names': { kind: 'array' },
  'requestheader-username-headers': { kind: 'array' },
  'requestheader-uid-headers': { kind: 'array' },
  'requestheader-group-headers': { kind: 'array' },
  'requestheader-extra-headers-prefix': { kind: 'array' },
  'authentication-token-webhook-version': { kind: 'string' },
  'authentication-token-webhook-cache-ttl': { kind: 'string' },
  'enable-admission-plugins': { kind: 'slice' },
  'disable-admission-plugins': { kind: 'slice' },
  'admission-control-config-file': { kind: 'string' },
  'client-ca-file': { kind: 'string' },
  'tls-cert-file': { kind: 'string' },
  'tls-sni-cert-key': { kind: 'array' },
  'tls-private-key-file': { kind: 'string' },
  'tls-min-version': { kind: 'string' },
  'tls-cipher-suites': { kind: 'slice' },
  'anonymous-auth': { kind: 'bool' },
  'enable-bootstrap-token-auth': { kind: 'bool' },
  'service-account-signing-key-file': { kind: 'string' },
  'service-account-key-file': { kind: 'array' },
  'service-account-issuer': { kind: 'array' },
  'service-account-jwks-uri': { kind: 'string' },
  'service-account-max-token-expiration': { kind: 'string' },
  'service-account-extend-token-expiration': { kind: 'bool' },
  'external-hostname': { kind: 'string' },
  'api-audiences': { kind: 'slice' },
  'authentication-config': { kind: 'string' },
  'oidc-issuer-url': { kind: 'string' },
  'oidc-client-id': { kind: 'string' },
  'oidc-username-claim': { kind: 'string' },
  'oidc-username-prefix': { kind: 'string' },
  'oidc-groups-claim': { kind: 'string' },
  'oidc-groups-prefix': { kind: 'string' },
  'oidc-required-claim': { kind: 'array' },
  'oidc-ca-file': { kind: 'string' },
  'oidc-signing-algs': { kind: 'slice' },
  'service-cluster-ip-range': { kind: 'string' },
  'service-node-port-range': { kind: 'string' },
  'etcd-compaction-interval': { kind: 'string' },
  'etcd-healthcheck-timeout': { kind: 'string' },
  'etcd-readycheck-timeout': { kind: 'string' },
  'lease-reuse-duration-seconds': { kind: 'string' },
  'watch-cache-window-bytes': { kind: 'string' },
  'event-ttl': { kind: 'string' },
  kubeconfig: { kind: 'string' },
  'encryption-provider-config': { kind: 'string' },
  'encryption-provider-config-automatic-reload': { kind: 'bool' },
  controllers: { kind: 'string' },
  'simulated-nodes': { kind: 'string' },
  'max-requests-inflight': { kind: 'string' },
  'enable-priority-and-fairness': { kind: 'bool' },
  'min-request-timeout': { kind: 'string' },
  'cors-allowed-origins': { kind: 'slice' },
  'runtime-config': { kind: 'array' },
  'allow-privileged': { kind: 'bool' },
  'endpoint-reconciler-type': { kind: 'string' },
  'identity-lease-duration-seconds': { kind: 'string' },
  'service-account-lookup': { kind: 'bool' },
  'aggregator-reject-forwarding-redirect': { kind: 'bool' },
  'identity-lease-renew-interval-seconds': { kind: 'string' },
  'kubelet-preferred-address-types': { kind: 'slice' },
  'kubelet-client-certificate': { kind: 'string' },
  'kubelet-client-key': { kind: 'string' },
  'kubelet-certificate-authority': { kind: 'string' },
  'default-not-ready-toleration-seconds': { kind: 'string' },
  'default-unreachable-toleration-seconds': { kind: 'string' },
  'strict-transport-security-directives': { kind: 'slice' },
  'goaway-chance': { kind: 'string' },
  'shutdown-delay-duration': { kind: 'string' },
  'shutdown-send-retry-after': { kind: 'bool' },
  'shutdown-watch-termination-grace-period': { kind: 'string' },
  'max-mutating-requests-inflight': { kind: 'string' },
  'http2-max-streams-per-connection': { kind: 'string' },
  'audit-policy-file': { kind: 'string' },
  'log-format': { kind: 'string' },
  ...operationalFlagOptions,
  'audit-log-path': { kind: 'string' },
  'audit-log-maxsize': { kind: 'string' },
  'audit-log-maxbackup': { kind: 'string' },
  'audit-log-maxage': { kind: 'string' },
  'audit-log-compress': { kind: 'bool' },
  'audit-log-format': { kind: 'string' },
  'audit-log-mode': { kind: 'string' },
  'audit-log-batch-buffer-size': { kind: 'string' },
  'audit-log-batch-max-size': { kind: 'string' },
  'audit-log-batch-max-wait': { kind: 'string' },
  'audit-log-batch-throttle-enable': { kind: 'bool' },
  'audit-log-batch-throttle-qps': { kind: 'string' },
  'audit-log-batch-throttle-burst': { kind: 'string' },
  'audit-log-version': { kind: 'string' },
  'audit-log-truncate-enabled': { kind: 'bool' },
  'audit-log-truncate-max-batch-size': { kind: 'string' },
  'audit-log-truncate-max-event-size': { kind: 'string' },
  'audit-webhook-truncate-enabled': { kind: 'bool' },
  'audit-webhook-truncate-max-batch-size': { kind: 'string' },
  'audit-webhook-truncate-max-event-size': { kind: 'string' },
  'audit-webhook-config-file': { kind: 'string' },
  'audit-webhook-mode': { kind: 'string' },
  'audit-webhook-version': { kind: 'string' },
  'audit-webhook-initial-backoff': { kind: 'string' },
  'audit-webhook-batch-buffer-size': { kind: 'string' },
  'audit-webhook-batch-max-size': { kind: 'string' },
  'audit-webhook-batch-max-wait': { kind: 'string' },
  'audit-webhook-batch-throttle-enable': { kind: 'bool' },
  'audit-webhook-batch-throttle-qps': { kind: 'string' },
  'audit-webhook-batch-throttle-burst': { kind: 'string' },
  'simulated-pod-run-time': { kind: 'string' },
  'simulated-max-grace-period': { kind: 'string' },
  'leader-elect': { kind: 'bool' },
  'leader-elect-lease-duration': { kind: 'string' },
  'leader-elect-renew-deadline': { kind: 'string' },
  'leader-elect-retry-period': { kind: 'string' },
  'release-idle-memory': { kind: 'bool' },
  v: { kind: 'string', short: 'v' },
} as const satisfies Record<string, FlagSpec>;

export function parseServeFlags(args: string[]): Config {
  const values = withoutEmptyPaths(parseFlags(args, serveFlags, 'plinth serve'));
  const config = defaultConfig();
  if (values['data-dir'] !== undefined) {
    // Not upstream's: an empty one would be the working directory.
    if (values['data-dir'].trim() === '') throw new UsageError('--data-dir must name a directory (default "./data")');
    config.dataDir = values['data-dir'];
  }
  config.bindAddress = ipFlag('bind-address', values['bind-address']) ?? config.bindAddress;
  const advertise = ipFlag('advertise-address', values['advertise-address']);
  if (advertise !== undefined) config.advertiseAddress = advertise;
  const port = intFlag('secure-port', values['secure-port']);
  if (port !== undefined) {
    // Upstream's SecureServingOptions.Validate, but for what 0 means here.
    if (port < 0 || port > 65535) throw new UsageError(`--secure-port ${port} must be between 0 and 65535, inclusive. 0 picks a free port`);
    config.securePort = port;
  }
  if (values.storage !== undefined) {
    if (values.storage !== 'sqlite' && values.storage !== 'memory' && values.storage !== 'etcd') throw new UsageError(`invalid --storage "${values.storage}": sqlite, memory or etcd`);
    config.storage = values.storage;
  }
  if (values['etcd-servers'] !== undefined) {
    config.etcdServers = values['etcd-servers'].split(',').filter((s) => s !== '');
    // kube-apiserver's flags name etcd by its servers alone (its --storage-backend is etcd3): so does Plinth's.
    if (values.storage === undefined && config.etcdServers.length > 0) config.storage = 'etcd';
    else if (config.storage !== 'etcd' && config.etcdServers.length > 0) throw new UsageError(`--etcd-servers is for --storage etcd, not ${config.storage}`);
  }
  if (values['etcd-prefix'] !== undefined) {
    if (!values['etcd-prefix'].startsWith('/')) throw new UsageError(`invalid --etcd-prefix "${values['etcd-prefix']}": it must start with /`);
    config.etcdPrefix = values['etcd-prefix'].replace(/\/+$/, '');
    // Plinth's keys start with /registry, so a prefix is a namespace before it (see EtcdBackend).
    if (!config.etcdPrefix.endsWith('/registry')) throw new UsageError(`invalid --etcd-prefix "${values['etcd-prefix']}": only prefixes ending in /registry are supported (default "/registry")`);
  }
  if (config.storage === 'etcd' && config.etcdServers.length === 0) throw new UsageError('--storage etcd needs --etcd-servers');
  if (values['etcd-cafile'] !== undefined) config.etcdCaFile = values['etcd-cafile'];
  if (values['etcd-certfile'] !== undefined) config.etcdCertFile = values['etcd-certfile'];
  if (values['etcd-keyfile'] !== undefined) config.etcdKeyFile = values['etcd-keyfile'];
  // gRPC's TLS takes a client key only with its certificate, and the other way round.
  if ((config.etcdCertFile === undefined) !== (config.etcdKeyFile === undefined)) throw new UsageError('--etcd-certfile and --etcd-keyfile go together');
  if (values['feature-gates'] !== undefined) parseFeatureGates(values['feature-gates'], config);
  if (values['token-auth-file'] !== undefined) config.tokenAuthFile = values['token-auth-file'];
  parseAuthorizationFlags(values, config);
  const requestHeader = parseRequestHeaderFlags(values);
  if (requestHeader !== undefined) config.requestHeader = requestHeader;
  if (values['request-timeout'] !== undefined) {
    const ms = durationFlag('request-timeout', values['request-timeout'])!;
    if (ms < 0) throw new UsageError('--request-timeout can not be negative value');
    if (ms === 0) throw new UsageError('--request-timeout can not be zero: a duration such as 1m0s');
    config.requestTimeoutMs = ms;
    // Upstream's priority and fairness lets a request wait a quarter of its deadline, at most a minute.
    config.inflightQueueWaitMs = Math.min(ms / 4, 60_000);
  }
  const proxyCert = typeof values['proxy-client-cert-file'] === 'string' ? values['proxy-client-cert-file'] : '';
  const proxyKey = typeof values['proxy-client-key-file'] === 'string' ? values['proxy-client-key-file'] : '';
  if ((proxyCert === '') !== (proxyKey === '')) throw new UsageError('--proxy-client-cert-file and --proxy-client-key-file go together');
  if (proxyCert !== '') {
    config.proxyClientCertFile = proxyCert;
    config.proxyClientKeyFile = proxyKey;
  }
  const tokenWebhook = parseTokenWebhookFlags(values);
  if (tokenWebhook !== undefined) config.tokenWebhook = tokenWebhook;
  if (values['enable-admission-plugins'] !== undefined) config.enableAdmissionPlugins = parseAdmissionPlugins(values['enable-admission-plugins']);
  if (values['disable-admission-plugins'] !== undefined) config.disableAdmissionPlugins = parseAdmissionPlugins(values['disable-admission-plugins'], 'disable-admission-plugins');
  if (values['admission-control-config-file'] !== undefined) config.admissionControlConfigFile = values['admission-control-config-file'];
  const overlap = config.enableAdmissionPlugins.filter((name) => config.disableAdmissionPlugins.includes(name)).sort();
  if (overlap.length > 0) throw new UsageError(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (values['client-ca-file'] !== undefined) config.clientCaFile = values['client-ca-file'];
  const tlsCert = values['tls-cert-file'] ?? '';
  const tlsKey = values['tls-private-key-file'] ?? '';
  // Upstream's words when one of the two is missing.
  if ((tlsCert === '') !== (tlsKey === '')) throw new UsageError('missing filename for serving cert: --tls-cert-file and --tls-private-key-file go together');
  if (tlsCert !== '') {
    config.tlsCertFile = tlsCert;
    config.tlsPrivateKeyFile = tlsKey;
  }
  // `cert,key[:name,…]`, each use one more certificate, as upstream's NamedCertKey flag reads them.
  for (const given of (values['tls-sni-cert-key'] as string[] | undefined) ?? []) {
    const invalid = (reason: string) => new UsageError(`invalid argument ${JSON.stringify(given)} for "--tls-sni-cert-key" flag: ${reason}`);
    const colon = given.indexOf(':');
    const files = (colon < 0 ? given : given.slice(0, colon)).split(',').map((part) => part.trim());
    const names = colon < 0 ? [] : given.slice(colon + 1).split(',').map((part) => part.trim());
    if (colon >= 0 && names.every((name) => name === '')) throw invalid('empty names list is not allowed');
    if (files.length !== 2 || files.some((file) => file === '')) throw invalid('expected comma separated certificate and key file paths');
    config.tlsSniCertKeys.push({ certFile: files[0]!, keyFile: files[1]!, names: names.filter((name) => name !== '') });
  }
  try {
    if (values['tls-min-version'] !== undefined && values['tls-min-version'] !== '') config.tlsMinVersion = parseTlsMinVersion(values['tls-min-version']);
    const ciphers = values['tls-cipher-suites'] === undefined ? undefined : parseTlsCipherSuites(values['tls-cipher-suites']);
    if (ciphers !== undefined) config.tlsCiphers = ciphers;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  config.anonymousAuth = boolFlag('anonymous-auth', values['anonymous-auth'], config.anonymousAuth);
  if (values['anonymous-auth'] !== undefined) config.anonymousAuthFlagSet = true;
  if (boolFlag('enable-bootstrap-token-auth', values['enable-bootstrap-token-auth'], false)) config.enableBootstrapTokenAuth = true;
  if (values['service-account-signing-key-file'] !== undefined) config.serviceAccountSigningKeyFile = values['service-account-signing-key-file'];
  if (values['service-account-key-file'] !== undefined) config.serviceAccountKeyFiles = values['service-account-key-file'];
  if (values['service-account-issuer'] !== undefined) {
    config.serviceAccountIssuers = values['service-account-issuer'].filter((s) => s !== '');
    if (config.serviceAccountIssuers.length === 0) throw new UsageError('--service-account-issuer must not be empty');
  }
  parseServiceAccountFlags(values, config);
  if (values['api-audiences'] !== undefined) config.apiAudiences = values['api-audiences'].split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (values['authentication-config'] !== undefined && values['authentication-config'] !== '') {
    // Upstream's check: any --oidc-* flag given, valid or not, conflicts with the file.
    if (Object.entries(values).some(([name, value]) => name.startsWith('oidc-') && value !== undefined)) {
      throw new UsageError('authentication-config file and oidc-* flags are mutually exclusive');
    }
    config.authenticationConfig = values['authentication-config'];
  }
  const oidc = parseOidcFlags(values);
  if (oidc !== undefined) config.oidc = oidc;
  // Checked now, as the registry reads them, so that a bad range is a usage error before anything starts.
  if (values['service-cluster-ip-range'] !== undefined) {
    try {
      parseServiceCIDRs(values['service-cluster-ip-range']);
    } catch (err) {
      throw new UsageError(`--service-cluster-ip-range: ${(err as Error).message}`);
    }
    config.serviceClusterIPRange = values['service-cluster-ip-range'];
  }
  if (values['service-node-port-range'] !== undefined) {
    try {
      parsePortRange(values['service-node-port-range']);
    } catch (err) {
      throw invalidFlagValue('service-node-port-range', values['service-node-port-range'], (err as Error).message);
    }
    config.serviceNodePortRange = values['service-node-port-range'];
  }
  config.etcdCompactionIntervalMs = nonNegativeDurationFlag('etcd-compaction-interval', values['etcd-compaction-interval']) ?? config.etcdCompactionIntervalMs;
  for (const [flag, field] of [['etcd-healthcheck-timeout', 'etcdHealthcheckTimeoutMs'], ['etcd-readycheck-timeout', 'etcdReadycheckTimeoutMs']] as const) {
    if (values[flag] === undefined) continue;
    const ms = durationFlag(flag, values[flag])!;
    if (ms <= 0) throw new UsageError(`--${flag} must be a positive duration, such as 2s`);
    config[field] = ms;
  }
  const leaseReuse = intFlag('lease-reuse-duration-seconds', values['lease-reuse-duration-seconds']);
  if (leaseReuse !== undefined) {
    if (leaseReuse < 1) throw new UsageError('--lease-reuse-duration-seconds must be at least 1');
    config.leaseReuseDurationSeconds = leaseReuse;
  }
  if (values['watch-cache-window-bytes'] !== undefined) config.watchCacheWindowBytes = parseBytes('--watch-cache-window-bytes', values['watch-cache-window-bytes']);
  // Whole seconds, as upstream converts the duration for its storage: under a second is none.
  const eventTtl = nonNegativeDurationFlag('event-ttl', values['event-ttl']);
  if (eventTtl !== undefined) config.eventTtlSeconds = Math.trunc(eventTtl / 1000);
  if (values.kubeconfig !== undefined) config.kubeconfigPath = values.kubeconfig;
  if (values['encryption-provider-config'] !== undefined) config.encryptionProviderConfig = values['encryption-provider-config'];
  config.encryptionProviderConfigAutomaticReload = boolFlag('encryption-provider-config-automatic-reload', values['encryption-provider-config-automatic-reload'], false);
  if (config.encryptionProviderConfigAutomaticReload && config.encryptionProviderConfig === undefined) {
    throw new UsageError('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
  }
  if (values.controllers !== undefined) {
    try {
      config.controllers = parseControllers(values.controllers);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  if (values['audit-policy-file'] !== undefined) config.auditPolicyFile = values['audit-policy-file'];
  if (values['log-format'] !== undefined) {
    if (values['log-format'] !== 'text' && values['log-format'] !== 'json') throw new UsageError(`invalid --log-format "${values['log-format']}": text or json`);
    config.logFormat = values['log-format'];
  }
  if (values['audit-log-path'] !== undefined) config.auditLogPath = values['audit-log-path'];
  parseAuditLogFlags(values, config);
  parseOperationalFlags(values, config);
  config.auditLogCompress = boolFlag('audit-log-compress', values['audit-log-compress'], false);
  const auditWebhook = parseAuditWebhookFlags(values);
  if (auditWebhook !== undefined) config.auditWebhook = auditWebhook;
  if (values['runtime-config'] !== undefined) config.runtimeConfig = parseRuntimeConfig(values['runtime-config']);
  parseServerRunFlags(values, config);
  config.enablePriorityAndFairness = boolFlag('enable-priority-and-fairness', values['enable-priority-and-fairness'], true);
  // Upstream's check: priority and fairness needs its API.
  if (config.enablePriorityAndFairness) {
    for (const key of ['flowcontrol.apiserver.k8s.io/v1', 'api/ga', 'api/all']) {
      if (config.runtimeConfig.get(key) === 'false') throw new UsageError(`--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true`);
    }
  }
  config.allowPrivileged = boolFlag('allow-privileged', values['allow-privileged'], config.allowPrivileged);
  for (const [flag, field] of [['default-not-ready-toleration-seconds', 'defaultNotReadyTolerationSeconds'], ['default-unreachable-toleration-seconds', 'defaultUnreachableTolerationSeconds']] as const) {
    const seconds = intFlag(flag, values[flag]);
    if (seconds !== undefined) config[field] = seconds;
  }
  const addressTypes = values['kubelet-preferred-address-types'];
  if (addressTypes !== undefined) {
    const types = addressTypes.split(',').map((t) => t.trim()).filter((t) => t !== '');
    const known = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
    const unknown = types.find((t) => !known.includes(t));
    if (unknown !== undefined || types.length === 0) throw new UsageError(`invalid --kubelet-preferred-address-types "${addressTypes}": of ${known.join(', ')}`);
    config.kubeletPreferredAddressTypes = types;
  }
  const kubeletCert = values['kubelet-client-certificate'] ?? '';
  const kubeletKey = values['kubelet-client-key'] ?? '';
  if ((kubeletCert === '') !== (kubeletKey === '')) throw new UsageError('--kubelet-client-certificate and --kubelet-client-key go together');
  if (kubeletCert !== '') {
    config.kubeletClientCertificate = kubeletCert;
    config.kubeletClientKey = kubeletKey;
  }
  if (values['kubelet-certificate-authority'] !== undefined && values['kubelet-certificate-authority'] !== '') config.kubeletCertificateAuthority = values['kubelet-certificate-authority'];
  config.serviceAccountLookup = boolFlag('service-account-lookup', values['service-account-lookup'], true);
  config.aggregatorRejectForwardingRedirect = boolFlag('aggregator-reject-forwarding-redirect', values['aggregator-reject-forwarding-redirect'], true);
  // As upstream's validateAPIServerIdentity: both positive, each error in its words (collected).
  const identityErrors: string[] = [];
  for (const [flag, field] of [['identity-lease-duration-seconds', 'identityLeaseDurationSeconds'], ['identity-lease-renew-interval-seconds', 'identityLeaseRenewIntervalSeconds']] as const) {
    const n = intFlag(flag, values[flag]);
    if (n === undefined) continue;
    if (n <= 0) identityErrors.push(`--${flag} should be a positive number, but value '${n}' provided`);
    config[field] = n;
  }
  if (identityErrors.length > 0) throw new UsageError(aggregate(identityErrors));
  const reconciler = values['endpoint-reconciler-type'];
  if (reconciler !== undefined) {
    if (reconciler !== 'lease' && reconciler !== 'none') {
      throw new UsageError(`invalid --endpoint-reconciler-type "${reconciler}": lease or none (master-count, deprecated upstream, is not built)`);
    }
    config.endpointReconcilerType = reconciler;
  }
  // Counts: what 0 means, and the largest accepted (HTTP/2 caps its stream setting at 2^31-1).
  for (const [flag, field, zero, max] of [
    ['max-requests-inflight', 'maxRequestsInflight', 'no limit', Infinity],
    ['max-mutating-requests-inflight', 'maxMutatingRequestsInflight', 'no limit', Infinity],
    ['http2-max-streams-per-connection', 'http2MaxStreamsPerConnection', 'the default (100)', 2 ** 31 - 1],
    ['audit-log-maxsize', 'auditLogMaxSizeMB', 'no limit', Infinity],
    ['audit-log-maxbackup', 'auditLogMaxBackups', 'no limit', Infinity],
    ['audit-log-maxage', 'auditLogMaxAgeDays', 'no limit', Infinity],
  ] as const) {
    const n = intFlag(flag, values[flag]);
    if (n === undefined) continue;
    // Upstream's words for negative in-flight limits and audit log rotation; the others are Plinth's.
    if (n < 0 && flag.endsWith('-inflight')) throw new UsageError(`--${flag} can not be negative value`);
    if (n < 0 && flag.startsWith('audit-log-')) throw new UsageError(`--${flag} ${n} can't be a negative number`);
    if (n < 0 || n > max) throw new UsageError(`invalid --${flag} "${values[flag]}": a count, 0 for ${zero}`);
    config[field] = n;
  }
  const simulatedNodes = intFlag('simulated-nodes', values['simulated-nodes']);
  if (simulatedNodes !== undefined) {
    if (simulatedNodes < 0 || simulatedNodes > 2000) throw new UsageError(`invalid --simulated-nodes "${values['simulated-nodes']}": a count from 0 to 2000`);
    config.simulatedNodes = simulatedNodes;
  }
  config.simulatedPodRunMs = nonNegativeDurationFlag('simulated-pod-run-time', values['simulated-pod-run-time']) ?? config.simulatedPodRunMs;
  config.simulatedMaxGracePeriodMs = nonNegativeDurationFlag('simulated-max-grace-period', values['simulated-max-grace-period']) ?? config.simulatedMaxGracePeriodMs;
  config.leaderElect = boolFlag('leader-elect', values['leader-elect'], config.leaderElect);
  config.releaseIdleMemory = boolFlag('release-idle-memory', values['release-idle-memory'], config.releaseIdleMemory);
  config.leaderElectLeaseDurationMs = durationFlag('leader-elect-lease-duration', values['leader-elect-lease-duration']) ?? config.leaderElectLeaseDurationMs;
  config.leaderElectRenewDeadlineMs = durationFlag('leader-elect-renew-deadline', values['leader-elect-renew-deadline']) ?? config.leaderElectRenewDeadlineMs;
  config.leaderElectRetryPeriodMs = durationFlag('leader-elect-retry-period', values['leader-elect-retry-period']) ?? config.leaderElectRetryPeriodMs;
  const electionProblem = leaderElectionTimingsProblem({
    leaseDurationMs: config.leaderElectLeaseDurationMs, renewDeadlineMs: config.leaderElectRenewDeadlineMs, retryPeriodMs: config.leaderElectRetryPeriodMs,
  });
  if (config.leaderElect && electionProblem !== undefined) throw new UsageError(`invalid leader election timings: ${electionProblem}`);
  if (values.v !== undefined) {
    // klog's Level: strconv.Atoi; a negative level is refused here.
    const level = values.v;
    if (!/^[+-]?\d+$/.test(level)) throw invalidFlagValue('-v, --v', level, `strconv.Atoi: parsing ${goQuote(level)}: invalid syntax`);
    if (Number(level) < 0) throw invalidFlagValue('-v, --v', level, 'a verbosity is not negative');
    config.verbosity = Number(level);
  }
  return config;
}
