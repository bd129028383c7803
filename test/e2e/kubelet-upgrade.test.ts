// exec, attach and port-forward reach a node's kubelet as kube-apiserver passes them: an
// upgrade sent on with upstream's kubelet path and query, the kubelet's 101 passed back and
// both connections joined (UpgradeAwareHandler); exec and attach over WebSocket v5 served here
// and run on the kubelet over SPDY (the stream translator); port-forward's SPDY tunnelled in a
// WebSocket carried to the kubelet's SPDY (the tunneling handler). A fake kubelet (HTTPS, its
// own CA) speaks SPDY's remote command and port-forward protocols as a kubelet does and
// refuses WebSockets as kubelets do, so kubectl runs through Plinth as it would through upstream.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { existsSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { kubeletStreamTarget } from '../../src/endpoints/handlers/kubelet-streams.ts';
import { simulatedNodeAnnotation } from '../../src/registry/builtin/nodes.ts';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { sample } from '../helpers/metrics.ts';
import { SpdySession, type SpdyStream } from '../../src/endpoints/spdy.ts';
import { kubectl, kubectlAt, needsKubectl } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { fakeKubeletTls, listenOnLoopback } from '../helpers/fake-kubelet.ts';
import { sendUpgrade, upgradeThrough } from '../helpers/raw-upgrade.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  client: string | undefined;
}

const seen: Seen[] = [];
/** The ports the kubelet was asked to forward to, a data stream each. */
const forwardedPorts: string[] = [];
/** Upgraded connections the kubelet saw end. */
let endedUpgrades = 0;
let kubelet: https.Server;
let kubeletPort: number;
let clientFingerprint: string;
let server: TestServer;

/**
 * The kubelet's side of `kubectl exec` (remote command protocol v4 over SPDY): once the
 * error and stdout streams are open, the command's words go to stdout and a Success status
 * to the error stream.
 */
function serveRemoteCommand(socket: Socket, url: URL): void {
  const streams = new Map<string, SpdyStream>();
  const command = url.searchParams.getAll('command');
  new SpdySession(socket, 'server', (stream) => {
    streams.set(stream.headers.streamtype ?? '', stream);
    // A command that writes as soon as its stdout is there, before the other streams are (a kubelet waits; this one does not).
    if (command[0] === 'eager' && stream.headers.streamtype === 'stdout') stream.write('early\n');
    const error = streams.get('error');
    const stdout = streams.get('stdout');
    // As a kubelet: stderr is expected only without a terminal.
    const wantsStderr = url.searchParams.has('error') && !url.searchParams.has('tty');
    if (error === undefined || stdout === undefined || (wantsStderr && !streams.has('stderr'))) return;
    if (url.searchParams.has('input') && !streams.has('stdin')) return;
    if (url.searchParams.has('tty') && !streams.has('resize')) return;
    const stdin = streams.get('stdin');
    if (command[0] === 'sh' && stdin !== undefined) {
      // A terminal: each resize and each input said on stdout, until the input ends.
      streams.get('resize')?.on('data', (chunk: Buffer) => stdout.write(`resized ${chunk.toString()}\n`));
      stdin.on('data', (chunk: Buffer) => stdout.write(`typed ${chunk.toString()}\n`));
      stdin.once('end', () => {
        stdout.end();
        error.end(JSON.stringify({ metadata: {}, status: 'Success' }));
      });
      return;
    }
    if (command[0] === 'cat' && stdin !== undefined) {
      // Its input, in capitals, until the input ends.
      stdin.on('data', (chunk: Buffer) => stdout.write(chunk.toString().toUpperCase()));
      stdin.once('end', () => {
        stdout.end();
        streams.get('stderr')?.end();
        error.end(JSON.stringify({ metadata: {}, status: 'Success' }));
      });
      return;
    }
    if (command[0] === 'fail') {
      // A command that writes to stderr and exits with the code it is given.
      stdout.end();
      streams.get('stderr')?.end('failing\n');
      error.end(JSON.stringify({ metadata: {}, status: 'Failure', message: `command terminated with exit code ${command[1]}`, reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: command[1] }] } }));
      return;
    }
    stdout.end(`ran: ${command.join(' ')}\n`);
    streams.get('stderr')?.end();
    error.end(JSON.stringify({ metadata: {}, status: 'Success' }));
  });
}

