// Captures the Protobuf request bodies a real Go client sends, as golden bytes for the
// encoder's tests (test/encoding/golden/). Not run in CI: it needs upstream's
// kube-controller-manager (../shared/bin, unpacked to .cache/upstream-bin) and takes a minute.
//
// It starts Plinth in-process, puts a plain-HTTP recording proxy in front of it, and runs
// kube-controller-manager against the proxy; it then creates a Deployment (the controllers
// create its ReplicaSet and Pod) and deletes a namespace (the namespace controller
// finalizes it). Every body sent as application/vnd.kubernetes.protobuf is written to
// OUT/<n>-<verb>-<resource>.pb.
//
//   node tools/capture-protobuf-bodies.ts OUT [seconds]

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig } from '../src/cli/config.ts';
import { serve } from '../src/cli/serve.ts';

const out = path.resolve(process.argv[2] ?? 'captured');
const seconds = Number(process.argv[3] ?? 40);
const binary = path.resolve(import.meta.dirname, '../.cache/upstream-bin/kube-controller-manager');
mkdirSync(out, { recursive: true });

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'plinth-capture-'));
const server = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir }, () => {});
const upstream = new URL(server.url);
const agent = new https.Agent({ ca: server.caPem, keepAlive: true });

let count = 0;
const proxy = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (process.env.CAPTURE_DEBUG) console.log(req.method, req.url, JSON.stringify(req.headers));
    const type = req.headers['content-type'] ?? '';
    if (body.length > 0 && type.startsWith('application/vnd.kubernetes.protobuf')) {
      const resource = new URL(req.url!, 'http://x').pathname.split('/').filter((p) => p !== '').slice(-2).join('_');
      const name = `${String(++count).padStart(3, '0')}-${req.method}-${resource}.pb`;
      writeFileSync(path.join(out, name), body);
    }
    const forward = https.request({
      host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, agent,
      // client-go sends no bearer token over plain HTTP: the proxy adds it.
      headers: { ...req.headers, host: upstream.host, authorization: `Bearer ${server.token}` },
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;

const kubeconfig = path.join(dataDir, 'proxy-kubeconfig');
writeFileSync(kubeconfig, [
  'apiVersion: v1', 'kind: Config', 'current-context: c',
  'clusters: [{name: c, cluster: {server: "' + proxyUrl + '"}}]',
  'users: [{name: u, user: {}}]',
  'contexts: [{name: c, context: {cluster: c, user: u}}]', '',
].join('\n'));

const kcm = spawn(binary, [
  `--kubeconfig=${kubeconfig}`, `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
  '--leader-elect=true', '--secure-port=0', '--controllers=*', '--use-service-account-credentials=false', '-v=1',
], { stdio: ['ignore', 'ignore', 'pipe'] });
kcm.stderr.pipe(process.stderr);

async function api(method: string, urlPath: string, body?: unknown): Promise<void> {
  const res = await fetch(proxyUrl + urlPath, {
    method, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  console.log(method, urlPath, res.status);
}

await new Promise((r) => setTimeout(r, 10_000));
await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'golden' } });
await api('POST', '/apis/apps/v1/namespaces/golden/deployments', {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: '128Mi' } } }] },
    },
  },
});
await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
await new Promise((r) => setTimeout(r, 5_000));
await api('DELETE', '/api/v1/namespaces/doomed');
await new Promise((r) => setTimeout(r, seconds * 1000));

kcm.kill('SIGTERM');
await new Promise((r) => kcm.once('exit', r));
proxy.close();
agent.destroy();
await server.close();
console.log(`${count} Protobuf bodies in ${out}`);
process.exit(0);
