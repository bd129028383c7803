// /metrics in Prometheus text format (prom-client), with kube-apiserver's metric names,
// labels and buckets where Plinth has the thing they count. Each server has its own
// registry, so several servers in one process do not mix their figures.
//
// Requests count into plain series (series.ts); prom-client, which renders them, loads
// on the first scrape: with the OpenTelemetry API it requires, it took ~10–20 ms of every
// start. Node's default metrics (process_*, nodejs_*) are collected from then on: the
// process's CPU, memory and start time are as ever, the GC and event-loop histograms
// cover the time since the first scrape. /metrics/slis is the health checks' own registry
// (SliMetrics), as upstream's. A scrape answers what promhttp answers: the families with
// series, in text or (asked for) Protobuf (metrics-protobuf.ts).

import { createHash, randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { encodeMetricFamilies, type ExportedFamily } from './metrics-protobuf.ts';
import { CollectedGauge, CollectedHistogram, HistogramSeries, PlainCounter, PlainGauge, PlainHistogram, type MetricList } from './series.ts';
import { requestUtilizationBounds, seatDemandBounds, seatUtilizationBounds, type LevelClock, type LevelSeats } from './priority-levels.ts';
import { readWriteBounds, type RequestConcurrency, type RequestPhase } from './request-concurrency.ts';
import type { TimingReading } from './timing-ratio.ts';

/** expfmt's FmtText and FmtProtoDelim. */
const textFormat = 'text/plain; version=0.0.4; charset=utf-8';
const protobufFormat = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';
/** The escaping schemes a scraper may name (prometheus/common's model.EscapingKey values); without one, model.NameEscapingScheme. */
const escapingSchemes: ReadonlySet<string> = new Set(['allow-utf-8', 'underscores', 'dots', 'values']);
const defaultEscaping = 'underscores';

/** What a scrape answers. */
export interface Exposition {
  contentType: string;
  body: string | Uint8Array;
}

/** Upstream's apiserver_request_duration_seconds buckets. */
const requestBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** From 100 µs, doubling (etcd's etcd_disk_wal_fsync_duration_seconds starts at 1 ms: a sync here takes ~0.4). */
const walSyncBuckets = Array.from({ length: 16 }, (_, i) => 0.0001 * 2 ** i);
/** Upstream's apiserver_authentication_jwt_authenticator_latency_seconds buckets (the defaults from 1 ms). */
const jwtLatencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Prometheus' default buckets (component-base's DefBuckets). */
/** KMS calls: 0.1 ms doubling to ~52 s, as upstream's. */
const kmsOperationBuckets = Array.from({ length: 20 }, (_, i) => 0.0001 * 2 ** i);
/** Data key generation: 5 µs doubling, 14 buckets, as upstream's. */
const dataKeyGenerationBuckets = Array.from({ length: 14 }, (_, i) => 5e-6 * 2 ** i);
/** Upstream's: from the microseconds of an in-process cipher to the seconds a key service may take. */
const transformationBuckets = Array.from({ length: 25 }, (_, i) => 5e-6 * 2 ** i);
/** One more in the series of `labels` (always given in the same order), its labels written sorted by name. */
function countSorted(counter: PlainCounter, labels: Record<string, string>): void {
  counter.series(Object.values(labels).join('\0'), () => Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)))).value++;
}

/** Label sets of KMS key ids kept, the least recently used dropped first (upstream's LRU of 10). */
const kmsKeyIdSeries = 10;
const defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Upstream's apiserver_authorization_match_condition_evaluation_seconds buckets. */
const matchConditionBuckets = [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25];
/** Upstream's apiserver_conversion_webhook_duration_seconds buckets: 5 ms to 60 s. */
const conversionBuckets = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60];
/** Upstream's apiserver_crd_conversion_webhook_duration_seconds buckets: 1 ms doubling, fifteen. */
const crdConversionBuckets = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);
/** Upstream's etcd_request_duration_seconds buckets. */
const storageBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export interface RequestLabels {
  /** Upstream's metric verb: GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION, or the HTTP method for non-resource requests. */
  verb: string;
  dryRun: boolean;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** cluster, namespace, resource, or '' for non-resource requests. */
  scope: string;
}

export interface MetricsSources {
  /** Watchers registered with the watch caches, by group, version and kind. */
  registeredWatchers(): Array<{ group: string; version: string; kind: string; count: number }>;
  /** Objects stored, by resource (`configmaps`, `deployments.apps`). */
  storageObjects(): Array<{ resource: string; count: number }>;
}

/** One set of request labels' series. */
interface RequestSeries {
  key: string;
  labels: Record<string, string>;
  /** apiserver_request_total, by status code. */
  requests: Map<number, { value: number }>;
  durations: HistogramSeries;
  /** Made for the label sets of long-running requests only. */
  longRunning(): { value: number };
}

/** What a request classified by priority and fairness counts. */
export interface FlowSeries {
  dispatched: { value: number };
  inQueue: { value: number };
  inQueueSeats: { value: number };
  executing: { value: number };
  executingSeats: { value: number };
  rejected(reason: string): void;
  /** A request's estimated seats (apiserver_flowcontrol_work_estimated_seats). */
  observeEstimatedSeats(seats: number): void;
  /** The watches a write's event goes to (apiserver_flowcontrol_watch_count_samples). */
  observeWatchCount(count: number): void;
  /** How long a request of a limited level waited, and whether it then ran (apiserver_flowcontrol_request_wait_duration_seconds). */
  observeWait(seconds: number, executed: boolean): void;
  /** How long it ran, a watch until it was initialized (apiserver_flowcontrol_request_execution_seconds). */
  observeExecution(seconds: number, watch: boolean): void;
  /** Its queue's length once it joined it (apiserver_flowcontrol_request_queue_length_after_enqueue). */
  observeQueueLength(length: number): void;
  /** A dispatch that found no seats for its head (apiserver_flowcontrol_request_dispatch_no_accommodation_total). */
  noteNoAccommodation(): void;
}

