// The webhook client on its own: an answer that is not JSON is refused in client-go's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { AgentPool, postJSON } from '../../src/admission/webhook-client.ts';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { tempDir } from '../helpers/server.ts';

test('a webhook answering 200 with a body that is not JSON fails with Go\'s syntax error under the kind sniffing\'s prefix', async () => {
  const material = await ensureServingMaterial(tempDir('plinth-webhook-'), { hosts: ['localhost'] });
  const bodies = ['<html>oops</html>', '{"kind": "AdmissionReview",', ''];
  const server = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(bodies.shift());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agents = new AgentPool();
  try {
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
    const call = () => postJSON(url, { kind: 'AdmissionReview' }, { timeoutMs: 5_000, caPem: material.caPem, serverName: 'localhost' }, agents).then(() => 'answered', (err: Error) => err.message);
    assert.equal(await call(), "couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value");
    assert.equal(await call(), "couldn't get version/kind; json parse error: unexpected end of JSON input");
    assert.equal(await call(), "couldn't get version/kind; json parse error: unexpected end of JSON input");
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
