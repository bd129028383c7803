// Under load, one greedy client cannot starve another: with a small read limit, a user
// keeping 64 requests in flight fills its own queue (and gets 429s past it), while
// another user's requests wait their turn and are all answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
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
