import { test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CollectedGauge, PlainCounter, PlainGauge, PlainHistogram, type MetricList } from '../../src/server/series.ts';
import { sample } from '../helpers/metrics.ts';

test('plain counters, gauges and histograms render exactly as prom-client\'s own', async () => {
  const bounds = [0.005, 0.025, 0.1, 1, 2.5];
  const theirs = new Registry();
  const list: MetricList = [];
  const counter = new Counter({ name: 'requests_total', help: 'Requests.', labelNames: ['verb', 'code'], registers: [theirs] });
  const gauge = new Gauge({ name: 'inflight', help: 'In flight.', labelNames: ['kind'], registers: [theirs] });
  const histogram = new Histogram({ name: 'latency_seconds', help: 'Latency.', labelNames: ['verb', 'resource'], buckets: bounds, registers: [theirs] });
  new Gauge({
    name: 'watchers', help: 'Watchers.', labelNames: ['group', 'kind'], registers: [theirs],
    collect() {
      this.reset();
      this.set({ group: 'apps', kind: 'Deployment' }, 4);
      this.set({ group: '', kind: 'Pod' }, 2);
    },
  });
  const plainCounter = new PlainCounter(list, 'requests_total', 'Requests.');
  const plainGauge = new PlainGauge(list, 'inflight', 'In flight.');
  const plainHistogram = new PlainHistogram(list, 'latency_seconds', 'Latency.', bounds);
  new CollectedGauge(list, 'watchers', 'Watchers.', () => [{ labels: { group: 'apps', kind: 'Deployment' }, value: 4 }, { labels: { group: '', kind: 'Pod' }, value: 2 }]);
  const ours = new Registry();
  for (const metric of list) ours.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);

  const observations: Array<[string, string, number]> = [['GET', 'pods', 0.001], ['GET', 'pods', 0.3], ['GET', 'pods', 7], ['POST', 'configmaps', 0.025], ['GET', 'pods', 0.005]];
  for (const [verb, resource, seconds] of observations) {
    histogram.observe({ verb, resource }, seconds);
    plainHistogram.series(`${verb}/${resource}`, () => ({ verb, resource })).observe(seconds);
    counter.inc({ verb, code: '200' });
    plainCounter.series(`${verb}/200`, () => ({ verb, code: '200' })).value++;
  }
  gauge.inc({ kind: 'readOnly' }, 3);
  gauge.dec({ kind: 'readOnly' });
  const inflight = plainGauge.series('readOnly', () => ({ kind: 'readOnly' }));
  inflight.value += 3;
  inflight.value--;

  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.match(await ours.metrics(), /latency_seconds_bucket\{le="0.005",verb="GET",resource="pods"\} 2\n/);
});

