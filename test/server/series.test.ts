import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PlainCounter, PlainGauge, PlainHistogram } from '../../src/server/series.ts';

test('plain counters, gauges and histograms render exactly as prom-client\'s own', async () => {
  const bounds = [0.005, 0.025, 0.1, 1, 2.5];
  const theirs = new Registry();
  const ours = new Registry();
  const counter = new Counter({ name: 'requests_total', help: 'Requests.', labelNames: ['verb', 'code'], registers: [theirs] });
  const gauge = new Gauge({ name: 'inflight', help: 'In flight.', labelNames: ['kind'], registers: [theirs] });
  const histogram = new Histogram({ name: 'latency_seconds', help: 'Latency.', labelNames: ['verb', 'resource'], buckets: bounds, registers: [theirs] });
  const plainCounter = new PlainCounter(ours, 'requests_total', 'Requests.');
  const plainGauge = new PlainGauge(ours, 'inflight', 'In flight.');
  const plainHistogram = new PlainHistogram(ours, 'latency_seconds', 'Latency.', bounds);

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
