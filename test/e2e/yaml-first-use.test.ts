// The YAML library loads on its first use, not at start: a `plinth serve` process (the
// start-up bundle, where the library is a chunk of its own) whose first requests are YAML
// bodies and YAML answers, and the in-process decoder before and after loading it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import test from 'node:test';
import { decodeBody, decodeBodyLoading } from '../../src/encoding/decode.ts';
import { loadedYaml } from '../../src/api/yaml.ts';
import { startServerProcess } from '../helpers/server.ts';

const blockYaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  key: value\n';

test('the decoder loads the YAML library for a YAML body, and only then decodes YAML at once', async () => {
  assert.equal(loadedYaml(), undefined, 'nothing loaded it yet');
  // JSON bodies never need it.
  assert.deepEqual(decodeBody('application/json', Buffer.from('{"a":1}')).value, { a: 1 });
  assert.equal(loadedYaml(), undefined);
  assert.throws(() => decodeBody('application/yaml', Buffer.from(blockYaml)), /before loadYaml/);
  const { value } = await decodeBodyLoading('application/yaml', Buffer.from(blockYaml));
  assert.deepEqual(value, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' }, data: { key: 'value' } });
  assert.notEqual(loadedYaml(), undefined);
  assert.deepEqual(decodeBody('application/yaml', Buffer.from('a: [1, 2]\n')).value, { a: [1, 2] });
});

test('a server process answers YAML bodies and asks for YAML from its first request on', async () => {
  const server = await startServerProcess();
  try {
    const token = readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
    const ca = readFileSync(`${server.dataDir}/pki/ca.crt`);
    const send = (method: string, path: string, headers: Record<string, string>, body?: string) => new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
      const req = https.request(new URL(path, server.url), { method, ca, headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }));
      });
      req.on('error', reject);
      req.end(body);
    });
    const created = await send('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/yaml', accept: 'application/yaml' }, blockYaml);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.type, 'application/yaml');
    // Keys sorted, as kube-apiserver's YAML serializer writes them.
    assert.match(created.text, /^apiVersion: v1\ndata:\n  key: value\nkind: ConfigMap\n/);
    assert.match(created.text, /\n {2}key: value\n/);
    // A server-side apply in block YAML, which is not JSON text.
    const applied = await send('PATCH', '/api/v1/namespaces/default/configmaps/first?fieldManager=yaml-user&force=true', { 'content-type': 'application/apply-patch+yaml' },
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  key: applied\n');
    assert.equal(applied.status, 200, applied.text);
    assert.equal(JSON.parse(applied.text).data.key, 'applied');
    // A YAML body that does not parse is a 400 Status, not an internal error.
    const broken = await send('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/yaml' }, 'metadata: [unclosed\n');
    assert.equal(broken.status, 400, broken.text);
    assert.equal(JSON.parse(broken.text).kind, 'Status');
  } finally {
    await server.stop();
  }
});
