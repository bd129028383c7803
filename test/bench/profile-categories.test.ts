// The CPU profile summary of `BENCH_ONLY=profile`: each sample counts for the nearest
// frame of ours that a category names, Node's internals only when none of ours is on
// the stack, idle time apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuBreakdown, type CpuProfile, type CpuProfileNode } from '../../bench/profile-categories.ts';

function node(id: number, functionName: string, url: string, children: number[] = []): CpuProfileNode {
  return { id, callFrame: { functionName, url, lineNumber: 0 }, children };
}

const root = '/work/plinth';
const profile: CpuProfile = {
  nodes: [
    node(1, '(root)', '', [2, 3, 4, 5, 8]),
    node(2, '(idle)', ''),
    node(3, '(garbage collector)', ''),
    // Node's HTTP/2 session reading the socket, then our handler, then SQLite's native call.
    node(4, 'onStreamRead', 'node:internal/http2/core', [6]),
    node(5, 'processTicksAndRejections', 'node:internal/process/task_queues', [9]),
    node(6, 'createHandler', `file://${root}/src/endpoints/handlers/create.ts`, [7]),
    node(7, 'commit', `file://${root}/src/storage/sqlite.ts`, [10]),
    node(8, 'runMicrotasks', ''),
    node(9, 'somewhere', `file://${root}/src/cli/plinth.ts`),
    node(10, 'exec', ''),
  ],
  samples: [2, 3, 4, 6, 10, 8, 9],
  timeDeltas: [1000, 100, 200, 300, 400, 50, 25],
};

test('samples count for the nearest frame of ours a category names', () => {
  const breakdown = cpuBreakdown(profile);
  assert.equal(breakdown.totalUs, 2075);
  assert.equal(breakdown.busyUs, 1075);
  assert.deepEqual(Object.fromEntries(breakdown.categories.map((c) => [c.name, c.us])), {
    // exec, a native call under SQLite's commit: the storage's.
    'storage (SQLite, group commit)': 400,
    // The handler itself, under Node's session.
    'routing, filters, handlers': 300,
    // No frame of ours on the stack: Node's.
    'HTTP/2, TLS, streams (Node)': 200,
    'garbage collection': 100,
    // A frame of ours no category names, and a native frame alone.
    'other (microtasks, Node internals)': 75,
  });
});

test('functions are summed by their own samples, idle left out, largest first', () => {
  const { functions } = cpuBreakdown(profile);
  assert.deepEqual(functions.slice(0, 3).map((f) => [f.name, f.us]), [
    ['exec ', 400],
    ['createHandler src/endpoints/handlers/create.ts:1', 300],
    ['onStreamRead node:internal/http2/core:1', 200],
  ]);
  assert.equal(functions.find((f) => f.name.startsWith('(idle)')), undefined);
});
