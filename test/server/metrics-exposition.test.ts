// /metrics and /metrics/slis as kube-apiserver v1.36's promhttp handlers write them: a family
// with no series is left out (client_golang's registry drops it when gathering), and the
// Accept header chooses the format (expfmt.Negotiate, OpenMetrics off): the delimited
// Protobuf of io.prometheus.client.MetricFamily when asked for, else the text format, the
// content type naming the escaping scheme asked for (underscores by default).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { sample } from '../helpers/metrics.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

/** client_model's io/prometheus/client/metrics.proto, the fields a classic registry writes. */
const metricsProto = protobuf.parse(`
syntax = "proto2";
package io.prometheus.client;
message LabelPair { optional string name = 1; optional string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { optional double value = 1; }
message Counter { optional double value = 1; }
message Quantile { optional double quantile = 1; optional double value = 2; }
message Summary { optional uint64 sample_count = 1; optional double sample_sum = 2; repeated Quantile quantile = 3; }
message Untyped { optional double value = 1; }
message Bucket { optional uint64 cumulative_count = 1; optional double upper_bound = 2; }
message Histogram { optional uint64 sample_count = 1; optional double sample_sum = 2; repeated Bucket bucket = 3; }
message Metric {
  repeated LabelPair label = 1;
  optional Gauge gauge = 2;
  optional Counter counter = 3;
  optional Summary summary = 4;
  optional Untyped untyped = 5;
  optional Histogram histogram = 7;
  optional int64 timestamp_ms = 6;
}
message MetricFamily { optional string name = 1; optional string help = 2; optional MetricType type = 3; repeated Metric metric = 4; }
`).root.lookupType('io.prometheus.client.MetricFamily');

interface Family {
  name: string;
  help: string;
  type: string;
  metric: Array<{
    label?: Array<{ name: string; value: string }>;
    gauge?: { value: number };
    counter?: { value: number };
    histogram?: { sampleCount: number; sampleSum: number; bucket?: Array<{ cumulativeCount: number; upperBound: number }> };
  }>;
}

/** The families of a delimited answer, each after its length. */
function decodeDelimited(bytes: Uint8Array): Family[] {
  const reader = protobuf.Reader.create(bytes);
  const families: Family[] = [];
  while (reader.pos < reader.len) {
    families.push(metricsProto.toObject(metricsProto.decodeDelimited(reader), { longs: Number, enums: String, defaults: true }) as Family);
  }
  return families;
}

