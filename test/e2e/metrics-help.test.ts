// /metrics HELP lines as kube-apiserver v1.36 writes them: component-base prefixes each
// metric's help with its stability level in brackets (annotateStabilityLevel), a deprecated
// one's with `(Deprecated since X)` after it (markDeprecated); Node's process metrics, like
// the Go client's process collector upstream, have none. A family is written only once it
// has a series (client_golang's registry leaves out the others): the server scraped records
// one in each family looked at first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { ApiMetrics } from '../../src/server/metrics.ts';

const cases: Array<{ name: string; help: string }> = [
  { name: 'apiserver_request_total', help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.' },
  { name: 'apiserver_longrunning_requests', help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.' },
  { name: 'apiserver_current_inflight_requests', help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.' },
  { name: 'apiserver_storage_objects', help: '[STABLE] (Deprecated since 1.34.0) [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.' },
  { name: 'apiserver_flowcontrol_rejected_requests_total', help: '[BETA] Number of requests rejected by API Priority and Fairness subsystem' },
  { name: 'apiserver_flowcontrol_nominal_limit_seats', help: '[BETA] Nominal number of execution seats configured for each priority level' },
  { name: 'apiserver_authentication_config_controller_automatic_reloads_total', help: '[BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.' },
  { name: 'apiserver_watch_events_total', help: '[ALPHA] Number of events sent in watch clients' },
  { name: 'etcd_request_duration_seconds', help: '[ALPHA] Etcd request latency in seconds for each operation and object type.' },
  { name: 'apiserver_flowcontrol_demand_seats', help: '[ALPHA] Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / (nominal number of seats for that level)' },
  { name: 'pod_security_errors_total', help: '[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.' },
  { name: 'serviceaccount_legacy_tokens_total', help: '[ALPHA] Cumulative legacy service account tokens used' },
  { name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes.' },
];

describe('/metrics HELP lines', () => {
  let text: string;
  let server: TestServer;
  before(async () => {
    server = await startServer();
    // A request, a watch with an event, then a scrape records the request families' series.
    const ns = await server.newNamespace('help');
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } })).status, 201);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1`)).status, 200);
    const res = await server.request('GET', '/metrics');
    assert.equal(res.status, 200, res.text);
    text = res.text;
  });
  after(() => server?.stop());

  /** The families a server records only on rare events (a rejection, a reload, a failed evaluation), recorded by hand. */
  const recordedByHand = new Set(['apiserver_flowcontrol_rejected_requests_total', 'apiserver_authentication_config_controller_automatic_reloads_total', 'pod_security_errors_total']);
  let byHand: Promise<string> | undefined;
  const handText = () => (byHand ??= (async () => {
    const metrics = new ApiMetrics({ registeredWatchers: () => [], storageObjects: () => [] });
    metrics.flowControl('global-default', 'global-default').rejected('queue-full');
    metrics.authenticationConfig('{}', 'success');
    metrics.podSecurity.error({ fatal: 'false', request_operation: 'create', resource: 'pod', subresource: '' });
    return (await metrics.scrape(undefined)).body as string;
  })());

  for (const { name, help } of cases) {
    test(`${name} has upstream's help, with its stability level as component-base writes it`, async () => {
      const scraped = recordedByHand.has(name) ? await handText() : text;
      const line = scraped.split('\n').find((l) => l.startsWith(`# HELP ${name} `));
      assert.equal(line, `# HELP ${name} ${help}`);
    });
  }
});