/** The kubelet's side of `kubectl port-forward` (portforward.k8s.io over SPDY): each data stream's bytes written back in capitals. */
function servePortForward(socket: Socket): void {
  new SpdySession(socket, 'server', (stream) => {
    if (stream.headers.streamtype !== 'data') return;
    forwardedPorts.push(stream.headers.port ?? '');
    stream.on('data', (chunk: Buffer) => stream.write(chunk.toString().toUpperCase()));
    stream.on('end', () => stream.end());
  });
}

/** The kubelet's answers to upgrades, by path. */
function upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
  socket.on('error', () => {});
  socket.once('close', () => endedUpgrades++);
  const peer = (socket as unknown as TLSSocket).getPeerCertificate();
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, client: peer?.fingerprint256 });
  const url = new URL(req.url ?? '/', 'https://kubelet.invalid');
  const protocol = (req.headers.upgrade ?? '').toLowerCase();
  if (url.pathname.endsWith('/refused')) {
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nforbidden');
    return;
  }
  if (url.pathname.endsWith('/hanging')) {
    // A refusal whose body never comes.
    socket.write('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\npartial');
    return;
  }
  if (url.pathname.endsWith('/silent')) return; // never answers
  if (url.pathname.endsWith('/plain')) {
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    return;
  }
  if (protocol === 'websocket') {
    // A kubelet's streaming server knows WebSocket's protocols up to v4: kubectl's v5 is refused.
    const body = 'requested protocol(s) are not supported: [v5.channel.k8s.io]';
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    return;
  }
  if (protocol === 'echo') {
    // Whatever comes after the switch is written back, in capitals.
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\nX-Kubelet: yes\r\n\r\n');
    if (head.length > 0) socket.write(head.toString().toUpperCase());
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().toUpperCase()));
    return;
  }
  const offered = String(req.headers['x-stream-protocol-version'] ?? '').split(/,\s*/);
  if (url.pathname.startsWith('/portForward/') && protocol === 'spdy/3.1' && offered.includes('portforward.k8s.io')) {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n');
    servePortForward(socket);
    return;
  }
  if (protocol !== 'spdy/3.1' || !offered.includes('v4.channel.k8s.io')) {
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n');
  serveRemoteCommand(socket, url);
}


before(async () => {
  const tls = await fakeKubeletTls();
  clientFingerprint = tls.clientFingerprint;
  kubelet = https.createServer(tls.serverOptions, (req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, client: undefined });
    res.writeHead(400);
    res.end('Upgrade request required');
  });
  kubelet.on('upgrade', upgrade);
  kubeletPort = await listenOnLoopback(kubelet);
  kubeletFlags = tls.flags;
  server = await startServer(tls.flags, { proxyableAddress: () => true }); // the fake kubelet listens on loopback, which nodes/proxy refuses by default
});

let kubeletFlags: Awaited<ReturnType<typeof fakeKubeletTls>>['flags'];

after(async () => {
  await server?.close();
  kubelet?.closeAllConnections();
  await new Promise((resolve) => kubelet?.close(resolve));
});

/** A node whose kubelet listens at 127.0.0.1:port, and a pod bound to it with containers c, d, refused, plain, hanging and silent. */
async function podOnNode(ns: string, node: string, port: number): Promise<void> {
  const status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } };
  const created = await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } } });
  assert.ok(created.status === 201 || created.status === 409, created.text);
  const current = (await server.request('GET', `/api/v1/nodes/${node}`)).json;
  current.status = status;
  assert.equal((await server.request('PUT', `/api/v1/nodes/${node}/status`, { body: current })).status, 200);
  const containers = ['c', 'd', 'refused', 'plain', 'hanging', 'silent'].map((name) => ({ name, image: 'busybox' }));
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers, nodeName: node } } })).status, 201);
}