/** The families a text answer writes HELP for, and those with no sample. */
function textFamilies(text: string): { names: string[]; empty: string[] } {
  const names = [...text.matchAll(/^# HELP (\S+) /gm)].map((m) => m[1]!);
  const samples = new Set([...text.matchAll(/^([a-zA-Z_:][\w:]*)[{ ]/gm)].map((m) => m[1]!));
  const has = (name: string) => ['', '_bucket', '_sum', '_count'].some((suffix) => samples.has(name + suffix));
  return { names, empty: names.filter((name) => !has(name)) };
}

const protobufAccept = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';
const protobufType = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; escaping=underscores';
const textType = 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores';

describe('metrics exposition', () => {
  let server: TestServer;
  before(async () => void (server = await startServer()));
  after(() => server?.stop());
  const scrape = async (target: string, accept?: string) => {
    const res = await server.request('GET', target, accept === undefined ? {} : { headers: { accept } });
    assert.equal(res.status, 200, res.text);
    return res;
  };

  test('a family with no series is left out of the text, HELP and TYPE too', async () => {
    await scrape('/metrics');
    const { text } = await scrape('/metrics');
    const { names, empty } = textFamilies(text);
    assert.deepEqual(empty, []);
    // Nothing was terminated nor rejected: upstream gathers nothing for these vectors.
    for (const name of ['apiserver_request_terminations_total', 'apiserver_flowcontrol_rejected_requests_total', 'pod_security_errors_total']) {
      assert.ok(!names.includes(name), name);
      assert.doesNotMatch(text, new RegExp(`^# TYPE ${name} `, 'm'));
    }
    assert.match(text, /^# HELP apiserver_request_total \[STABLE\] .*\n# TYPE apiserver_request_total counter\napiserver_request_total\{/m);
    // Families apart by a blank line and the text ending with one newline, as before.
    assert.match(text, /\n\n# HELP apiserver_request_duration_seconds /);
    assert.ok(text.endsWith('\n') && !text.endsWith('\n\n'));
  });

  test('a series reset by DELETE and not recorded since leaves its family out until it is', async () => {
    assert.equal((await server.request('GET', '/api/v1/endpoints')).status, 200);
    assert.match((await scrape('/metrics')).text, /^# TYPE apiserver_requested_deprecated_apis gauge\napiserver_requested_deprecated_apis\{/m);
    assert.equal((await server.request('DELETE', '/metrics')).text, 'metrics reset\n');
    assert.doesNotMatch((await scrape('/metrics')).text, /apiserver_requested_deprecated_apis/);
    assert.equal((await server.request('GET', '/api/v1/endpoints')).status, 200);
    assert.equal(sample((await scrape('/metrics')).text, 'apiserver_requested_deprecated_apis', { resource: 'endpoints' }), 1);
  });

  test('/metrics/slis with every series reset answers nothing at all', async () => {
    assert.equal((await server.request('GET', '/readyz')).status, 200);
    assert.match((await scrape('/metrics/slis')).text, /^# TYPE kubernetes_healthcheck gauge$/m);
    assert.equal((await server.request('DELETE', '/metrics/slis')).text, 'metrics reset\n');
    const res = await scrape('/metrics/slis');
    assert.deepEqual([res.headers['content-type'], res.text], [textType, '']);
  });

  test('asked for the delimited Protobuf, /metrics answers the text\'s families as MetricFamily messages, in client_golang\'s order', async () => {
    const ns = await server.newNamespace('exposition');
    for (let i = 0; i < 3; i++) assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `m${i}` } } })).status, 201);
    const text = (await scrape('/metrics')).text;
    // Prometheus' own Accept header when it scrapes Protobuf.
    const res = await scrape('/metrics', `${protobufAccept};q=0.6,application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.1`);
    assert.equal(res.headers['content-type'], protobufType);
    const families = decodeDelimited(res.bytes);

    const names = families.map((f) => f.name);
    assert.deepEqual(names, [...names].sort(), 'families sorted by name');
    assert.deepEqual([...names].sort(), [...textFamilies(text).names].sort());
    for (const family of families) {
      assert.ok(family.metric.length > 0, family.name);
      for (const metric of family.metric) {
        const labelNames = (metric.label ?? []).map((l) => l.name);
        assert.deepEqual(labelNames, [...labelNames].sort(), `${family.name}'s labels sorted by name`);
      }
    }

    const requests = families.find((f) => f.name === 'apiserver_request_total')!;
    assert.equal(requests.type, 'COUNTER');
    assert.equal(requests.help, '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    const posts = requests.metric.find((m) => m.label!.some((l) => l.name === 'verb' && l.value === 'POST') && m.label!.some((l) => l.name === 'resource' && l.value === 'configmaps'))!;
    assert.deepEqual(posts.label, [
      { name: 'code', value: '201' }, { name: 'component', value: 'apiserver' }, { name: 'dry_run', value: '' }, { name: 'group', value: '' },
      { name: 'resource', value: 'configmaps' }, { name: 'scope', value: 'namespace' }, { name: 'subresource', value: '' }, { name: 'verb', value: 'POST' }, { name: 'version', value: 'v1' },
    ]);
    assert.equal(posts.counter!.value, 3);
    assert.equal(posts.gauge, null);

    const durations = families.find((f) => f.name === 'apiserver_request_duration_seconds')!;
    assert.equal(durations.type, 'HISTOGRAM');
    const postDurations = durations.metric.find((m) => m.label!.some((l) => l.name === 'verb' && l.value === 'POST') && m.label!.some((l) => l.name === 'resource' && l.value === 'configmaps'))!;
    const labels = { verb: 'POST', resource: 'configmaps' };
    const histogram = postDurations.histogram!;
    assert.equal(histogram.sampleCount, 3);
    assert.equal(histogram.sampleSum, sample(text, 'apiserver_request_duration_seconds_sum', labels));
    // The finite buckets only: +Inf is the count.
    const buckets = histogram.bucket!;
    assert.deepEqual(buckets.map((b) => b.upperBound), [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]);
    for (const { upperBound, cumulativeCount } of buckets) {
      assert.equal(cumulativeCount, sample(text, 'apiserver_request_duration_seconds_bucket', { ...labels, le: String(upperBound) }), String(upperBound));
    }

    const objects = families.find((f) => f.name === 'apiserver_storage_objects')!;
    assert.equal(objects.type, 'GAUGE');
    const configmaps = objects.metric.find((m) => m.label!.some((l) => l.value === 'configmaps'))!;
    assert.equal(configmaps.gauge!.value, sample(text, 'apiserver_storage_objects', { resource: 'configmaps' }));
    assert.equal(configmaps.counter, null);
  });

  test('/metrics/slis answers the delimited Protobuf too', async () => {
    assert.equal((await server.request('GET', '/livez')).status, 200);
    const res = await scrape('/metrics/slis', protobufAccept);
    assert.equal(res.headers['content-type'], protobufType);
    const families = decodeDelimited(res.bytes);
    assert.deepEqual(families.map((f) => [f.name, f.type]), [['kubernetes_healthcheck', 'GAUGE'], ['kubernetes_healthchecks_total', 'COUNTER']]);
    const ping = families[0]!.metric.find((m) => m.label!.some((l) => l.value === 'ping'))!;
    assert.deepEqual([ping.label, ping.gauge!.value], [[{ name: 'name', value: 'ping' }, { name: 'type', value: 'livez' }], 1]);
  });

  // expfmt.Negotiate's answers to these Accept headers.
  const negotiated: Array<{ name: string; accept?: string; contentType: string }> = [
    { name: 'no Accept header', contentType: textType },
    { name: 'any type', accept: '*/*', contentType: textType },
    { name: 'JSON', accept: 'application/json', contentType: textType },
    { name: 'the delimited Protobuf alone', accept: protobufAccept, contentType: protobufType },
    { name: 'the delimited Protobuf with spaces', accept: 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited', contentType: protobufType },
    { name: 'text preferred by q over Protobuf', accept: `text/plain;version=0.0.4;q=0.9,${protobufAccept};q=0.5`, contentType: textType },
    { name: 'Protobuf preferred by q over text listed first', accept: `text/plain;q=0.5,${protobufAccept}`, contentType: protobufType },
    { name: 'Protobuf without its encoding', accept: 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily', contentType: textType },
    { name: 'Protobuf of another message', accept: 'application/vnd.google.protobuf;proto=io.prometheus.client.Metric;encoding=delimited', contentType: textType },
    { name: 'an escaping scheme with Protobuf', accept: `${protobufAccept};escaping=allow-utf-8`, contentType: protobufType.replace('underscores', 'allow-utf-8') },
    { name: 'an unknown escaping scheme', accept: `${protobufAccept};escaping=bogus`, contentType: protobufType },
    { name: 'an escaping scheme with text', accept: 'text/plain;version=0.0.4;escaping=values', contentType: textType.replace('underscores', 'values') },
    // Prometheus 3's default: OpenMetrics (not offered) named the scheme, text/plain 0.0.4 chosen.
    {
      name: 'Prometheus 3\'s default scrape protocols',
      accept: 'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1',
      contentType: textType.replace('underscores', 'allow-utf-8'),
    },
    { name: 'text/plain of another version', accept: 'text/plain;version=1.0.0;escaping=dots', contentType: textType.replace('underscores', 'dots') },
  ];
  for (const { name, accept, contentType } of negotiated) {
    test(`Accept: ${name}`, async () => {
      assert.equal((await server.request('GET', '/healthz')).status, 200);
      for (const target of ['/metrics', '/metrics/slis']) {
        const res = await scrape(target, accept);
        assert.equal(res.headers['content-type'], contentType, target);
        if (contentType.startsWith('text/')) assert.match(res.text, /^(# HELP |$)/, target);
        else assert.ok(decodeDelimited(res.bytes).length > 0, target);
      }
    });
  }
});
