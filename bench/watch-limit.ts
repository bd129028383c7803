// The ceiling for the watch fan-out: a bare Node HTTP/2 server that answers the shared
// client's watch scenario with the least work. No storage, no queue limits: a PUT's
// body, with a resourceVersion, is one event, encoded once and written to every open
// watch, the events of one turn of the event loop joined into one write per watch. It
// allows 100 streams per HTTP/2 connection, as kube-apiserver and Plinth do, so the
// client spreads its watches over the same number of connections. What it cannot
// deliver in time, no Node server can.
//
//   node bench/watch-limit.ts --port P --dir DIR    (writes DIR/kubeconfig)
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import { ensureServingMaterial } from '../src/server/tls-material.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : fallback;
};
const port = Number(arg('--port', '7460'));
const dir = path.resolve(arg('--dir', '/tmp/plinth-watch-limit'));
mkdirSync(dir, { recursive: true });
const tls = await ensureServingMaterial(dir);
const token = randomBytes(24).toString('hex');
writeFileSync(path.join(dir, 'kubeconfig'), `apiVersion: v1
kind: Config
clusters:
- name: watch-limit
  cluster:
    server: https://127.0.0.1:${port}
    certificate-authority-data: ${Buffer.from(tls.caPem).toString('base64')}
users:
- name: watch-limit
  user:
    token: ${token}
contexts:
- name: watch-limit
  context: {cluster: watch-limit, user: watch-limit}
current-context: watch-limit
`, { mode: 0o600 });

let revision = 1;
const watches = new Set<http2.ServerHttp2Stream>();
let pending: Buffer[] = [];

/** One event for every watch, in the next check phase together with the rest of this turn's. */
function publish(event: Buffer): void {
  if (pending.length === 0) setImmediate(flush);
  pending.push(event);
}

function flush(): void {
  const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
  pending = [];
  for (const stream of watches) stream.write(chunk);
}

/** The object as stored: a resourceVersion of its own, the namespace of its URL. */
function stored(body: Buffer, namespace: string | undefined): Record<string, any> {
  const object = JSON.parse(body.toString());
  object.metadata = { ...object.metadata, resourceVersion: String(++revision), ...(namespace === undefined ? {} : { namespace }) };
  return object;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
/** Answered without a token, as probes ask. */
const probes = new Set(['/readyz', '/healthz', '/livez']);
const status = (code: number) => json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: code < 300 ? 'Success' : 'Failure', code });

function answer(method: string, target: string, body: Buffer): [number, Buffer] | 'watch' {
  const [p, q = ''] = target.split('?');
  const query = new URLSearchParams(q);
  const segments = p!.split('/'); // ['', 'api', 'v1', 'namespaces', ns, 'configmaps', name]
  if (p === '/version') return [200, json({ major: '1', minor: '36', gitVersion: 'v0.0.0-watch-limit' })];
  if (p === '/readyz' || p === '/healthz' || p === '/livez') return [200, Buffer.from('ok')];
  if (segments[1] !== 'api' || segments[2] !== 'v1' || segments[3] !== 'namespaces') return [404, status(404)];
  const namespace = segments[4];
  if (segments.length === 4) return method === 'POST' ? [201, json(stored(body, undefined))] : [405, status(405)];
  if (segments[5] !== 'configmaps') return method === 'GET' ? [404, status(404)] : [200, status(200)];
  if (segments.length === 6) {
    if (method === 'POST') return [201, json(stored(body, namespace))];
    if (method === 'DELETE') return [200, status(200)];
    if (query.get('watch') === '1' || query.get('watch') === 'true') return 'watch';
    return [200, json({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: String(revision) }, items: [] })];
  }
  if (method === 'PUT') {
    const object = stored(body, namespace);
    publish(Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object })}\n`));
    return [200, json(object)];
  }
  return method === 'DELETE' ? [200, status(200)] : [404, status(404)];
}

// HTTP/1.1 too, for readiness probes; the client's watches come over HTTP/2.
const server = http2.createSecureServer({ cert: tls.certPem, key: tls.keyPem, allowHTTP1: true, settings: { maxConcurrentStreams: 100, initialWindowSize: 1 << 20 } });
server.on('request', (req, res) => {
  if (req.httpVersionMajor === 2) return;
  const result = probes.has(req.url ?? '') ? answer('GET', req.url!, Buffer.alloc(0)) : 'watch';
  if (result === 'watch') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(result[0]).end(result[1]);
});
// The 'request' listener added Node's compatibility layer as a second 'stream' listener: HTTP/2 is served by the one below alone.
server.removeAllListeners('stream');
server.on('stream', (stream, headers) => {
  stream.on('error', () => {});
  const method = headers[':method']!;
  const target = headers[':path']!;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => {
    if (stream.destroyed) return;
    if (headers.authorization !== `Bearer ${token}` && !probes.has(target)) {
      stream.respond({ ':status': 401 });
      stream.end(status(401));
      return;
    }
    let result: ReturnType<typeof answer>;
    try {
      result = answer(method, target, Buffer.concat(chunks));
    } catch {
      result = [400, status(400)];
    }
    if (result === 'watch') {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      watches.add(stream);
      stream.on('close', () => watches.delete(stream));
      return;
    }
    stream.respond({ ':status': result[0], 'content-type': 'application/json', 'content-length': result[1].length });
    stream.end(result[1]);
  });
});
server.on('sessionError', () => {});
server.listen(port, '127.0.0.1', () => console.log(`watch limit server on https://127.0.0.1:${port}`));