/** The client's side of an upgrade through Plinth over HTTP/1.1: the answer's head, and the connection when it switched. */
function upgradeThroughPlinth(target: string, protocol: string, extra = '', method = 'POST'): Promise<{ head: string; body: string; socket: TLSSocket }> {
  return upgradeThrough(server, target, protocol, extra, method);
}

test('kubectl exec over WebSocket v5 runs through Plinth, which speaks SPDY to the kubelet as upstream\'s stream translator', { ...needsKubectl, timeout: 30_000 }, async () => {
  const ns = await server.newNamespace('exec');
  await podOnNode(ns, 'real-exec', kubeletPort);
  seen.length = 0;
  assert.equal(await kubectl(server, '-n', ns, 'exec', 'p', '-c', 'c', '--', 'echo', 'a b', '*~'), 'ran: echo a b *~\n');
  // One request reached the kubelet: Plinth's own SPDY upgrade (the WebSocket ended at Plinth), with upstream's path and query and the client certificate.
  assert.deepEqual(seen.map((s) => [s.method, s.headers.upgrade, s.url, s.client]), [
    ['POST', 'SPDY/3.1', `/exec/${ns}/p/c?command=echo&command=a+b&command=%2A~&error=1&output=1`, clientFingerprint],
  ]);
  assert.equal(seen[0]!.headers['x-stream-protocol-version'], 'v5.channel.k8s.io, v4.channel.k8s.io');
  assert.equal(seen[0]!.headers.authorization, undefined);

  // Input reaches the command and its end is passed on (v5's CLOSE signal, then SPDY's FIN).
  const piped = await new Promise<string>((resolve, reject) => {
    const child = spawn('/usr/bin/kubectl', ['--kubeconfig', server.kubeconfigPath, '-n', ns, 'exec', '-i', 'p', '-c', 'c', '--', 'cat'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl exited ${code}: ${err}`))));
    child.stdin.end('hello\nworld\n');
  });
  assert.equal(piped, 'HELLO\nWORLD\n');

  // A command's exit code comes back as kubectl's own.
  const failed = await new Promise<{ code: number | null; err: string }>((resolve) => {
    const child = spawn('/usr/bin/kubectl', ['--kubeconfig', server.kubeconfigPath, '-n', ns, 'exec', 'p', '-c', 'c', '--', 'fail', '3'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    child.once('close', (code) => resolve({ code, err }));
  });
  assert.equal(failed.code, 3, failed.err);
  assert.match(failed.err, /failing\n/);
  assert.match(failed.err, /command terminated with exit code 3/);
});

test('kubectl exec told to speak SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) is passed through to the kubelet', needsKubectl, async () => {
  const ns = await server.newNamespace('exec-fallback');
  await podOnNode(ns, 'real-exec-fallback', kubeletPort);
  seen.length = 0;
  // KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false: kubectl speaks SPDY alone, and Plinth passes it on with the caller's headers.
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('/usr/bin/kubectl', ['--kubeconfig', server.kubeconfigPath, '-n', ns, 'exec', 'p', '-c', 'c', '--', 'echo', 'a b', '*~'], { env: { ...process.env, KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`kubectl exited ${code}`))));
  });
  assert.equal(out, 'ran: echo a b *~\n');
  assert.deepEqual(seen.map((s) => [s.method, s.headers.upgrade?.toLowerCase(), s.url, s.client]), [
    ['POST', 'spdy/3.1', `/exec/${ns}/p/c?command=echo&command=a+b&command=%2A~&error=1&output=1`, clientFingerprint],
  ]);
  assert.equal(seen[0]!.headers.authorization, undefined);
  assert.equal(seen[0]!.headers['x-forwarded-for'], '127.0.0.1');
  assert.match(String(seen[0]!.headers['user-agent']), /^kubectl/);
});

const kubectl127 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';

test('kubectl 1.27, which speaks SPDY only, execs through Plinth', { skip: existsSync(kubectl127) ? false : 'kubectl 1.27 is not installed' }, async () => {
  const ns = await server.newNamespace('exec-127');
  await podOnNode(ns, 'real-exec-127', kubeletPort);
  seen.length = 0;
  assert.equal(await kubectlAt(kubectl127, ['--kubeconfig', server.kubeconfigPath], '-n', ns, 'exec', 'p', '-c', 'd', '--', 'date'), 'ran: date\n');
  assert.deepEqual(seen.map((s) => [s.method, s.headers.upgrade?.toLowerCase(), s.url]), [['POST', 'spdy/3.1', `/exec/${ns}/p/d?command=date&error=1&output=1`]]);
});

for (const websockets of [true, false]) {
  const how = websockets ? 'SPDY tunnelled in a WebSocket, which Plinth carries to the kubelet\'s SPDY' : 'SPDY alone, passed through';
  test(`kubectl port-forward forwards a local connection through Plinth to the kubelet: ${how}`, needsKubectl, async () => {
    const ns = await server.newNamespace('forward');
    await podOnNode(ns, `real-forward-${websockets}`, kubeletPort);
    // kubectl forwards only to a running pod.
    const pod = (await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json;
    pod.status = { ...pod.status, phase: 'Running' };
    assert.equal((await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p/status`, { body: pod })).status, 200);
    seen.length = 0;
    forwardedPorts.length = 0;
    const tunnelled = async () => sample((await server.request('GET', '/metrics')).text, 'apiserver_stream_tunnel_requests_total', { code: '101' });
    const tunnelledBefore = await tunnelled();
    const local = await freePort();
    const env = { ...process.env, KUBECTL_PORT_FORWARD_WEBSOCKETS: String(websockets) };
    const child = spawn('/usr/bin/kubectl', ['--kubeconfig', server.kubeconfigPath, '-n', ns, 'port-forward', 'pod/p', `${local}:8080`], { stdio: ['ignore', 'pipe', 'pipe'], env });
    try {
      let printed = '';
      child.stdout.on('data', (chunk: Buffer) => { printed += chunk.toString(); });
      child.stderr.on('data', (chunk: Buffer) => { printed += chunk.toString(); });
      await eventually(() => assert.match(printed, /Forwarding from 127\.0\.0\.1:/), { timeoutMs: 20_000 });
      const answer = await new Promise<string>((resolve, reject) => {
        const connection = netConnect(local, '127.0.0.1', () => connection.write('ping'));
        let got = '';
        connection.on('data', (chunk: Buffer) => {
          got += chunk.toString();
          if (got.length >= 4) {
            connection.end();
            resolve(got);
          }
        });
        connection.on('error', reject);
      });
      assert.equal(answer, 'PING');
      assert.deepEqual(forwardedPorts, ['8080']);
      // One SPDY upgrade reached the kubelet either way: Plinth's own for the tunnel (no WebSocket headers), kubectl's passed through.
      assert.deepEqual(seen.map((s) => [s.method, s.headers.upgrade, s.headers['x-stream-protocol-version'], s.url, s.headers['sec-websocket-protocol']]), [
        ['POST', 'SPDY/3.1', 'portforward.k8s.io', `/portForward/${ns}/p`, undefined],
      ]);
      assert.match(String(seen[0]!.headers['user-agent']), /^kubectl/);
      // Upstream's tunneling handler counts the switch it makes (code 101); SPDY alone is no tunnel.
      assert.equal(await tunnelled() - tunnelledBefore, websockets ? 1 : 0);
    } finally {
      child.kill();
    }
  });
}

