// Watch timeoutSeconds beyond Node's timer range keeps the watch open, as upstream's duration does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

// 2,147,484 s is the first value whose milliseconds pass 2^31-1; 9,223,372,036 s is the longest
// duration upstream can hold (Go's time.Duration in nanoseconds).
for (const timeoutSeconds of ['2147484', '1000000000', '9223372036']) {
  test(`a watch with timeoutSeconds=${timeoutSeconds} stays open and delivers events`, async () => {
    const ns = await server.newNamespace('wt');
    const stream = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=0&timeoutSeconds=${timeoutSeconds}`);
    try {
      assert.equal(stream.status, 200);
      const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
      assert.equal(created.status, 201, created.text);
      const event = await stream.next();
      assert.ok(event, 'the watch ended');
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.name, 'c');
    } finally {
      stream.close();
    }
  });
}
