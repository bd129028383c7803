// kubectl 1.33 against a small plain-HTTP server that decodes its Protobuf request bodies
// with decodeProtobufObject and answers with encodeProtobufObject: both directions checked
// by the real client, without the rest of Plinth.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { KubeObject } from '../../src/api/index.ts';
import { decodeProtobufObject, encodeProtobufObject, protobufMediaType } from '../../src/encoding/protobuf/index.ts';

const kubectl = process.env.KUBECTL_PROTOBUF ?? '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const skip = existsSync(kubectl) ? false : `needs kubectl 1.32+ at ${kubectl} (or KUBECTL_PROTOBUF)`;
const run = promisify(execFile);

interface Received {
  contentType: string | undefined;
  object: KubeObject;
}

/** What the server adds to every created object. */
const serverFields = { uid: '0b6f5c5e-1111-4222-8333-444455556666', resourceVersion: '42', creationTimestamp: '2024-01-02T03:04:05Z' };

/** kubectl prints Go's nulls (`creationTimestamp: null`) that the JSON shape leaves out. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

describe('kubectl 1.33 talking Protobuf', { skip }, () => {
  let server: Server;
  let url = '';
  const received: Received[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST') {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404 }));
          return;
        }
        try {
          const object = decodeProtobufObject(Buffer.concat(chunks));
          received.push({ contentType: req.headers['content-type'], object: structuredClone(object) });
          if (object.metadata.name === 'taken') {
            res.writeHead(409, { 'content-type': protobufMediaType });
            res.end(encodeProtobufObject({
              apiVersion: 'v1',
              kind: 'Status',
              metadata: {},
              status: 'Failure',
              message: 'namespaces "taken" already exists',
              reason: 'AlreadyExists',
              details: { name: 'taken', kind: 'namespaces' },
              code: 409,
            }));
            return;
          }
          Object.assign(object.metadata, serverFields);
          res.writeHead(201, { 'content-type': protobufMediaType });
          res.end(encodeProtobufObject(object));
        } catch (err) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: String(err), code: 500 }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: [string, string[], Record<string, unknown>][] = [
    ['namespace', ['create', 'namespace', 'demo'],
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' }, spec: {}, status: {} }],
    ['configmap', ['-n', 'default', 'create', 'configmap', 'cm1', '--from-literal=a=1', '--from-literal=b=two'],
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, data: { a: '1', b: 'two' } }],
    ['secret', ['-n', 'default', 'create', 'secret', 'generic', 's1', '--from-literal=k=v', '--type=example.com/x'],
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default' }, data: { k: 'dg==' }, type: 'example.com/x' }],
    ['serviceaccount', ['-n', 'default', 'create', 'serviceaccount', 'sa1'],
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1', namespace: 'default' } }],
    ['service', ['-n', 'default', 'create', 'service', 'nodeport', 'svc1', '--tcp=80:http', '--node-port=30080'],
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'svc1', namespace: 'default', labels: { app: 'svc1' } },
        spec: { ports: [{ name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 }], selector: { app: 'svc1' }, type: 'NodePort' },
        status: { loadBalancer: {} },
      }],
    ['deployment', ['-n', 'default', 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=0', '--port=80'],
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: {} }] },
          },
          strategy: {},
        },
        status: {},
      }],
  ];

  for (const [name, args, expected] of cases) {
    test(`kubectl create ${name}: the Protobuf body decodes, and kubectl decodes the Protobuf answer`, async () => {
      received.length = 0;
      const { stdout } = await run(kubectl, [`--server=${url}`, ...args, '-o', 'json'], {
        env: { ...process.env, KUBECONFIG: '/dev/null' },
        timeout: 20_000,
      });
      assert.equal(received.length, 1);
      assert.equal(received[0]!.contentType, protobufMediaType);
      assert.deepEqual(received[0]!.object, expected);
      const shown = withoutNulls(JSON.parse(stdout));
      const metadata = { ...(expected.metadata as object), ...serverFields };
      assert.deepEqual(shown, { ...expected, metadata });
    });
  }

  test('an error Status answered in Protobuf is what kubectl reports', async () => {
    await assert.rejects(
      run(kubectl, [`--server=${url}`, 'create', 'namespace', 'taken'], { env: { ...process.env, KUBECONFIG: '/dev/null' }, timeout: 20_000 }),
      (err: { stderr?: string }) => {
        assert.match(err.stderr ?? '', /Error from server \(AlreadyExists\): namespaces "taken" already exists/);
        return true;
      },
    );
  });
});