/**
 * The fake kubelet's echo through a switched connection: what was sent early and then comes
 * back in capitals; the caller hanging up ends the kubelet's side too, and the switch is
 * counted as upstream counts one (code 101).
 */
async function echoesThenEnds(socket: TLSSocket, body: string, switches: () => Promise<number>, switchesBefore: number): Promise<void> {
  let echoed = body;
  socket.on('data', (chunk: Buffer) => { echoed += chunk.toString(); });
  socket.write('hello');
  await eventually(() => assert.equal(echoed, 'EARLY HELLO'));
  socket.end();
  await eventually(() => assert.equal(endedUpgrades, 1));
  await eventually(async () => assert.equal(await switches(), switchesBefore + 1));
}

test('an upgraded connection carries both ways until one side ends, and a refusal comes back as the kubelet wrote it', async () => {
  const ns = await server.newNamespace('echo');
  await podOnNode(ns, 'real-echo', kubeletPort);
  const target = `/api/v1/namespaces/${ns}/pods/p/exec?container=d&command=cat&stdin=true&stdout=1&tty=yes&stderr=false`;
  seen.length = 0;
  endedUpgrades = 0;
  const switches = async () => sample((await server.request('GET', '/metrics')).text, 'apiserver_request_total', { verb: 'CONNECT', code: '101', resource: 'pods', subresource: 'exec' });
  const switchesBefore = await switches();
  const { head, body, socket } = await upgradeThroughPlinth(target, 'echo', 'early ');
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(head, /\r\nupgrade: echo/i);
  assert.match(head, /\r\nx-kubelet: yes/i);
  assert.equal(seen[0]!.url, `/exec/${ns}/p/d?command=cat&input=1&output=1&tty=1`);
  await echoesThenEnds(socket, body, switches, switchesBefore);

  // A kubelet that refuses: its answer as it wrote it, and the connection closed.
  const refused = await upgradeThroughPlinth(`/api/v1/namespaces/${ns}/pods/p/attach?container=refused`, 'echo');
  assert.match(refused.head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.equal(refused.body, 'forbidden');
  // One that answers without switching: upstream's error.
  const plain = await upgradeThroughPlinth(`/api/v1/namespaces/${ns}/pods/p/attach?container=plain`, 'echo');
  assert.match(plain.head, /^HTTP\/1\.1 500 /);
  assert.equal(JSON.parse(plain.body).message, 'invalid upgrade response: status code 200');
  refused.socket.destroy();
  plain.socket.destroy();
});

test('an upgrade through nodes/proxy is passed to the kubelet\'s path and joined, as upstream\'s node proxy passes it', async () => {
  const ns = await server.newNamespace('node-proxy-upgrade');
  await podOnNode(ns, 'proxied-echo', kubeletPort);
  seen.length = 0;
  endedUpgrades = 0;
  const switches = async () => sample((await server.request('GET', '/metrics')).text, 'apiserver_request_total', { verb: 'CONNECT', code: '101', resource: 'nodes', subresource: 'proxy' });
  const switchesBefore = await switches();
  const { head, body, socket } = await upgradeThroughPlinth('/api/v1/nodes/proxied-echo/proxy/some/path?x=1&y=%2F', 'echo', 'early ', 'GET');
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(head, /\r\nx-kubelet: yes/i);
  assert.equal(seen[0]!.method, 'GET');
  assert.equal(seen[0]!.url, '/some/path?x=1&y=%2F');
  assert.equal(seen[0]!.headers.authorization, undefined);
  assert.equal(seen[0]!.headers['x-forwarded-for'], '127.0.0.1');
  assert.equal(seen[0]!.client, clientFingerprint);
  await echoesThenEnds(socket, body, switches, switchesBefore);

  // The kubelet's refusal comes back as it wrote it; an answer that is not a switch is upstream's error.
  const refused = await upgradeThroughPlinth('/api/v1/nodes/proxied-echo/proxy/refused', 'echo', '', 'GET');
  assert.match(refused.head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.equal(refused.body, 'forbidden');
  const plain = await upgradeThroughPlinth('/api/v1/nodes/proxied-echo/proxy/plain', 'echo', '', 'GET');
  assert.match(plain.head, /^HTTP\/1\.1 500 /);
  assert.equal(JSON.parse(plain.body).message, 'invalid upgrade response: status code 200');
  refused.socket.destroy();
  plain.socket.destroy();
  // Without an upgrade, the same path is proxied as any request.
  const proxied = await server.request('GET', '/api/v1/nodes/proxied-echo/proxy/some/path');
  assert.equal(proxied.status, 400);
  assert.equal(proxied.text, 'Upgrade request required');
});

test('a caller leaving before the kubelet answers its upgrade ends the upgrade sent to the kubelet', async () => {
  const ns = await server.newNamespace('silent-kubelet');
  await podOnNode(ns, 'silent-kubelet', kubeletPort);
  seen.length = 0;
  endedUpgrades = 0;
  for (const path of [`/api/v1/namespaces/${ns}/pods/p/attach?container=silent`, '/api/v1/nodes/silent-kubelet/proxy/silent']) {
    const socket = await sendUpgrade(server, path, 'echo', '', path.includes('/nodes/') ? 'GET' : 'POST');
    const before = seen.length;
    await eventually(() => assert.equal(seen.length, before + 1));
    socket.destroy();
    await eventually(() => assert.equal(endedUpgrades, before + 1));
  }
});

test('an upgrade through a simulated node\'s proxy is answered as its plain requests are', async () => {
  const created = await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'simulated-proxy', annotations: { [simulatedNodeAnnotation]: 'true' } } } });
  assert.equal(created.status, 201, created.text);
  const { head, body, socket } = await upgradeThroughPlinth('/api/v1/nodes/simulated-proxy/proxy/x', 'echo', '', 'GET');
  assert.match(head, /^HTTP\/1\.1 503 /);
  assert.match(JSON.parse(body).message, /^error trying to reach service: no kubelet is reachable: the node is simulated/);
  socket.destroy();
});

