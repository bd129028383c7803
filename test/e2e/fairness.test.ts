// Under load, one greedy client cannot starve another: with a small read limit, a user
// keeping 64 requests in flight fills its own queue (and gets 429s past it), while
// another user's requests wait their turn and are all answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { heldCreate } from '../helpers/held-request.ts';
import { startServer, tempDir } from '../helpers/server.ts';

test('a greedy user gets 429s past its queue; a polite user is answered every time', async () => {
  const file = path.join(tempDir('plinth-fair-'), 'tokens.csv');
  writeFileSync(file, ['admin-token,admin,admin,"system:masters"', 'greedy-token,greedy,greedy-uid,"readers"', 'polite-token,polite,polite-uid,"readers"'].join('\n'));
  const server = await startServer({ tokenAuthFile: file, maxRequestsInflight: 2, inflightQueueWaitMs: 10_000, authorizationModes: ['AlwaysAllow'] });
  try {
    for (let i = 0; i < 50; i++) await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `c${i}` }, data: { v: 'x'.repeat(1000) } }, token: 'admin-token' });
    let running = true;
    const greedy = { ok: 0, refused: 0 };
    const loops = Array.from({ length: 64 }, async () => {
      while (running) {
        const res = await server.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'greedy-token' });
        if (res.status === 200) greedy.ok++;
        else if (res.status === 429) greedy.refused++;
        else throw new Error(`greedy: ${res.status}`);
      }
    });
    const polite: number[] = [];
    for (let i = 0; i < 20; i++) polite.push((await server.request('GET', '/api/v1/namespaces/default/configmaps/c1', { token: 'polite-token' })).status);
    running = false;
    await Promise.all(loops);
    assert.deepEqual(polite, Array(20).fill(200), 'every polite request answered');
    assert.ok(greedy.refused > 0, `the greedy user was held to its queue (ok ${greedy.ok}, refused ${greedy.refused})`);
    assert.ok(greedy.ok > 0);
  } finally {
    await server.stop();
  }
});

test('--enable-priority-and-fairness=false: a write past the limit is refused at once, as upstream\'s max-in-flight filter; with it, it waits its turn', async () => {
  const file = path.join(tempDir('plinth-inflight-'), 'tokens.csv');
  writeFileSync(file, ['admin-token,admin,admin,"system:masters"', 'writer-token,writer,writer-uid,"writers"'].join('\n'));
  for (const fairQueuing of [false, true]) {
    const server = await startServer({ tokenAuthFile: file, maxMutatingRequestsInflight: 1, authorizationModes: ['AlwaysAllow'], enablePriorityAndFairness: fairQueuing });
    try {
      // A create whose body is still coming holds the one slot.
      const { answered: held, finish } = heldCreate(server, { token: 'writer-token' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const sent = performance.now();
      const second = server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second' } }, token: 'writer-token' });
      if (!fairQueuing) {
        const refused = await second;
        assert.equal(refused.status, 429);
        // At once, not after the queue's 15 s wait.
        assert.ok(performance.now() - sent < 5000, `refused after ${Math.round(performance.now() - sent)} ms`);
        assert.equal(refused.headers['retry-after'], '1');
        finish();
        assert.equal(await held, 201);
      } else {
        await new Promise((resolve) => setTimeout(resolve, 200));
        finish();
        assert.deepEqual([await held, (await second).status], [201, 201]);
      }
    } finally {
      await server.stop();
    }
  }
});
