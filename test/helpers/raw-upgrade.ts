// A client's side of an HTTP/1.1 upgrade through Plinth, as kubectl's SPDY or a WebSocket
// client starts one: the request over TLS with ALPN http/1.1, read until the answer's head
// (and a refusal's whole body) has come.
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

interface UpgradeTarget {
  url: string;
  caPem: string;
  token: string;
}

/** The upgrade request sent, and its connection, before any answer. */
export async function sendUpgrade(server: UpgradeTarget, target: string, protocol: string, extra = '', method = 'POST', token = server.token): Promise<TLSSocket> {
  const url = new URL(server.url);
  const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: server.caPem, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  const authorization = token === '' ? '' : `Authorization: Bearer ${token}\r\n`;
  socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${url.host}\r\n${authorization}Connection: Upgrade\r\nUpgrade: ${protocol}\r\n\r\n${extra}`);
  return socket;
}

/** The answer's head, what came after it, and the connection (to go on with once it switched). */
export async function upgradeThrough(server: UpgradeTarget, target: string, protocol: string, extra = '', method = 'POST', token = server.token): Promise<{ head: string; body: string; socket: TLSSocket }> {
  const socket = await sendUpgrade(server, target, protocol, extra, method, token);
  let received = '';
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('\r\n\r\n') && (received.startsWith('HTTP/1.1 101') || /Content-Length: (\d+)/i.test(received))) {
        const [, length] = /Content-Length: (\d+)/i.exec(received) ?? [];
        const body = received.slice(received.indexOf('\r\n\r\n') + 4);
        if (received.startsWith('HTTP/1.1 101') || body.length >= Number(length)) {
          socket.off('data', onData);
          resolve();
        }
      }
    };
    socket.on('data', onData);
    socket.once('close', resolve);
  });
  const split = received.indexOf('\r\n\r\n');
  return { head: received.slice(0, split), body: received.slice(split + 4), socket };
}