test('a refusal that does not end is cut off after upstream\'s 10 seconds', { timeout: 20_000 }, async () => {
  const ns = await server.newNamespace('hanging');
  await podOnNode(ns, 'real-hanging', kubeletPort);
  const started = performance.now();
  const hanging = await upgradeThroughPlinth(`/api/v1/namespaces/${ns}/pods/p/attach?container=hanging`, 'echo');
  assert.match(hanging.head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  await new Promise((resolve) => (hanging.socket.closed ? resolve(undefined) : hanging.socket.once('close', resolve)));
  assert.ok(performance.now() - started >= 9_000, 'cut off before the deadline');
});

test('a server that stops ends the upgraded connections it joined', async () => {
  const own = await startServer(kubeletFlags);
  const shared = server;
  server = own;
  try {
    const ns = await server.newNamespace('stopping');
    await podOnNode(ns, 'real-stopping', kubeletPort);
    endedUpgrades = 0;
    const { head, socket } = await upgradeThroughPlinth(`/api/v1/namespaces/${ns}/pods/p/attach?container=c&stdin=1`, 'echo');
    assert.match(head, /^HTTP\/1\.1 101 /);
    const clientClosed = new Promise((resolve) => socket.once('close', resolve));
    await own.close();
    await clientClosed;
    await eventually(() => assert.equal(endedUpgrades, 1));
  } finally {
    server = shared;
    await own.close();
  }
});

test('exec answers without an upgrade, and a kubelet that cannot be reached, as upstream', async () => {
  const ns = await server.newNamespace('exec-errors');
  await podOnNode(ns, 'real-exec-2', kubeletPort);
  const plain = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/exec?container=c&command=ls`);
  assert.deepEqual([plain.status, plain.json.reason, plain.json.message], [400, 'BadRequest', 'Upgrade request required']);
  // A simulated node's kubelet is not dialed; the answer says so.
  const simulated = await server.newNamespace('exec-simulated');
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim-exec', annotations: { 'simulation.plinth.dev/simulated': 'true' } } };
  assert.equal((await server.request('POST', '/api/v1/nodes', { body: node })).status, 201);
  await server.request('POST', `/api/v1/namespaces/${simulated}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'sim-exec', containers: [{ name: 'c', image: 'busybox' }] } } });
  const sim = await upgradeThroughPlinth(`/api/v1/namespaces/${simulated}/pods/p/attach?container=c`, 'SPDY/3.1');
  assert.match(sim.head, /^HTTP\/1\.1 500 /);
  assert.equal(JSON.parse(sim.body).message, 'error dialing backend: no kubelet is reachable: the node is simulated (node "sim-exec" at sim-exec:10250)');
  sim.socket.destroy();
  const closed = await freePort();
  const down = await server.newNamespace('exec-down');
  await podOnNode(down, 'real-down', closed);
  const dial = await upgradeThroughPlinth(`/api/v1/namespaces/${down}/pods/p/exec?container=c&command=ls`, 'SPDY/3.1');
  assert.match(dial.head, /^HTTP\/1\.1 500 /);
  assert.equal(JSON.parse(dial.body).message, `error dialing backend: dial tcp 127.0.0.1:${closed}: connect: connection refused`);
  dial.socket.destroy();
  // Port-forward's ports decode as Go's query conversion reads them.
  const badPort = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/portforward?ports=80,x`);
  assert.deepEqual([badPort.status, badPort.json.message], [400, 'cannot convert to []int32: strconv.ParseUint: parsing "x": invalid syntax']);
  const bigPort = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/portforward?ports=65536`);
  assert.deepEqual([bigPort.status, bigPort.json.message], [400, 'cannot convert to []int32: strconv.ParseUint: parsing "65536": value out of range']);
  // A target that does not parse, asking to upgrade: the usual 400, and the server goes on.
  const garbled = await upgradeThroughPlinth(`/api/v1/namespaces/%ZZ/pods/p/exec`, 'SPDY/3.1');
  assert.match(garbled.head, /^HTTP\/1\.1 400 /);
  garbled.socket.destroy();
  assert.equal((await server.request('GET', '/readyz')).status, 200);
  // Another resource's Upgrade header is ignored: it is served as any request.
  const list = await upgradeThroughPlinth(`/api/v1/namespaces/${ns}/configmaps`, 'websocket', '', 'GET');
  assert.match(list.head, /^HTTP\/1\.1 200 /);
  assert.equal(JSON.parse(list.body).kind, 'ConfigMapList');
  list.socket.destroy();
});

