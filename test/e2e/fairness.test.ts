// Under load, one greedy client cannot starve another: with one seat for everyone's level
// (global-default's share of a server limit of 2), a user keeping 64 requests in flight
// fills the queues of its hand, while another user's requests wait in a queue of their own
// and are served in turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { heldCreate } from '../helpers/held-request.ts';
import { startServer, tempDir } from '../helpers/server.ts';

test('a greedy user fills its own queues; a polite user is answered every time, promptly', async () => {
  const file = path.join(tempDir('plinth-fair-'), 'tokens.csv');
  writeFileSync(file, ['admin-token,admin,admin,"system:masters"', 'greedy-token,greedy,greedy-uid,"readers"', 'polite-token,polite,polite-uid,"readers"'].join('\n'));
  const server = await startServer({ tokenAuthFile: file, maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, inflightQueueWaitMs: 10_000, authorizationModes: ['AlwaysAllow'] });
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
    // Let the greedy user's queues fill first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const okBefore = greedy.ok;
    const polite: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const sent = performance.now();
      polite.push((await server.request('GET', '/api/v1/namespaces/default/configmaps/c1', { token: 'polite-token' })).status);
      waits.push(performance.now() - sent);
    }
    // One seat: requests are served one after the other, this long each.
    const perRequest = (performance.now() - started) / (greedy.ok - okBefore + polite.length);
    running = false;
    await Promise.all(loops);
    assert.deepEqual(polite, Array(20).fill(200), 'every polite request answered');
    assert.ok(greedy.ok > 0 && greedy.refused === 0, `greedy ok ${greedy.ok}, refused ${greedy.refused}`);
    // Behind the greedy user's 63 waiting requests a polite one would wait for all of them; in
    // turn, for about one in each of the greedy user's (six) queues.
    const median = [...waits].sort((a, b) => a - b)[10]!;
    assert.ok(median < 30 * perRequest, `polite waits ${waits.map((w) => w.toFixed(0)).join(' ')} ms; each request ~${perRequest.toFixed(1)} ms`);
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
        // Go's http.Error, as upstream's filter answers.
        assert.equal(refused.text, 'Too many requests, please try again later.\n');
        assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
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
