// The priority and fairness dumps' text, lined up as Go's tabwriter lines up upstream's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowControlDump, tabulate } from '../../src/server/flow-control-dump.ts';
import { PriorityLevels } from '../../src/server/priority-levels.ts';

test('columns are padded to their widest cell and one more, at least 8, the last left as it is', () => {
  assert.equal(tabulate([['a', 'b', 'c'], ['dd', 'e', 'f']]), 'a,      b,      c\ndd,     e,      f\n');
  assert.equal(tabulate([['PriorityLevelName', 'IsIdle'], ['exempt', 'true']]), 'PriorityLevelName, IsIdle\nexempt,            true\n');
  assert.equal(tabulate([['ü', 'x'], ['a', 'y']]), 'ü,      x\na,      y\n');
});

test('the dumps show each level, its queues and who waits in them; other names are none', async () => {
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 5000, now: () => 0 });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: { queues: 2, handSize: 1, queueLengthLimit: 5 } }, { name: 'exempt', exempt: true, shares: 0 }]);
  const held = levels.acquire('q', 's', 'bob') as { release(): void };
  const waiting = levels.acquire('q', 's', 'bob', {
    work: { initialSeats: 1, finalSeats: 2, additionalLatencyMs: 2.5 },
    describe: () => ({ user: 'bob', verb: 'create', path: '/apis/apps/v1/namespaces/n/deployments', namespace: 'n', name: '', group: 'apps', version: 'v1', resource: 'deployments', subresource: '' }),
  });
  const q = new URLSearchParams();
  const lines = (text: string) => text.trimEnd().split('\n').map((line) => line.split(',').map((cell) => cell.trim()));
  assert.deepEqual(lines(flowControlDump(levels.dump(), 'dump_priority_levels', q)!).slice(1), [
    ['exempt', '0', 'true', 'false', '0', '0', '0', '0', '0', '0'],
    ['q', '1', 'false', 'false', '1', '1', '1', '0', '0', '0'],
  ]);
  const queues = lines(flowControlDump(levels.dump(), 'dump_queues', q)!).slice(1);
  assert.equal(queues.length, 2);
  // The held request went out of the same queue (3 ms of its seat in virtual time); the waiting one's work is 3 ms of one seat and 2.5 ms of two.
  assert.deepEqual(queues.find((r) => r[2] === '1')!.slice(2), ['1', '1', '1', '0.00300000ss', '1', '2', '0.00800000ss']);
  const [, row] = lines(flowControlDump(levels.dump(), 'dump_requests', new URLSearchParams('includeRequestDetails=true'))!);
  assert.deepEqual(row!.filter((_, i) => i !== 5), ['q', 's', queues.find((r) => r[2] === '1')![1], '0', 'bob', '1', '2', '2.5ms', 'bob', 'create', '/apis/apps/v1/namespaces/n/deployments', 'n', '', 'apps/v1', 'deployments', '']);
  assert.equal(flowControlDump(levels.dump(), 'dump_other', q), undefined);
  held.release();
  (await waiting as { release(): void }).release();
});