/** A WebSocket v5 client's view of an exec through Plinth: the messages (channel, text) until the server closed. */
async function execOverWebSocket(path: string): Promise<Array<[number, string]>> {
  const ws = new WebSocket(new URL(path, server.url.replace('https:', 'wss:')), ['v5.channel.k8s.io'], { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } });
  const messages: Array<[number, string]> = [];
  ws.on('message', (data: Buffer) => messages.push([data[0]!, data.subarray(1).toString()]));
  await new Promise((resolve, reject) => {
    ws.once('close', resolve);
    ws.once('error', reject);
  });
  return messages;
}

test('a translated exec ends with upstream\'s Status on the error channel, its output all there', async () => {
  const translated = async (code: string) => sample((await server.request('GET', '/metrics')).text, 'apiserver_stream_translator_requests_total', { code });
  const [ok, failing] = [await translated('200'), await translated('500')];
  const closed = await freePort();
  const down = await server.newNamespace('ws-down');
  await podOnNode(down, 'real-ws-down', closed);
  // Ready (an empty stdout message), then the Status: the kubelet could not be reached (client-go's words around Go's).
  const dialError = `error sending request: Post "https://127.0.0.1:${closed}/exec/${down}/p/c?command=ls&output=1": dial tcp 127.0.0.1:${closed}: connect: connection refused`;
  assert.deepEqual(await execOverWebSocket(`/api/v1/namespaces/${down}/pods/p/exec?container=c&command=ls&stdout=true`), [
    [1, ''],
    [3, JSON.stringify({ metadata: {}, status: 'Failure', message: `Internal error occurred: ${dialError}`, reason: 'InternalError', details: { causes: [{ message: dialError }] }, code: 500 })],
  ]);
  // A kubelet that refuses: its words, as client-go's SPDY round tripper reports them.
  const ns = await server.newNamespace('ws-refused');
  await podOnNode(ns, 'real-ws-refused', kubeletPort);
  const refused = await execOverWebSocket(`/api/v1/namespaces/${ns}/pods/p/exec?container=refused&command=ls&stderr=true`);
  assert.deepEqual(refused[0], [2, '']);
  assert.equal(JSON.parse(refused[1]![1]).message, 'Internal error occurred: unable to upgrade connection: forbidden');
  // The command's exit code, as upstream's translator words it.
  const failed = await execOverWebSocket(`/api/v1/namespaces/${ns}/pods/p/exec?container=c&command=fail&command=7&stdout=1&stderr=1`);
  assert.deepEqual(failed, [
    [1, ''], [2, 'failing\n'],
    [3, JSON.stringify({ metadata: {}, status: 'Failure', message: 'command terminated with non-zero exit code: command terminated with exit code 7', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '7' }] } })],
  ]);
  // Output written the moment its stream opens is not lost.
  const eager = await execOverWebSocket(`/api/v1/namespaces/${ns}/pods/p/exec?container=c&command=eager&stdout=1&stderr=1`);
  assert.deepEqual(eager.slice(0, 3), [[1, ''], [1, 'early\n'], [1, 'ran: eager\n']]);
  // Counted as upstream's translator counts them: a command that ran is 200 whatever its exit code, a failure by its Status's code.
  assert.equal(await translated('200'), ok + 2);
  assert.equal(await translated('500'), failing + 2);
});

