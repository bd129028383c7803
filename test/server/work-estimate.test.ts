// A request's work as upstream's priority and fairness estimates it: seats for lists by the
// objects they go through, and for writes by the watches their event goes to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestInfo, type ResourceRequestInfo } from '../../src/endpoints/request-info.ts';
import { estimateWork, maxSeatsOf, WatchTracker, type EstimateSources } from '../../src/server/work-estimate.ts';

function info(method: string, target: string): { info: ResourceRequestInfo; query: URLSearchParams } {
  const url = new URL(target, 'https://x');
  const parsed = requestInfo(method, url.pathname, url.searchParams);
  assert.ok(parsed.isResourceRequest);
  return { info: parsed, query: url.searchParams };
}

function sources(objects: Record<string, number>): EstimateSources {
  return { objectCount: (group, resource) => objects[`${group}/${resource}`], watches: new WatchTracker() };
}

const seatsFor = (method: string, target: string, src: EstimateSources, levelMax = 0) => {
  const { info: i, query } = info(method, target);
  return estimateWork(i, query, levelMax, src);
};

test('a list takes a seat per hundred objects it goes through, as upstream reckons them', () => {
  const src = sources({ '/configmaps': 1_234, 'apps/deployments': 50, '/pods': 0 });
  const seats = (target: string, levelMax = 0) => seatsFor('GET', target, src, levelMax).initialSeats;
  // From the watch cache: every object of the resource, whatever the namespace or page.
  assert.equal(seats('/api/v1/configmaps'), 10); // 1,234 → 13, at most 10
  assert.equal(seats('/api/v1/namespaces/a/configmaps?limit=500'), 10);
  assert.equal(seats('/api/v1/configmaps?resourceVersion=0&limit=50'), 10);
  assert.equal(seats('/apis/apps/v1/deployments'), 1);
  assert.equal(seats('/api/v1/pods'), 1);
  // From storage (an exact version with a page, a continue): twice the page; with a selector, all and the page.
  assert.equal(seats('/api/v1/configmaps?resourceVersion=5&limit=150'), 3);
  assert.equal(seats('/api/v1/configmaps?resourceVersion=5&resourceVersionMatch=Exact&limit=100'), 2);
  assert.equal(seats('/api/v1/configmaps?continue=abc&limit=200'), 4);
  assert.equal(seats('/api/v1/configmaps?continue=abc&limit=20&labelSelector=a%3Db'), 10); // 1,234 + 20
  assert.equal(seatsFor('GET', '/apis/apps/v1/deployments?continue=abc&limit=20&labelSelector=a%3Db', src).initialSeats, 1); // 50 + 20
  // The level's most, then the server's.
  assert.equal(seats('/api/v1/configmaps', 4), 4);
  assert.equal(seats('/api/v1/configmaps', 40), 10);
  // One named object is read as a get; a resource not kept here costs this server little; options that do not decode, the most.
  assert.equal(seats('/api/v1/configmaps?fieldSelector=metadata.name%3Dx'), 1);
  assert.equal(seatsFor('GET', '/apis/metrics.k8s.io/v1beta1/pods', src).initialSeats, 1);
  assert.equal(seats('/api/v1/pods?limit=abc', 6), 6);
  // A watch starting with its list's objects costs what the list from the cache would; another, one.
  assert.equal(seats('/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan'), 10);
  assert.equal(seats('/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersion=5&limit=100'), 10);
  assert.equal(seats('/api/v1/configmaps?watch=1'), 1);
  assert.equal(seats('/api/v1/configmaps?watch=1&sendInitialEvents=false'), 1);
  // Gets and other verbs, one.
  assert.deepEqual(seatsFor('GET', '/api/v1/namespaces/a/configmaps/x', src), { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
});

test('a write whose event goes to ten or more watches holds a seat per ten of them after its answer, 5 ms each', () => {
  const src = sources({});
  const watch = (target: string) => src.watches.register(info('GET', target).info);
  const forget = Array.from({ length: 12 }, () => watch('/api/v1/configmaps?watch=1'));
  // Other namespaces' watches, other resources' and other objects' are not told of it.
  for (let i = 0; i < 30; i++) {
    watch('/api/v1/namespaces/other/configmaps?watch=1');
    watch('/api/v1/namespaces/a/secrets?watch=1');
    watch('/api/v1/namespaces/a/configmaps?watch=1&fieldSelector=metadata.name%3Dother');
  }
  const create = () => seatsFor('POST', '/api/v1/namespaces/a/configmaps', src);
  assert.deepEqual(create(), { initialSeats: 1, finalSeats: 2, additionalLatencyMs: 5 });
  for (let i = 0; i < 8; i++) watch('/api/v1/namespaces/a/configmaps?watch=1');
  for (let i = 0; i < 5; i++) watch('/api/v1/namespaces/a/configmaps?watch=1&fieldSelector=metadata.name%3Dx');
  assert.deepEqual(create(), { initialSeats: 1, finalSeats: 2, additionalLatencyMs: 5 }); // 20: the object's own watches see no create
  assert.deepEqual(seatsFor('PUT', '/api/v1/namespaces/a/configmaps/x', src), { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }); // 25
  assert.equal(maxSeatsOf(seatsFor('PATCH', '/api/v1/namespaces/a/configmaps/x/status', src)), 3);
  // Past the level's most, the seats are held longer: the same work.
  assert.deepEqual(seatsFor('DELETE', '/api/v1/namespaces/a/configmaps/x', src, 2), { initialSeats: 1, finalSeats: 2, additionalLatencyMs: 7.5 });
  // A token request writes nothing; fewer than ten watches cost nothing after.
  assert.equal(maxSeatsOf(seatsFor('POST', '/api/v1/namespaces/a/serviceaccounts/default/token', src)), 1);
  for (const f of forget) {
    f();
    f(); // once only
  }
  assert.deepEqual(create(), { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }); // 8
  let observed = -1;
  estimateWork(info('POST', '/api/v1/namespaces/a/configmaps').info, new URLSearchParams(), 0, src, (n) => (observed = n));
  assert.equal(observed, 8);
});