test('the API metrics render through prom-client made on the first scrape, with Node\'s default metrics', async () => {
  const { ApiMetrics } = await import('../../src/server/metrics.ts');
  const metrics = new ApiMetrics({
    registeredWatchers: () => [{ group: 'apps', version: 'v1', kind: 'Deployment', count: 3 }],
    storageObjects: () => [{ resource: 'deployments.apps', count: 7 }],
  });
  metrics.watcherTerminated('apps', 'deployments');
  metrics.watcherTerminated('apps', 'deployments');
  metrics.startRequest({ verb: 'GET', dryRun: false, group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'namespace' }, false)(200);
  // prom-client's text format with promhttp's escaping parameter, as kube-apiserver answers it.
  const { contentType, body } = await metrics.scrape(undefined);
  assert.equal(contentType, `${Registry.PROMETHEUS_CONTENT_TYPE}; escaping=underscores`);
  const text = body as string;
  assert.match(text, /^apiserver_terminated_watchers_total\{group="apps",resource="deployments"\} 2$/m);
  assert.match(text, /^# TYPE apiserver_terminated_watchers_total counter$/m);
  assert.match(text, /^apiserver_registered_watchers\{group="apps",version="v1",kind="Deployment"\} 3$/m);
  assert.match(text, /^apiserver_storage_objects\{resource="deployments.apps"\} 7$/m);
  assert.match(text, /^apiserver_request_total\{verb="GET",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver",code="200"\} 1$/m);
  assert.match(text, /^process_resident_memory_bytes \d+/m);
  assert.equal((await metrics.scrape(undefined)).body !== '', true, 'a second scrape uses the same registry');
});

test('KMS metrics: key ids hashed, the last ten key id label sets kept as upstream\'s, call latencies by gRPC code', async () => {
  const { ApiMetrics } = await import('../../src/server/metrics.ts');
  const metrics = new ApiMetrics({ registeredWatchers: () => [], storageObjects: () => [] }, 'apiserver-test');
  const hash = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
  for (let i = 0; i < 11; i++) metrics.kmsKeyIdUsed('to_storage', 'vault', `key-${i}`);
  metrics.kmsKeyIdUsed('to_storage', 'vault', 'key-10');
  metrics.kmsOperation('vault', '/v2.KeyManagementService/Status', 'OK', 0.0003);
  metrics.kmsOperation('vault', '/v2.KeyManagementService/Decrypt', 'Unavailable', 1.5);
  metrics.kmsInvalidStatusKeyId('vault', 'empty');
  metrics.kmsCacheMiss();
  const text = (await metrics.scrape(undefined)).body as string;
  const server = hash('apiserver-test');
  const used = (keyId: string) => sample(text, 'apiserver_envelope_encryption_key_id_hash_total', {
    transformation_type: 'to_storage', provider_name: 'vault', key_id_hash: hash(keyId), apiserver_id_hash: server,
  });
  assert.equal(used('key-10'), 2);
  assert.equal(used('key-1'), 1);
  assert.equal(used('key-0'), 0, 'the least recently used of eleven is dropped');
  assert.ok(!text.includes(`key_id_hash="${hash('key-0')}"`), 'from the timestamps too');
  assert.equal(sample(text, 'apiserver_envelope_encryption_kms_operations_latency_seconds_count', { provider_name: 'vault', method_name: '/v2.KeyManagementService/Decrypt', grpc_status_code: 'Unavailable' }), 1);
  assert.equal(sample(text, 'apiserver_envelope_encryption_kms_operations_latency_seconds_bucket', { method_name: '/v2.KeyManagementService/Status', le: '0.0004' }), 1);
  assert.equal(sample(text, 'apiserver_envelope_encryption_invalid_key_id_from_status_total', { provider_name: 'vault', error: 'empty' }), 1);
  assert.equal(sample(text, 'apiserver_storage_envelope_transformation_cache_misses_total'), 1);
});

test('a reset leaves labelled series out until recorded again, zeroes an unlabelled counter and leaves unlabelled gauges and histograms as they are', () => {
  const list: MetricList = [];
  const counter = new PlainCounter(list, 'requests_total', 'Requests.');
  const gauge = new PlainGauge(list, 'inflight', 'In flight.');
  const histogram = new PlainHistogram(list, 'latency_seconds', 'Latency.', [1]);
  const shown = () => Object.fromEntries(list.map((m) => [m.name, m.get().values.map((v) => [v.sharedLabels ?? v.labels, v.value])]));
  const get = counter.series('GET', () => ({ verb: 'GET' }));
  get.value = 3;
  counter.series('', () => ({})).value = 5;
  const pods = gauge.series('pods', () => ({ kind: 'Pod' }));
  pods.value = 2;
  gauge.series('', () => ({})).value = 7;
  histogram.series('GET', () => ({ verb: 'GET' })).observe(0.5);
  histogram.series('', () => ({})).observe(2);

  for (const metric of list) metric.reset?.();
  assert.deepEqual(shown(), {
    requests_total: [[{}, 0]],
    inflight: [[{}, 7]],
    latency_seconds: [[{}, 0], [{}, 1], [{}, 2], [{}, 1]],
  });
  // Recorded again through the series the caller kept: shown from then on, even back at zero.
  get.value++;
  pods.value = 0;
  pods.value = 1;
  assert.deepEqual(shown().requests_total, [[{ verb: 'GET' }, 1], [{}, 0]]);
  assert.deepEqual(shown().inflight, [[{ kind: 'Pod' }, 1], [{}, 7]]);
  pods.value = 0;
  assert.deepEqual(shown().inflight, [[{ kind: 'Pod' }, 0], [{}, 7]]);
});