test('a translated exec with a terminal carries resizes and input, and the CLOSE signal ends the input', async () => {
  const ns = await server.newNamespace('ws-tty');
  await podOnNode(ns, 'real-ws-tty', kubeletPort);
  seen.length = 0;
  const ws = new WebSocket(new URL(`/api/v1/namespaces/${ns}/pods/p/exec?container=c&command=sh&stdin=1&stdout=1&stderr=1&tty=1`, server.url.replace('https:', 'wss:')), ['v5.channel.k8s.io'], { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } });
  const messages: Array<[number, string]> = [];
  ws.on('message', (data: Buffer) => messages.push([data[0]!, data.subarray(1).toString()]));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  assert.equal(ws.protocol, 'v5.channel.k8s.io');
  ws.send(Buffer.concat([Buffer.from([4]), Buffer.from('{"Width":80,"Height":24}')]));
  await eventually(() => assert.ok(messages.some(([, text]) => text.startsWith('resized')), JSON.stringify(messages)));
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('ls')]));
  await eventually(() => assert.ok(messages.some(([, text]) => text.startsWith('typed')), JSON.stringify(messages)));
  ws.send(Buffer.from([255, 0]));
  await new Promise((resolve) => ws.once('close', resolve));
  // With a terminal there is no stderr stream: the kubelet is asked for none, and stdout carries it all.
  assert.equal(seen[0]!.url, `/exec/${ns}/p/c?command=sh&error=1&input=1&output=1&tty=1`);
  assert.deepEqual(messages, [[1, ''], [1, 'resized {"Width":80,"Height":24}\n'], [1, 'typed ls\n'], [3, JSON.stringify({ metadata: {}, status: 'Success' })]]);
});

test('the kubelet\'s path and query as upstream\'s streamLocation builds them', () => {
  const q = (s: string) => new URLSearchParams(s);
  assert.equal(kubeletStreamTarget('exec', 'n', 'p', 'c', q('command=sh&command=-c&command=echo $HOME&stdin=true&tty=true&stdout=false')), '/exec/n/p/c?command=sh&command=-c&command=echo+%24HOME&input=1&tty=1');
  assert.equal(kubeletStreamTarget('attach', 'n', 'p', 'c', q('stdout=1&stderr=1&command=ignored')), '/attach/n/p/c?error=1&output=1');
  // One `port` listing them all, as upstream's streamParams joins them (url.Values escapes the commas).
  assert.equal(kubeletStreamTarget('portforward', 'n', 'p', '', q('ports=8080,9090&ports=22')), '/portForward/n/p?port=8080%2C9090%2C22');
  assert.equal(kubeletStreamTarget('portforward', 'n', 'p', '', q('ports=0')), '/portForward/n/p?port=0');
  assert.equal(kubeletStreamTarget('portforward', 'n', 'p', '', q('')), '/portForward/n/p');
});