export class ApiMetrics {
  readonly #list: MetricList = [];
  readonly #disabled = new Set<string>();
  #registry: Promise<Registry> | undefined;
  readonly #requests: PlainCounter;
  readonly #durations: PlainHistogram;
  readonly #longRunning: PlainGauge;
  readonly #terminations: PlainCounter;
  readonly #dropped: PlainCounter;
  readonly #watchEvents: PlainCounter;
  readonly #terminatedWatchers: PlainCounter;
  readonly #storage: PlainHistogram;
  readonly #walSyncs: PlainHistogram;
  /** Requests executing and waiting by kind, as the in-flight filter counts them (requestConcurrencyFrom). */
  #concurrency: RequestConcurrency | undefined;
  readonly #series = new Map<string, RequestSeries>();
  readonly #jwtLatency: PlainHistogram;
  readonly #jwksFetched: PlainGauge;
  readonly #jwksKeySets = new Map<string, string>();
  readonly #authnReloads: PlainCounter;
  readonly #authnReloadTimes: PlainGauge;
  #authnConfigHash: string | undefined;
  readonly #authzDecisions: PlainCounter;
  readonly #flowDispatched: PlainCounter;
  readonly #flowRejected: PlainCounter;
  readonly #flowInQueue: PlainGauge;
  readonly #flowExecuting: PlainGauge;
  readonly #flowInQueueSeats: PlainGauge;
  readonly #flowExecutingSeats: PlainGauge;
  readonly #flowEstimatedSeats: PlainHistogram;
  readonly #flowWatchCounts: PlainHistogram;
  readonly #flowWaits: PlainHistogram;
  readonly #flowExecutions: PlainHistogram;
  readonly #flowQueueLengths: PlainHistogram;
  readonly #flowNoAccommodation: PlainCounter;
  readonly #flowSeries = new Map<string, FlowSeries>();
  #levelSeats: () => { levels: readonly LevelSeats[]; fairFraction: number } = () => ({ levels: [], fairFraction: 0 });
  readonly #authzWebhookEvaluations: PlainCounter;
  readonly #authzWebhookDurations: PlainHistogram;
  readonly #conversionRequests: PlainCounter;
  readonly #conversionDurations: PlainHistogram;
  readonly #crdConversionDurations: PlainHistogram;
  readonly #authzWebhookFailOpen: PlainCounter;
  readonly #authzMatchErrors: PlainCounter;
  readonly #authzMatchExclusions: PlainCounter;
  readonly #authzMatchSeconds: PlainHistogram;
  readonly #encryptionReloads: PlainCounter;
  readonly #encryptionReloadTimes: PlainGauge;
  #encryptionConfigHash: string | undefined;
  readonly #kmsKeyIdTotal: PlainCounter;
  readonly #kmsKeyIdLast: PlainGauge;
  readonly #kmsStatusKeyIdLast: PlainGauge;
  readonly #kmsInvalidStatusKeyId: PlainCounter;
  readonly #kmsOperations: PlainHistogram;
  readonly #kmsSeedCacheSize: PlainGauge;
  readonly #kmsCacheMisses: { value: number };
  readonly #dataKeyGenerations: HistogramSeries;
  readonly #dataKeyGenerationFailures: { value: number };
  readonly #transformations: PlainCounter;
  readonly #podSecurityEvaluations: PlainCounter;
  readonly #podSecurityExemptions: PlainCounter;
  readonly #podSecurityErrors: PlainCounter;
  readonly #podLogsUsage: PlainCounter;
  readonly #podLogsTlsFailures: { value: number };
  readonly #streamTranslations: PlainCounter;
  readonly #streamTunnels: PlainCounter;
  readonly #deprecatedApis: PlainGauge;
  readonly #transformationDurations: PlainHistogram;
  /** The key id label sets in use, least recently used first. */
  readonly #kmsKeyIdSets = new Set<string>();
  readonly #kmsStatusKeyIdSets = new Set<string>();
  readonly #serviceAccountTokenUses = new Map<string, { value: number }>();
  readonly #authzReloads: PlainCounter;
  readonly #authzReloadTimes: PlainGauge;
  #authzConfigHash: string | undefined;
  /** sha256 of the server's identity, as upstream labels its authentication metrics. */
  readonly #serverIdHash: string;
  /** /metrics/slis. */
  readonly slis = new SliMetrics(this.#disabled);

  constructor(sources: MetricsSources, serverId = `apiserver-${randomUUID()}`) {
    const list = this.#list;
    this.#serverIdHash = sha256Label(serverId);
    // Help as component-base writes it (annotateStabilityLevel, markDeprecated): the metric's
    // stability level in brackets, then `(Deprecated since X)` for a deprecated one, then
    // upstream's text. Those with no upstream definition in v1.36 keep bare text.
    this.#requests = new PlainCounter(list, 'apiserver_request_total', '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    this.#durations = new PlainHistogram(list, 'apiserver_request_duration_seconds', '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', requestBuckets);
    this.#longRunning = new PlainGauge(list, 'apiserver_longrunning_requests', '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.');
    this.#terminations = new PlainCounter(list, 'apiserver_request_terminations_total', '[ALPHA] Number of requests which apiserver terminated in self-defense.');
    this.#dropped = new PlainCounter(list, 'apiserver_dropped_requests_total', "Number of requests dropped with 'Try again later' response");
    const watermarks = (phase: RequestPhase) => () => (this.#concurrency?.watermarks(phase) ?? []).map(({ kind, value }) => ({ labels: { request_kind: kind }, value }));
    new CollectedGauge(list, 'apiserver_current_inflight_requests', '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', watermarks('executing'));
    new CollectedGauge(list, 'apiserver_current_inqueue_requests', '[ALPHA] Maximal number of queued requests in this apiserver per request kind in last second.', watermarks('waiting'));
    new CollectedHistogram(list, 'apiserver_flowcontrol_read_vs_write_current_requests', '[ALPHA] Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution', readWriteBounds,
      () => (this.#concurrency?.readings() ?? []).map(({ phase, kind, reading }) => ({ labels: { phase, request_kind: kind }, counts: reading.nanos, sum: reading.sum, count: reading.count })));
    this.#watchEvents = new PlainCounter(list, 'apiserver_watch_events_total', '[ALPHA] Number of events sent in watch clients');
    this.#terminatedWatchers = new PlainCounter(list, 'apiserver_terminated_watchers_total', '[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.');
    this.#storage = new PlainHistogram(list, 'etcd_request_duration_seconds', '[ALPHA] Etcd request latency in seconds for each operation and object type.', storageBuckets);
    this.#walSyncs = new PlainHistogram(list, 'plinth_storage_wal_sync_duration_seconds', 'Time to make a commit of the embedded storage durable (fdatasync of its write-ahead log), by where it ran: the event loop, or the thread pool while the disk is slow.', walSyncBuckets);
    this.#jwtLatency = new PlainHistogram(list, 'apiserver_authentication_jwt_authenticator_latency_seconds', '[ALPHA] Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).', jwtLatencyBuckets);
    this.#jwksFetched = new PlainGauge(list, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds', '[ALPHA] Timestamp of the last successful or failed JWKS fetch split by result, api server identity and jwt issuer for the JWT authenticator.');
    new CollectedGauge(list, 'apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info', '[ALPHA] Information about the last JWKS fetched by the JWT authenticator with hash as label, split by api server identity and jwt issuer.',
      () => [...this.#jwksKeySets].map(([issuerHash, hash]) => ({ labels: { jwt_issuer_hash: issuerHash, apiserver_id_hash: this.#serverIdHash, hash }, value: 1 })));
    this.#authnReloads = new PlainCounter(list, 'apiserver_authentication_config_controller_automatic_reloads_total', '[BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.');
    this.#authnReloadTimes = new PlainGauge(list, 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds', '[BETA] Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.');
    new CollectedGauge(list, 'apiserver_authentication_config_controller_last_config_info', '[ALPHA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.',
      () => (this.#authnConfigHash === undefined ? [] : [{ labels: { apiserver_id_hash: this.#serverIdHash, hash: this.#authnConfigHash }, value: 1 }]));
    this.#authzDecisions = new PlainCounter(list, 'apiserver_authorization_decisions_total', '[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.');
    this.#authzWebhookEvaluations = new PlainCounter(list, 'apiserver_authorization_webhook_evaluations_total', '[ALPHA] Round-trips to authorization webhooks.');
    this.#authzWebhookDurations = new PlainHistogram(list, 'apiserver_authorization_webhook_duration_seconds', '[ALPHA] Request latency in seconds.', defaultBuckets);
    this.#conversionRequests = new PlainCounter(list, 'apiserver_conversion_webhook_request_total', '[ALPHA] Counter for conversion webhook requests with success/failure and failure error type');
    this.#conversionDurations = new PlainHistogram(list, 'apiserver_conversion_webhook_duration_seconds', '[ALPHA] Conversion webhook request latency', conversionBuckets);
    this.#crdConversionDurations = new PlainHistogram(list, 'apiserver_crd_conversion_webhook_duration_seconds', '[ALPHA] CRD webhook conversion duration in seconds', crdConversionBuckets);
    this.#authzWebhookFailOpen = new PlainCounter(list, 'apiserver_authorization_webhook_evaluations_fail_open_total', '[ALPHA] NoOpinion results due to webhook timeout or error.');
    this.#authzMatchErrors = new PlainCounter(list, 'apiserver_authorization_match_condition_evaluation_errors_total', '[ALPHA] Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.');
    this.#authzMatchExclusions = new PlainCounter(list, 'apiserver_authorization_match_condition_exclusions_total', '[ALPHA] Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.');
    this.#authzMatchSeconds = new PlainHistogram(list, 'apiserver_authorization_match_condition_evaluation_seconds', '[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer type and name.', matchConditionBuckets);
    this.#authzReloads = new PlainCounter(list, 'apiserver_authorization_config_controller_automatic_reloads_total', '[BETA] Total number of automatic reloads of authorization configuration split by status and apiserver identity.');
    this.#authzReloadTimes = new PlainGauge(list, 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds', '[BETA] Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.');
    new CollectedGauge(list, 'apiserver_authorization_config_controller_last_config_info', '[ALPHA] Information about the last applied authorization configuration with hash as label, split by apiserver identity.',
      () => (this.#authzConfigHash === undefined ? [] : [{ labels: { apiserver_id_hash: this.#serverIdHash, hash: this.#authzConfigHash }, value: 1 }]));
    this.#encryptionReloads = new PlainCounter(list, 'apiserver_encryption_config_controller_automatic_reloads_total', '[ALPHA] Total number of reload successes and failures of encryption configuration split by apiserver identity.');
    this.#encryptionReloadTimes = new PlainGauge(list, 'apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds', '[ALPHA] Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.');
    new CollectedGauge(list, 'apiserver_encryption_config_controller_last_config_info', '[ALPHA] Information about the last applied encryption configuration with hash as label, split by apiserver identity.',
      () => (this.#encryptionConfigHash === undefined ? [] : [{ labels: { apiserver_id_hash: this.#serverIdHash, hash: this.#encryptionConfigHash }, value: 1 }]));
    this.#kmsKeyIdTotal = new PlainCounter(list, 'apiserver_envelope_encryption_key_id_hash_total', '[ALPHA] Number of times a keyID is used split by transformation type, provider, and apiserver identity.');
    this.#kmsKeyIdLast = new PlainGauge(list, 'apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds', '[ALPHA] The last time in seconds when a keyID was used.');
    this.#kmsStatusKeyIdLast = new PlainGauge(list, 'apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds', '[ALPHA] The last time in seconds when a keyID was returned by the Status RPC call.');
    this.#kmsInvalidStatusKeyId = new PlainCounter(list, 'apiserver_envelope_encryption_invalid_key_id_from_status_total', '[ALPHA] Number of times an invalid keyID is returned by the Status RPC call split by error.');
    this.#kmsOperations = new PlainHistogram(list, 'apiserver_envelope_encryption_kms_operations_latency_seconds', '[ALPHA] KMS operation duration with gRPC error code status total.', kmsOperationBuckets);
    this.#kmsSeedCacheSize = new PlainGauge(list, 'apiserver_envelope_encryption_dek_source_cache_size', '[ALPHA] Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.');
    this.#kmsCacheMisses = new PlainCounter(list, 'apiserver_storage_envelope_transformation_cache_misses_total', '[ALPHA] Total number of cache misses while accessing key decryption key(KEK).').series('', () => ({}));
    this.#dataKeyGenerations = new PlainHistogram(list, 'apiserver_storage_data_key_generation_duration_seconds', '[ALPHA] Latencies in seconds of data encryption key(DEK) generation operations.', dataKeyGenerationBuckets).series('', () => ({}));
    this.#dataKeyGenerationFailures = new PlainCounter(list, 'apiserver_storage_data_key_generation_failures_total', '[ALPHA] Total number of failed data encryption key(DEK) generation operations.').series('', () => ({}));
    this.#transformations = new PlainCounter(list, 'apiserver_storage_transformation_operations_total', "[ALPHA] Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails. The status, resource, and transformation_type fields can be used for alerting purposes. For example, you can monitor for encryption/decryption failures using the transformation_type (e.g., from_storage for decryption and to_storage for encryption). Additionally, these fields can be used to ensure that the correct transformers are applied to each resource.");
    this.#transformationDurations = new PlainHistogram(list, 'apiserver_storage_transformation_duration_seconds', '[ALPHA] Latencies in seconds of value transformation operations.', transformationBuckets);
    this.#podSecurityEvaluations = new PlainCounter(list, 'pod_security_evaluations_total', '[ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.');
    this.#podSecurityExemptions = new PlainCounter(list, 'pod_security_exemptions_total', '[ALPHA] Number of exempt requests, not counting ignored or out of scope requests.');
    this.#podSecurityErrors = new PlainCounter(list, 'pod_security_errors_total', '[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.');
    this.#podLogsUsage = new PlainCounter(list, 'kube_apiserver_pod_logs_insecure_backend_total', '[ALPHA] Total number of requests for pods/logs sliced by usage type: enforce_tls, skip_tls_allowed, skip_tls_denied');
    this.#podLogsTlsFailures = new PlainCounter(list, 'kube_apiserver_pod_logs_backend_tls_failure_total', '[ALPHA] Total number of requests for pods/logs that failed due to kubelet server TLS verification').series('', () => ({}));
    this.#streamTranslations = new PlainCounter(list, 'apiserver_stream_translator_requests_total', '[ALPHA] Total number of requests that were handled by the StreamTranslatorProxy, which processes streaming RemoteCommand/V5');
    this.#streamTunnels = new PlainCounter(list, 'apiserver_stream_tunnel_requests_total', '[ALPHA] Total number of requests that were handled by the StreamTunnelProxy, which processes streaming PortForward/V2');
    this.#deprecatedApis = new PlainGauge(list, 'apiserver_requested_deprecated_apis', '[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.');
    for (const [use, help] of [
      ['legacy', '[ALPHA] Cumulative legacy service account tokens used'],
      ['stale', '[ALPHA] Cumulative stale projected service account tokens used'],
      ['valid', '[ALPHA] Cumulative valid projected service account tokens used'],
      ['legacy_manual', '[ALPHA] Cumulative manually created legacy tokens used'],
      ['legacy_auto', '[ALPHA] Cumulative auto-generated legacy tokens used'],
      ['invalid_legacy_auto', '[ALPHA] Cumulative invalid auto-generated legacy tokens used'],
    ] as const) {
      const name = use === 'legacy' || use === 'stale' || use === 'valid' ? `serviceaccount_${use}_tokens_total` : `serviceaccount_${use}_token_uses_total`;
      this.#serviceAccountTokenUses.set(use, new PlainCounter(list, name, help).series('', () => ({})));
    }
    // API Priority and Fairness, by upstream's names and labels (apiserver_flowcontrol_*).
    this.#flowDispatched = new PlainCounter(list, 'apiserver_flowcontrol_dispatched_requests_total', '[BETA] Number of requests executed by API Priority and Fairness subsystem');
    this.#flowRejected = new PlainCounter(list, 'apiserver_flowcontrol_rejected_requests_total', '[BETA] Number of requests rejected by API Priority and Fairness subsystem');
    this.#flowInQueue = new PlainGauge(list, 'apiserver_flowcontrol_current_inqueue_requests', '[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem');
    this.#flowExecuting = new PlainGauge(list, 'apiserver_flowcontrol_current_executing_requests', '[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem');
    this.#flowInQueueSeats = new PlainGauge(list, 'apiserver_flowcontrol_current_inqueue_seats', '[ALPHA] Number of seats currently pending in queues of the API Priority and Fairness subsystem');
    this.#flowExecutingSeats = new PlainGauge(list, 'apiserver_flowcontrol_current_executing_seats', '[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem');
    this.#flowEstimatedSeats = new PlainHistogram(list, 'apiserver_flowcontrol_work_estimated_seats', '[ALPHA] Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness', [1, 2, 4, 10]);
    this.#flowWatchCounts = new PlainHistogram(list, 'apiserver_flowcontrol_watch_count_samples', '[ALPHA] count of watchers for mutating requests in API Priority and Fairness', [0, 1, 10, 100, 1000, 10000]);
    const flowDurations = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
    this.#flowWaits = new PlainHistogram(list, 'apiserver_flowcontrol_request_wait_duration_seconds', '[BETA] Length of time a request spent waiting in its queue', flowDurations);
    this.#flowExecutions = new PlainHistogram(list, 'apiserver_flowcontrol_request_execution_seconds', '[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem', flowDurations);
    this.#flowNoAccommodation = new PlainCounter(list, 'apiserver_flowcontrol_request_dispatch_no_accommodation_total', '[ALPHA] Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats');
    this.#flowQueueLengths = new PlainHistogram(list, 'apiserver_flowcontrol_request_queue_length_after_enqueue', '[ALPHA] Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued', [0, 10, 25, 50, 100, 250, 500, 1000]);
    const levelGauge = (name: string, help: string, value: (seats: LevelSeats) => number) =>
      new CollectedGauge(list, `apiserver_flowcontrol_${name}`, help, () => this.#levelSeats().levels.map((seats) => ({ labels: { priority_level: seats.level }, value: value(seats) })));
    levelGauge('nominal_limit_seats', '[BETA] Nominal number of execution seats configured for each priority level', (seats) => seats.nominal);
    levelGauge('lower_limit_seats', '[ALPHA] Configured lower bound on number of execution seats available to each priority level', (seats) => seats.lower);
    levelGauge('upper_limit_seats', '[ALPHA] Configured upper bound on number of execution seats available to each priority level', (seats) => seats.upper);
    levelGauge('current_limit_seats', '[ALPHA] current derived number of execution seats available to each priority level', (seats) => seats.current);
    levelGauge('demand_seats_high_watermark', '[ALPHA] High watermark, over last adjustment period, of demand_seats', (seats) => seats.demand.highWatermark);
    levelGauge('demand_seats_average', '[ALPHA] Time-weighted average, over last adjustment period, of demand_seats', (seats) => seats.demand.average);
    levelGauge('demand_seats_stdev', '[ALPHA] Time-weighted standard deviation, over last adjustment period, of demand_seats', (seats) => seats.demand.deviation);
    levelGauge('demand_seats_smoothed', '[ALPHA] Smoothed seat demands', (seats) => seats.demand.smoothed);
    levelGauge('target_seats', '[ALPHA] Seat allocation targets', (seats) => seats.target);
    // The levels' virtual clocks (what a dispatch from a queue sets once there was one).
    const clockGauge = (name: string, help: string, value: (clock: LevelClock) => number | undefined) =>
      new CollectedGauge(list, `apiserver_flowcontrol_${name}`, help, () => this.#levelSeats().levels.flatMap((seats) => {
        const v = seats.clock === undefined ? undefined : value(seats.clock);
        return v === undefined ? [] : [{ labels: { priority_level: seats.level }, value: v }];
      }));
    clockGauge('current_r', '[ALPHA] R(time of last change)', (clock) => clock.currentR);
    clockGauge('dispatch_r', '[ALPHA] R(time of last dispatch)', (clock) => clock.dispatch?.r);
    clockGauge('latest_s', '[ALPHA] S(most recently dispatched request)', (clock) => clock.dispatch?.s);
    const boundsGauge = (name: string, help: string, min: (d: NonNullable<LevelClock['dispatch']>) => number, max: (d: NonNullable<LevelClock['dispatch']>) => number) =>
      new CollectedGauge(list, `apiserver_flowcontrol_${name}`, help, () => this.#levelSeats().levels.flatMap((seats) => {
        const d = seats.clock?.dispatch;
        return d === undefined ? [] : [{ labels: { priority_level: seats.level, bound: 'min' }, value: min(d) }, { labels: { priority_level: seats.level, bound: 'max' }, value: max(d) }];
      }));
    boundsGauge('next_s_bounds', '[ALPHA] min and max, over queues, of S(oldest waiting request in queue)', (d) => d.sMin, (d) => d.sMax);
    boundsGauge('next_discounted_s_bounds', '[ALPHA] min and max, over queues, of S(oldest waiting request in queue) - estimated work in progress', (d) => d.dsMin, (d) => d.dsMax);
    // Upstream's timing ratio histograms: nanoseconds spent at each ratio.
    const utilization = (name: string, help: string, bounds: readonly number[], readings: (u: NonNullable<LevelSeats['utilization']>, level: string) => Array<{ labels: Record<string, string>; reading: TimingReading }>) =>
      new CollectedHistogram(list, `apiserver_flowcontrol_${name}`, help, bounds, () => this.#levelSeats().levels.flatMap((seats) =>
        seats.utilization === undefined ? [] : readings(seats.utilization, seats.level).map(({ labels, reading }) => ({ labels, counts: reading.nanos, sum: reading.sum, count: reading.count }))));
    utilization('priority_level_seat_utilization', '[ALPHA] Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes)',
      seatUtilizationBounds, (u, level) => [{ labels: { phase: 'executing', priority_level: level }, reading: u.seats }]);
    utilization('priority_level_request_utilization', '[ALPHA] Observations, at the end of every nanosecond, of number of requests (as a fraction of the relevant limit) waiting or in any stage of execution (but only initial stage for WATCHes)',
      requestUtilizationBounds, (u, level) => [{ labels: { phase: 'waiting', priority_level: level }, reading: u.waiting }, { labels: { phase: 'executing', priority_level: level }, reading: u.executing }]);
    utilization('demand_seats', '[ALPHA] Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / (nominal number of seats for that level)',
      seatDemandBounds, (u, level) => [{ labels: { priority_level: level }, reading: u.demand }]);
    new CollectedGauge(list, 'apiserver_flowcontrol_seat_fair_frac', "[ALPHA] Fair fraction of server's concurrency to allocate to each priority level that can use it",
      () => {
        const { levels, fairFraction } = this.#levelSeats();
        return levels.length === 0 ? [] : [{ labels: {}, value: fairFraction }];
      });
    new CollectedGauge(list, 'apiserver_registered_watchers', 'Number of currently registered watchers for a given resources',
      () => sources.registeredWatchers().map((w) => ({ labels: { group: w.group, version: w.version, kind: w.kind }, value: w.count })));
    new CollectedGauge(list, 'apiserver_storage_objects', '[STABLE] (Deprecated since 1.34.0) [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      () => sources.storageObjects().map((o) => ({ labels: { resource: o.resource }, value: o.count })));
  }

  /** The priority and fairness series of a schema and level, found once per pair. */
  flowControl(schema: string, level: string): FlowSeries {
    const key = `${level}\0${schema}`;
    let series = this.#flowSeries.get(key);
    if (series === undefined) {
      const labels = () => ({ flow_schema: schema, priority_level: level });
      const rejected = new Map<string, { value: number }>();
      // Histogram series appear with their first observation, as upstream's.
      let estimated: HistogramSeries | undefined;
      let watchCounts: HistogramSeries | undefined;
      let queueLengths: HistogramSeries | undefined;
      let noAccommodation: { value: number } | undefined;
      const waits: Array<HistogramSeries | undefined> = [undefined, undefined];
      const executions: Array<HistogramSeries | undefined> = [undefined, undefined];
      series = {
        dispatched: this.#flowDispatched.series(key, labels),
        inQueue: this.#flowInQueue.series(key, labels),
        inQueueSeats: this.#flowInQueueSeats.series(key, labels),

        executing: this.#flowExecuting.series(key, labels),
        executingSeats: this.#flowExecutingSeats.series(key, labels),
        observeEstimatedSeats: (seats) => (estimated ??= this.#flowEstimatedSeats.series(key, labels)).observe(seats),
        observeWatchCount: (count) => (watchCounts ??= this.#flowWatchCounts.series(key, labels)).observe(count),
        noteNoAccommodation: () => void (noAccommodation ??= this.#flowNoAccommodation.series(key, labels)).value++,
        observeQueueLength: (length) => (queueLengths ??= this.#flowQueueLengths.series(key, labels)).observe(length),
        observeWait: (seconds, executed) => {
          const i = executed ? 1 : 0;
          (waits[i] ??= this.#flowWaits.series(`${key}\0${executed}`, () => ({ flow_schema: schema, priority_level: level, execute: String(executed) }))).observe(seconds);
        },
        observeExecution: (seconds, watch) => {
          const i = watch ? 1 : 0;
          (executions[i] ??= this.#flowExecutions.series(`${key}\0${watch}`, () => ({ flow_schema: schema, priority_level: level, type: watch ? 'watch' : 'regular' }))).observe(seconds);
        },
        rejected: (reason) => {
          let counter = rejected.get(reason);
          if (counter === undefined) rejected.set(reason, (counter = this.#flowRejected.series(`${key}\0${reason}`, () => ({ flow_schema: schema, priority_level: level, reason }))));
          counter.value++;
        },
      };
      this.#flowSeries.set(key, series);
    }
    return series;
  }

  /** Where the priority levels' seat gauges (apiserver_flowcontrol_*_limit_seats, demand_seats_*, seat_fair_frac) are read from. */
  levelSeatsFrom(collect: () => { levels: readonly LevelSeats[]; fairFraction: number }): void {
    this.#levelSeats = collect;
  }

  /** Where the executing and waiting requests by kind are read from (the server's in-flight filter). */
  requestConcurrencyFrom(concurrency: RequestConcurrency): void {
    this.#concurrency = concurrency;
  }

  /** A request has begun; the answer to it calls the function returned with its status code. */
  startRequest(labels: RequestLabels, longRunning: boolean): (code: number) => void {
    const started = performance.now();
    const series = this.#requestSeries(labels);
    if (longRunning) series.longRunning().value++;
    let done = false;
    return (code) => {
      if (done) return;
      done = true;
      let requests = series.requests.get(code);
      if (requests === undefined) {
        requests = this.#requests.series(`${series.key}\0${code}`, () => ({ ...series.labels, code: String(code) }));
        series.requests.set(code, requests);
      }
      requests.value++;
      if (longRunning) series.longRunning().value--;
      // Every request is timed, watches and connections too, as upstream's MonitorRequest times them (their verbs, WATCH and CONNECT, keep them apart).
      series.durations.observe((performance.now() - started) / 1000);
    };
  }

  /**
   * A request the server ended in self-defense (upstream's RecordRequestTermination): 504 at
   * its deadline, 429 refused by the limits. A non-resource request's path is its subresource
   * label, as upstream labels it there.
   */
  requestTerminated(labels: Omit<RequestLabels, 'dryRun'>, code: number): void {
    const key = `${labels.verb}\0${labels.group}\0${labels.version}\0${labels.resource}\0${labels.subresource}\0${labels.scope}\0${code}`;
    this.#terminations.series(key, () => ({
      verb: labels.verb, group: labels.group, version: labels.version, resource: labels.resource, subresource: labels.subresource, scope: labels.scope,
      component: 'apiserver', code: String(code),
    })).value++;
  }

  /** A request refused with 429 by the in-flight limits or priority and fairness (upstream's RecordDroppedRequest). */
  requestDropped(mutating: boolean): void {
    const kind = mutating ? 'mutating' : 'readOnly';
    this.#dropped.series(kind, () => ({ request_kind: kind })).value++;
  }

  /** The series of one set of request labels, found once per request. */
  #requestSeries(labels: RequestLabels): RequestSeries {
    const key = `${labels.verb}\0${labels.dryRun}\0${labels.group}\0${labels.version}\0${labels.resource}\0${labels.subresource}\0${labels.scope}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      const base = {
        verb: labels.verb, dry_run: labels.dryRun ? 'All' : '', group: labels.group, version: labels.version, resource: labels.resource,
        subresource: labels.subresource, scope: labels.scope, component: 'apiserver',
      };
      const { dry_run: _dryRun, ...longRunningLabels } = base;
      series = {
        key,
        labels: base,
        requests: new Map(),
        durations: this.#durations.series(key, () => base),
        longRunning: () => this.#longRunning.series(`${labels.verb}\0${labels.group}\0${labels.version}\0${labels.resource}\0${labels.subresource}\0${labels.scope}`, () => longRunningLabels),
      };
      this.#series.set(key, series);
    }
    return series;
  }

  /** `count` events were sent to a watcher of the kind. */
  watchEvent(group: string, version: string, kind: string, count = 1): void {
    this.#watchEvents.series(`${group}\0${version}\0${kind}`, () => ({ group, version, kind })).value += count;
  }

  watcherTerminated(group: string, resource: string): void {
    this.#terminatedWatchers.series(`${group}\0${resource}`, () => ({ group, resource })).value++;
  }

  /** A storage call took `seconds` (etcd_request_duration_seconds, for every backend). */
  storageCall(operation: string, group: string, resource: string, seconds: number): void {
    this.#storage.series(`${operation}\0${group}\0${resource}`, () => ({ operation, group, resource })).observe(seconds);
  }

  /** A sync of the embedded storage's write-ahead log took `seconds`, on the event loop or the thread pool. */
  walSync(seconds: number, onLoop: boolean): void {
    const where = onLoop ? 'loop' : 'thread_pool';
    this.#walSyncs.series(where, () => ({ where })).observe(seconds);
  }

  /** A JWT authenticator authenticated or refused a token of its issuer. */
  jwtAuthentication(issuer: string, result: 'success' | 'failure', seconds: number): void {
    this.#jwtLatency.series(`${issuer}\0${result}`, () => ({ jwt_issuer_hash: sha256Label(issuer), result })).observe(seconds);
  }

  /** A JWT authenticator fetched its issuer's key set, or failed to. */
  jwksFetch(issuer: string, result: 'success' | 'failure', keySet?: unknown): void {
    const issuerHash = sha256Label(issuer);
    this.#jwksFetched.series(`${issuer}\0${result}`, () => ({ jwt_issuer_hash: issuerHash, apiserver_id_hash: this.#serverIdHash, result })).value = Date.now() / 1000;
    if (result === 'success') this.#jwksKeySets.set(issuerHash, sha256Label(JSON.stringify(keySet)));
  }

  /** The authentication configuration in use: loaded at start, or reloaded (`status`) when the file changed. */
  authenticationConfig(data: string, status?: 'success' | 'failure'): void {
    if (status !== undefined) {
      this.#authnReloads.series(status, () => ({ status, apiserver_id_hash: this.#serverIdHash })).value++;
      this.#authnReloadTimes.series(status, () => ({ status, apiserver_id_hash: this.#serverIdHash })).value = Date.now() / 1000;
    }
    if (status !== 'failure') this.#authnConfigHash = sha256Label(data);
  }

  /** An authorizer of the chain allowed or denied a request. */
  authorizationDecision(type: string, name: string, decision: 'allowed' | 'denied'): void {
    this.#authzDecisions.series(`${type}\0${name}\0${decision}`, () => ({ type, name, decision })).value++;
  }

  /** One round-trip to an authorization webhook (every retry counts). */
  authorizationWebhookAttempt(name: string, result: string, seconds: number): void {
    this.#authzWebhookEvaluations.series(`${name}\0${result}`, () => ({ name, result })).value++;
    this.#authzWebhookDurations.series(`${name}\0${result}`, () => ({ name, result })).observe(seconds);
  }

  /** One call of a CRD's conversion webhook: its result and failure type, and its CRD and versions. */
  conversionWebhook(o: { crdName: string; fromVersion: string; toVersion: string; seconds: number; failureType: string }): void {
    const result = o.failureType === '' ? 'success' : 'failure';
    const labels = () => ({ result, failure_type: o.failureType });
    this.#conversionRequests.series(`${result}\0${o.failureType}`, labels).value++;
    this.#conversionDurations.series(`${result}\0${o.failureType}`, labels).observe(o.seconds);
    if (o.fromVersion === o.toVersion) return;
    const succeeded = String(o.failureType === '');
    this.#crdConversionDurations.series(`${o.crdName}\0${o.fromVersion}\0${o.toVersion}\0${succeeded}`,
      () => ({ crd_name: o.crdName, from_version: o.fromVersion, to_version: o.toVersion, succeeded })).observe(o.seconds);
  }

  /** A webhook with failurePolicy NoOpinion could not be asked. */
  authorizationWebhookFailOpen(name: string, result: string): void {
    this.#authzWebhookFailOpen.series(`${name}\0${result}`, () => ({ name, result })).value++;
  }

  /** A webhook's match conditions excluded a request, or one could not be evaluated. */
  authorizationMatchCondition(name: string, outcome: 'excluded' | 'error', seconds: number): void {
    const counter = outcome === 'excluded' ? this.#authzMatchExclusions : this.#authzMatchErrors;
    counter.series(name, () => ({ type: 'Webhook', name })).value++;
    this.#authzMatchSeconds.series(name, () => ({ type: 'Webhook', name })).observe(seconds);
  }

  /** The encryption configuration in use: loaded at start, or reloaded (`status`) when the file changed. */
  encryptionConfig(data: string, status?: 'success' | 'failure'): void {
    if (status !== undefined) {
      this.#encryptionReloads.series(status, () => ({ status, apiserver_id_hash: this.#serverIdHash })).value++;
      this.#encryptionReloadTimes.series(status, () => ({ status, apiserver_id_hash: this.#serverIdHash })).value = Date.now() / 1000;
    }
    if (status !== 'failure') this.#encryptionConfigHash = sha256Label(data);
  }

  /** A service account token was used: legacy, stale or valid projected, a long-lived one made by hand or generated, or one marked invalid. */
  serviceAccountTokenUsed(use: 'legacy' | 'stale' | 'valid' | 'legacy_manual' | 'legacy_auto' | 'invalid_legacy_auto'): void {
    this.#serviceAccountTokenUses.get(use)!.value++;
  }

  /** A KMS provider wrote (`to_storage`) or read (`from_storage`) a value under a key id. */
  kmsKeyIdUsed(transformation: 'from_storage' | 'to_storage', provider: string, keyId: string): void {
    const key = `${transformation}\0${provider}\0${keyId}`;
    const labels = () => ({ transformation_type: transformation, provider_name: provider, key_id_hash: sha256Label(keyId), apiserver_id_hash: this.#serverIdHash });
    this.#touchKeyIdSet(this.#kmsKeyIdSets, key, [this.#kmsKeyIdTotal, this.#kmsKeyIdLast]);
    this.#kmsKeyIdTotal.series(key, labels).value++;
    this.#kmsKeyIdLast.series(key, labels).value = Date.now() / 1000;
  }

  /** A KMS provider's plugin reported its key id in a status. */
  kmsStatusKeyId(provider: string, keyId: string): void {
    const key = `${provider}\0${keyId}`;
    this.#touchKeyIdSet(this.#kmsStatusKeyIdSets, key, [this.#kmsStatusKeyIdLast]);
    this.#kmsStatusKeyIdLast.series(key, () => ({ provider_name: provider, key_id_hash: sha256Label(keyId), apiserver_id_hash: this.#serverIdHash })).value = Date.now() / 1000;
  }

  /** Upstream keeps the series of the last ten key id label sets: the least recently used go. */
  #touchKeyIdSet(sets: Set<string>, key: string, metrics: Array<PlainCounter | PlainGauge>): void {
    sets.delete(key);
    sets.add(key);
    if (sets.size <= kmsKeyIdSeries) return;
    const oldest = sets.values().next().value!;
    sets.delete(oldest);
    for (const metric of metrics) metric.delete(oldest);
  }

  kmsInvalidStatusKeyId(provider: string, error: 'empty' | 'too_long'): void {
    this.#kmsInvalidStatusKeyId.series(`${provider}\0${error}`, () => ({ provider_name: provider, error })).value++;
  }

  /** A call to a KMS plugin (`/v2.KeyManagementService/<Method>`) ended with its gRPC code (OK, or the failure's). */
  kmsOperation(provider: string, method: string, code: string, seconds: number): void {
    this.#kmsOperations.series(`${provider}\0${method}\0${code}`, () => ({ provider_name: provider, method_name: method, grpc_status_code: code })).observe(seconds);
  }

  kmsSeedCacheSize(provider: string, size: number): void {
    this.#kmsSeedCacheSize.series(provider, () => ({ provider_name: provider })).value = size;
  }

  /** A read needed a data key source the server had not decrypted yet. */
  kmsCacheMiss(): void {
    this.#kmsCacheMisses.value++;
  }

  /** A data key (a KMS seed) was made: its time, or a failure (counted, not timed), as upstream's. */
  dataKeyGeneration(seconds: number, failed: boolean): void {
    if (failed) this.#dataKeyGenerationFailures.value++;
    else this.#dataKeyGenerations.observe(seconds);
  }

  /**
   * A value went through a prefix of the encryption configuration (`to_storage` on a write,
   * `from_storage` on a read) with `status` (`OK`, a key service's gRPC code,
   * `unknown-non-grpc`), for the request's `resource` (empty outside one); only successes are timed, as upstream's.
   */
  transformation(resource: string, type: 'from_storage' | 'to_storage', prefix: string, seconds: number, status: string): void {
    this.#transformations.series(`${resource}\0${type}\0${prefix}\0${status}`, () => ({ resource, status, transformation_type: type, transformer_prefix: prefix })).value++;
    if (status === 'OK') this.#transformationDurations.series(`${resource}\0${type}\0${prefix}`, () => ({ resource, transformation_type: type, transformer_prefix: prefix })).observe(seconds);
  }

  /**
   * What reaches kubelets: pods/log's counters (upstream's kube_apiserver_pod_logs_*: requests by
   * whether they skip the kubelet's certificate check, and certificate failures) and the stream
   * translator's requests by the code they ended with.
   */
  readonly kubelet = {
    logRequest: (usage: 'enforce_tls' | 'skip_tls_allowed'): void => {
      this.#podLogsUsage.series(usage, () => ({ usage })).value++;
    },
    logTlsFailure: (): void => {
      this.#podLogsTlsFailures.value++;
    },
    translatedStream: (code: number): void => {
      this.#streamTranslations.series(String(code), () => ({ code: String(code) })).value++;
    },
    tunnelledStream: (code: number): void => {
      this.#streamTunnels.series(String(code), () => ({ code: String(code) })).value++;
    },
  };

  /** A request named a deprecated API: its series of apiserver_requested_deprecated_apis is set to 1, as upstream's MonitorRequest sets it. */
  requestedDeprecatedApi(labels: { group: string; version: string; resource: string; subresource: string; removedRelease: string }): void {
    const { group, version, resource, subresource, removedRelease } = labels;
    this.#deprecatedApis.series(`${group}\0${version}\0${resource}\0${subresource}\0${removedRelease}`,
      () => ({ group, version, resource, subresource, removed_release: removedRelease })).value = 1;
  }

  /** PodSecurity admission's counters (upstream's pod_security_*), with the labels the plugin gives (written sorted by name, as Prometheus' Go client writes them). */
  readonly podSecurity = {
    evaluation: (labels: Record<string, string>): void => countSorted(this.#podSecurityEvaluations, labels),
    exemption: (labels: Record<string, string>): void => countSorted(this.#podSecurityExemptions, labels),
    error: (labels: Record<string, string>): void => countSorted(this.#podSecurityErrors, labels),
  };

  /** The authorization configuration in use: loaded at start, or reloaded (`status`) when the file changed. */
  authorizationConfig(data: string, status?: 'success' | 'failure'): void {
    if (status !== undefined) {
      this.#authzReloads.series(status, () => ({ status, apiserver_id_hash: this.#serverIdHash })).value++;
      this.#authzReloadTimes.series(status, () => ({ status, apiserver_id_hash: this.#serverIdHash })).value = Date.now() / 1000;
    }
    if (status !== 'failure') this.#authzConfigHash = sha256Label(data);
  }

  /** `--disabled-metrics`: these are left out of every scrape (upstream's metrics options). */
  disable(names: readonly string[]): void {
    for (const name of names) this.#disabled.add(name);
  }

  /**
   * DELETE /metrics: upstream's MetricsWithReset (profiling is on by default) resets the
   * registry's vectors and counters; what is read from the server's state when scraped (the
   * collected gauges and histograms) and Node's own metrics are not, as upstream's collectors are not.
   */
  reset(): void {
    for (const metric of this.#list) metric.reset?.();
  }

  /** A scrape with `accept` as its Accept header. */
  async scrape(accept: string | undefined): Promise<Exposition> {
    return expose(await this.#promRegistry(), accept);
  }

  /** prom-client's registry of these metrics and Node's default ones, made on the first scrape. */
  #promRegistry(): Promise<Registry> {
    this.#registry ??= promClient().then((client) => {
      const registry = registryOf(client, this.#list, this.#disabled);
      client.collectDefaultMetrics({ register: registry });
      for (const name of this.#disabled) registry.removeSingleMetric(name);
      return registry;
    });
    return this.#registry;
  }
}

/** The series of one check on one endpoint, found once: a probe sets and counts them in place. */
interface CheckSeries {
  result: { value: number };
  success?: { value: number };
  error?: { value: number };
}

/**
 * /metrics/slis: component-base's SLI registry (metrics/prometheus/slis), apart from
 * /metrics. Each check /healthz, /livez or /readyz runs sets kubernetes_healthcheck{name,type}
 * (1 passed, 0 failed) and counts kubernetes_healthchecks_total{name,status,type}, the type
 * being the endpoint, as upstream's handleRootHealth calls ObserveHealthcheck; a series
 * appears with its first observation and a reset drops them all (upstream's vectors' Reset).
 */
export class SliMetrics {
  readonly #list: MetricList = [];
  readonly #disabled: ReadonlySet<string>;
  readonly #healthcheck: PlainGauge;
  readonly #healthchecks: PlainCounter;
  /** By endpoint, then check. */
  readonly #checks = new Map<string, Map<string, CheckSeries>>();
  #registry: Promise<Registry> | undefined;

  /** `disabled`: `--disabled-metrics`, which upstream applies to every registry. */
  constructor(disabled: ReadonlySet<string> = new Set()) {
    this.#disabled = disabled;
    // Help as component-base writes it for a STABLE metric.
    this.#healthcheck = new PlainGauge(this.#list, 'kubernetes_healthcheck', '[STABLE] This metric records the result of a single healthcheck.');
    this.#healthchecks = new PlainCounter(this.#list, 'kubernetes_healthchecks_total', '[STABLE] This metric records the results of all healthcheck.');
  }

  /** `check` passed or failed when `endpoint` (healthz, livez, readyz) ran it. */
  observe(endpoint: string, check: string, passed: boolean): void {
    let checks = this.#checks.get(endpoint);
    if (checks === undefined) this.#checks.set(endpoint, (checks = new Map()));
    let series = checks.get(check);
    if (series === undefined) {
      series = { result: this.#healthcheck.series(`${check}\0${endpoint}`, () => ({ name: check, type: endpoint })) };
      checks.set(check, series);
    }
    series.result.value = passed ? 1 : 0;
    // Labels sorted by name, as Prometheus' Go client writes them.
    if (passed) (series.success ??= this.#healthchecks.series(`${check}\0${endpoint}\0success`, () => ({ name: check, status: 'success', type: endpoint }))).value++;
    else (series.error ??= this.#healthchecks.series(`${check}\0${endpoint}\0error`, () => ({ name: check, status: 'error', type: endpoint }))).value++;
  }

  /** DELETE /metrics/slis: every series goes until observed again. */
  reset(): void {
    for (const [endpoint, checks] of this.#checks) {
      for (const check of checks.keys()) {
        this.#healthcheck.delete(`${check}\0${endpoint}`);
        this.#healthchecks.delete(`${check}\0${endpoint}\0success`);
        this.#healthchecks.delete(`${check}\0${endpoint}\0error`);
      }
    }
    this.#checks.clear();
  }

  /** A scrape with `accept` as its Accept header. */
  async scrape(accept: string | undefined): Promise<Exposition> {
    return expose(await this.#promRegistry(), accept);
  }

  #promRegistry(): Promise<Registry> {
    this.#registry ??= promClient().then((client) => registryOf(client, this.#list, this.#disabled));
    return this.#registry;
  }
}

/** prom-client, loaded with the first scrape. */
async function promClient(): Promise<typeof import('prom-client')> {
  // A CommonJS module: Node's loader gives its exports by name and as the default
  // export, the start-up bundle (npm start) only as the default export.
  return (await import('prom-client')).default;
}

/** A prom-client registry rendering the metrics of `list` but the disabled ones. */
function registryOf(client: typeof import('prom-client'), list: MetricList, disabled: ReadonlySet<string>): Registry {
  const registry = new client.Registry();
  for (const metric of list) {
    if (!disabled.has(metric.name)) registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }
  return registry;
}

/**
 * A scrape as promhttp answers it (expfmt.Negotiate without OpenMetrics): the Accept
 * header's clauses in goautoneg's order, the first asking for the delimited Protobuf format
 * or for text/plain (version 0.0.4 or none) choosing it, else text; the content type names
 * the last escaping scheme a clause named up to there.
 */
async function expose(registry: Registry, accept: string | undefined): Promise<Exposition> {
  let escaping = defaultEscaping;
  let protobuf = false;
  for (const { type, params } of acceptClauses(accept ?? '')) {
    const scheme = params.get('escaping');
    if (scheme !== undefined && escapingSchemes.has(scheme)) escaping = scheme;
    // Protobuf's text encodings, which expfmt also offers, are not written here: such a clause is passed over.
    if (type === 'application/vnd.google.protobuf' && params.get('proto') === 'io.prometheus.client.MetricFamily' && params.get('encoding') === 'delimited') {
      protobuf = true;
      break;
    }
    if (type === 'text/plain' && (params.get('version') ?? '0.0.4') === '0.0.4') break;
  }
  const families = await familiesWithSeries(registry);
  return protobuf
    ? { contentType: `${protobufFormat}; escaping=${escaping}`, body: encodeMetricFamilies(families) }
    : { contentType: `${textFormat}; escaping=${escaping}`, body: await textOf(registry, families) };
}

/**
 * goautoneg's ParseAccept, which expfmt uses (not encoding/'s parseAccept: names and values
 * are compared as sent): clauses by q, a specific type before `*`, a specific subtype before
 * `*` (its comparison, by insertion sort as Go sorts a short slice), else in header order.
 */
function acceptClauses(header: string): Array<{ type: string; params: Map<string, string> }> {
  const clauses: Array<{ type: string; subtype: string; q: number; params: Map<string, string> }> = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const [type = '', subtype, ...rest] = range.split('/').map((s) => s.trim());
    if (rest.length > 0 || (subtype === undefined && type !== '*')) continue;
    const clause = { type, subtype: subtype ?? '*', q: 1, params: new Map<string, string>() };
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const name = param.slice(0, eq).trim();
      // q as Go's ParseFloat reads it: what it cannot read is 0.
      if (name === 'q') clause.q = Number(param.slice(eq + 1)) || 0;
      else clause.params.set(name, param.slice(eq + 1).trim());
    }
    clauses.push(clause);
  }
  const less = (a: typeof clauses[number], b: typeof clauses[number]) =>
    a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subtype !== '*' && b.subtype === '*');
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j]!, clauses[j - 1]!); j--) [clauses[j], clauses[j - 1]] = [clauses[j - 1]!, clauses[j]!];
  }
  return clauses.map(({ type, subtype, params }) => ({ type: `${type}/${subtype}`, params }));
}

/** A metric as prom-client's registry holds it: its typings leave out what the registry calls. */
interface RegisteredMetric {
  get(): ExportedFamily | Promise<ExportedFamily>;
  getForPromString?(): Promise<ExportedFamily>;
}

/**
 * The registry's families that have series: Go's registry leaves the others out of a scrape
 * (NormalizeMetricFamilies), where prom-client would write their HELP and TYPE. Read as
 * prom-client's text writer reads them (a histogram's labels apart from `le`).
 */
async function familiesWithSeries(registry: Registry): Promise<ExportedFamily[]> {
  const families = await Promise.all((registry.getMetricsAsArray() as unknown as RegisteredMetric[]).map((metric) => metric.getForPromString?.() ?? metric.get()));
  return families.filter((family) => family.values.length > 0);
}

/** The text format of `families`, each written by prom-client's registry. */
async function textOf(registry: Registry, families: readonly ExportedFamily[]): Promise<string> {
  const writer = registry as unknown as { getMetricsAsString(metric: { get(): ExportedFamily }): Promise<string> };
  const texts = await Promise.all(families.map((family) => writer.getMetricsAsString({ get: () => family })));
  return texts.length === 0 ? '' : `${texts.join('\n\n')}\n`;
}

/** The subresources upstream's metrics count as CONNECT, whatever the method (metrics' validConnectRequests). */
const connectSubresources: ReadonlySet<string> = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

/**
 * Upstream's metric verb for a request (metrics.CleanVerb): a request to a connect
 * subresource is CONNECT (a `kubectl exec` is no POST to the SLO rules that count writes,
 * nor are its minutes a write's latency), otherwise the verb as the method and the
 * request's kind tell it.
 */
export function metricVerb(method: string, verb: string, isResourceRequest: boolean, contentType: string | string[] | undefined, subresource = ''): string {
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  if (!isResourceRequest) return method.toUpperCase();
  if (subresource !== '' && connectSubresources.has(subresource)) return 'CONNECT';
  switch (verb) {
    case 'list': return 'LIST';
    case 'watch': return 'WATCH';
    case 'get': return 'GET';
    case 'create': return 'POST';
    case 'update': return 'PUT';
    case 'patch': return type?.startsWith('application/apply-patch') ? 'APPLY' : 'PATCH';
    case 'delete': return 'DELETE';
    case 'deletecollection': return 'DELETECOLLECTION';
    default: return verb.toUpperCase();
  }
}


/** Upstream's getHash: `sha256:<hex>`, the empty string for nothing. */
function sha256Label(data: string): string {
  return data === '' ? '' : `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
