import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { budgetCovers, deletionTimeoutMs, disruptionStatus, rfc3339 } from '../../src/registry/disruption.ts';

const now = Date.parse('2025-01-01T00:10:00Z');

function pod(name: string, opts: { ready?: boolean; deleting?: boolean; labels?: Record<string, string> } = {}): KubeObject {
  const meta: KubeObject['metadata'] = { name, labels: opts.labels ?? { app: 'web' } };
  if (opts.deleting) meta.deletionTimestamp = '2025-01-01T00:09:00Z';
  return { metadata: meta, status: { phase: 'Running', conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] } } as KubeObject;
}

function pdb(spec: Record<string, unknown>, disruptedPods?: Record<string, string>): KubeObject {
  const status: Record<string, unknown> = {};
  if (disruptedPods !== undefined) status.disruptedPods = disruptedPods;
  return { metadata: { name: 'b', generation: 3 }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec }, status } as KubeObject;
}

const recent = rfc3339(now - 30_000);
const expired = rfc3339(now - deletionTimeoutMs - 1000);

describe('disruptionStatus (the disruption controller\'s arithmetic)', () => {
  const three = [pod('a'), pod('b'), pod('c')];
  const cases: [string, KubeObject, KubeObject[], Record<string, number>][] = [
    ['minAvailable as a number', pdb({ minAvailable: 2 }), three, { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 }],
    ['minAvailable above the healthy count allows nothing', pdb({ minAvailable: 5 }), three, { expectedPods: 3, desiredHealthy: 5, currentHealthy: 3, disruptionsAllowed: 0 }],
    ['minAvailable as a percentage rounds up', pdb({ minAvailable: '50%' }), three, { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 }],
    ['maxUnavailable as a number', pdb({ maxUnavailable: 1 }), three, { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 }],
    ['maxUnavailable as a percentage rounds up', pdb({ maxUnavailable: '34%' }), three, { expectedPods: 3, desiredHealthy: 1, currentHealthy: 3, disruptionsAllowed: 2 }],
    ['neither set allows nothing (no pods expected)', pdb({}), three, { expectedPods: 0, desiredHealthy: 0, currentHealthy: 3, disruptionsAllowed: 0 }],
    ['no pods allows nothing', pdb({ maxUnavailable: 1 }), [], { expectedPods: 0, desiredHealthy: 0, currentHealthy: 0, disruptionsAllowed: 0 }],
    ['unready pods are not healthy', pdb({ minAvailable: 1 }), [pod('a'), pod('b', { ready: false })], { currentHealthy: 1, disruptionsAllowed: 0 }],
    ['pods being deleted are not healthy', pdb({ minAvailable: 1 }), [pod('a'), pod('b', { deleting: true })], { currentHealthy: 1, disruptionsAllowed: 0 }],
    ['a recently evicted pod still there is not healthy', pdb({ minAvailable: 1 }, { b: recent }), [pod('a'), pod('b')], { currentHealthy: 1, disruptionsAllowed: 0 }],
    ['an expired eviction record counts no more', pdb({ minAvailable: 1 }, { b: expired }), [pod('a'), pod('b')], { currentHealthy: 2, disruptionsAllowed: 1 }],
    ['a recently evicted pod that is gone is still expected (maxUnavailable)', pdb({ maxUnavailable: 1 }, { c: recent }), [pod('a'), pod('b')], { expectedPods: 3, desiredHealthy: 2, currentHealthy: 2, disruptionsAllowed: 0 }],
    ['… but not for minAvailable as a number, as upstream', pdb({ minAvailable: 1 }, { c: recent }), [pod('a'), pod('b')], { expectedPods: 2, disruptionsAllowed: 1 }],
  ];
  for (const [name, budget, pods, expected] of cases) {
    test(name, () => {
      const status = disruptionStatus(budget, pods, now);
      for (const [key, value] of Object.entries(expected)) assert.equal(status[key], value, key);
      assert.equal(status.observedGeneration, 3);
    });
  }

  test('the DisruptionAllowed condition follows the allowance and keeps its transition time', () => {
    const allowed = disruptionStatus(pdb({ maxUnavailable: 1 }), [pod('a'), pod('b')], now);
    assert.deepEqual(allowed.conditions, [{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 3, lastTransitionTime: rfc3339(now), reason: 'SufficientPods', message: '' }]);
    const later = disruptionStatus({ ...pdb({ maxUnavailable: 1 }), status: allowed } as KubeObject, [pod('a'), pod('b')], now + 60_000);
    assert.equal((later.conditions as any)[0].lastTransitionTime, rfc3339(now));
    const denied = disruptionStatus({ ...pdb({ maxUnavailable: 1 }), status: allowed } as KubeObject, [pod('a'), pod('b', { ready: false })], now + 60_000);
    assert.deepEqual((denied.conditions as any)[0], { type: 'DisruptionAllowed', status: 'False', observedGeneration: 3, lastTransitionTime: rfc3339(now + 60_000), reason: 'InsufficientPods', message: '' });
  });
});

describe('budgetCovers (the eviction path\'s selection)', () => {
  const cases: [string, unknown, Record<string, string>, boolean][] = [
    ['matching labels', { matchLabels: { app: 'web' } }, { app: 'web' }, true],
    ['other labels', { matchLabels: { app: 'web' } }, { app: 'db' }, false],
    ['an empty selector covers nothing', {}, { app: 'web' }, false],
    ['no selector covers nothing', undefined, { app: 'web' }, false],
    ['an invalid selector covers nothing', { matchExpressions: [{ key: 'app', operator: 'Bogus' }] }, { app: 'web' }, false],
  ];
  for (const [name, selector, labels, expected] of cases) {
    test(name, () => {
      const budget = { metadata: { name: 'b' }, spec: selector === undefined ? {} : { selector } } as KubeObject;
      assert.equal(budgetCovers(budget, pod('p', { labels })), expected);
    });
  }
});
